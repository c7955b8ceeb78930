/**
 * Encoders, checked by reading back what they write: every corpus capture and
 * fixture is read (events and finals), encoded to each target, and the
 * encoded bytes read again. The finals read back must equal the originals
 * except for what the target cannot carry, and each such difference must be
 * named in the loss report.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import { captures, encode, view, wireFinals } from '../helpers/encode.js';
import { targetNames } from '../../lib/encode/registry.js';
import { EXPECTATIONS } from './expect/index.js';

const all = captures();

for (const to of targetNames) {
  const expect = EXPECTATIONS[to];
  // a wire no reader of ours reads (readBack: false) is checked by its own test/encode/sdk-<target>.test.ts
  if (expect.readBack === false) continue;
  t.test(`every capture → ${to} → read back: the same finals, less what the loss report names`, async (t) => {
    let checked = 0;
    for (const c of all) {
      const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
      const { text, losses } = encode(events, to);
      const back = runStage(createOutputStage({ output: 'final', dialect: expect.readAs }), [text]) as FinalResult[];
      const named = new Set(losses.flatMap((r) => r.dropped.map((d) => d.what)));
      const finals = wireFinals(events);
      // warnings after the last response make a final of their own when read; written nowhere, they are reported
      const kept = named.has('error') ? finals.filter((f) => !(f.dialect === null && f.content.length === 0 && f.stopReason === 'error')) : finals;
      t.equal(back.length, kept.length, `${c.name}: one final per response`);
      kept.forEach((f, i) => {
        const got = back[i] === undefined ? undefined : view(back[i]!);
        const want = expect.expected(f);
        if (got !== undefined && named.has('error')) {
          // warnings (sequence_gap, missing_terminal…) have no place on the wire: the report names them
          t.ok(got.errors.every((code) => want.errors.includes(code)), `${c.name} #${i + 1}: no error that was not there`);
          got.errors = want.errors;
        }
        if (got !== undefined) got.errors.sort();
        want.errors.sort();
        t.strictSame(got, want, `${c.name} #${i + 1}`);
        for (const kind of expect.mustReport(f)) t.ok(named.has(kind), `${c.name} #${i + 1}: the loss report names ${kind}`);
      });
      checked++;
    }
    t.ok(checked > 150, `${checked} captures`);
  });
}

t.test('strict: the first event the target cannot carry fails with lossy_encoding; raw events never do', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r1', model: 'm', dialect: 'anthropic-messages' },
    { type: 'raw', event: { type: 'ping' } },
    { type: 'reasoning_delta', index: 0, text: 'hmm' },
    { type: 'text_delta', index: 1, text: 'Hi' },
    { type: 'done', stopReason: 'end', providerReason: 'end_turn' },
  ];
  t.throws(() => runStage(createEncoder({ to: 'openai-chat', strict: true }), events), { code: 'lossy_encoding', message: /openai-chat cannot carry reasoning/ });
  const withUsage: UnifiedEvent[] = [...events];
  withUsage.splice(4, 0, { type: 'usage', inputTokens: 5, outputTokens: 2, totalTokens: 7, reasoningTokens: null, cachedInputTokens: null, raw: null });
  const text = runStage(createEncoder({ to: 'anthropic-messages', strict: true }), withUsage).join('');
  t.match(text, /thinking_delta/);
  t.throws(() => runStage(createEncoder({ to: 'anthropic-messages', strict: true }), events), { code: 'lossy_encoding', message: /cannot carry usage/ });
});

t.test('options: `to` is required and checked', async (t) => {
  t.throws(() => createEncoder({} as never), { code: 'invalid_option', message: /option to: expected the target wire/ });
  t.throws(() => createEncoder({ to: 'openai-chatt' as never }), { code: 'invalid_option', message: /'openai-chat'/ });
});
