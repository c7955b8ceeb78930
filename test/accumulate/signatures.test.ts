import t from 'tap';
import { runStage } from '../../lib/stage.js';
import { createSignatureAccumulator } from '../../lib/accumulate/signatures.js';
import { done, geminiEmptyTextSignature, geminiThoughtFunctionCall, sig, start, text, toolDone, toolStart } from './sequences.js';

t.test('Gemini: function-call and empty-text-part signatures, in order, and the last one', async (t) => {
  const acc = createSignatureAccumulator();
  const events = [
    start('resp', 'gemini-3-pro-preview', 'gemini'),
    toolStart(0, 'call_0', 'get_weather'),
    toolDone(0, 'call_0', 'get_weather', '{"city":"Paris"}'),
    sig(0, 'sig-on-function-call', 'thought_signature'),
    text(0, 'Checking.'),
    sig(0, 'sig-on-empty-text-part', 'thought_signature'),
    done('tool_use', 'STOP'),
  ];
  const out = runStage(acc, events);
  t.equal(out.length, events.length, 'events pass through');
  t.strictSame(acc.all(), [
    { index: 0, signature: 'sig-on-function-call', kind: 'thought_signature' },
    { index: 0, signature: 'sig-on-empty-text-part', kind: 'thought_signature' },
  ]);
  t.strictSame(acc.last(), { index: 0, signature: 'sig-on-empty-text-part', kind: 'thought_signature' });
});

t.test('per response: kept after done, reset when the next begins', async (t) => {
  const acc = createSignatureAccumulator();
  const emit = (): void => {};
  t.equal(acc.last(), null);
  for (const ev of geminiEmptyTextSignature()) acc.push(ev, emit);
  t.equal(acc.last()?.signature, 'CiQB0e2Kb3Z0aG91Z2h0LXNpZw==');
  for (const ev of geminiThoughtFunctionCall()) acc.push(ev, emit);
  t.strictSame(acc.all(), [{ index: 0, signature: 'Cs0BAdHtim9fc2lnbmF0dXJl', kind: 'thought_signature' }]);
  acc.push(start('r3', 'm'), emit);
  t.strictSame(acc.all(), []);
  t.equal(acc.last(), null);
});
