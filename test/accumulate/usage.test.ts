import t from 'tap';
import { runStage } from '../../lib/stage.js';
import { createUsageAccumulator } from '../../lib/accumulate/usage.js';
import { anthropicThinkingToolUse, done, geminiEmptyTextSignature, openaiChatText, raw, start, text, usage } from './sequences.js';

t.test('the usage of a response, with its raw provider object', async (t) => {
  const acc = createUsageAccumulator();
  const events = anthropicThinkingToolUse();
  const out = runStage(acc, events);
  t.equal(out.length, events.length, 'events pass through');
  t.strictSame(acc.usage(), { inputTokens: 2679, outputTokens: 103, totalTokens: 2782, reasoningTokens: null, cachedInputTokens: 2048 });
  t.strictSame(acc.raw(), { input_tokens: 631, cache_read_input_tokens: 2048, output_tokens: 103 });
});

t.test('usage events replace each other: running totals are never summed', async (t) => {
  const acc = createUsageAccumulator();
  runStage(acc, [
    start('g', 'gemini-2.5-flash'),
    text(0, 'a'),
    usage({ inputTokens: 8, outputTokens: 2, totalTokens: 10 }),
    text(0, 'b'),
    usage({ inputTokens: 8, outputTokens: 4, totalTokens: 12 }),
    text(0, 'c'),
    usage({ inputTokens: 8, outputTokens: 6, totalTokens: 14, reasoningTokens: 3 }),
    done('end', 'STOP'),
  ]);
  t.strictSame(acc.usage(), { inputTokens: 8, outputTokens: 6, totalTokens: 14, reasoningTokens: 3, cachedInputTokens: null });
});

t.test('per response: none reported is null; the next response starts clean', async (t) => {
  const acc = createUsageAccumulator();
  const emit = (): void => {};
  t.equal(acc.usage(), null);
  for (const ev of geminiEmptyTextSignature()) acc.push(ev, emit);
  t.equal(acc.usage()?.outputTokens, 61);
  acc.push(raw({ type: 'ping' }), emit);
  t.equal(acc.usage()?.outputTokens, 61, 'raw between responses keeps it');
  acc.push(start('next', 'm'), emit);
  t.equal(acc.usage(), null);
  acc.push(text(0, 'x'), emit);
  acc.push(done('end', 'stop'), emit);
  t.equal(acc.usage(), null);
  t.equal(acc.raw(), null);
});

t.test('usage outside a response is carried into the next one', async (t) => {
  const acc = createUsageAccumulator();
  const emit = (): void => {};
  for (const ev of openaiChatText()) acc.push(ev, emit);
  acc.push(usage({ totalTokens: 500 }), emit);
  t.equal(acc.usage()?.totalTokens, 18, 'not applied to the finished response');
  acc.push(start('next', 'm'), emit);
  t.equal(acc.usage()?.totalTokens, 500);
  acc.push(usage({ totalTokens: 7 }), emit);
  t.equal(acc.usage()?.totalTokens, 7, 'the response\'s own usage replaces it');
});
