/**
 * xAI STT over WebSocket (`/v1/stt`). No capture exists (the workplace's
 * spec, shared/spec/next-wire.md A4): hand-written sessions from vercel/ai's
 * and pipecat's shapes and the live-API behaviour vercel/ai's CHANGELOG
 * records (fixtures/xai-stt/README.md).
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable } from '../helpers/decode.js';
import { countType, ofType, rawPayloads, texts } from '../helpers/events.js';

const DIALECT = 'xai-stt';
const finals = (input: Buffer | string, captures?: 'all'): FinalResult[] =>
  runStage(createOutputStage({ output: 'final', ...(captures === undefined ? {} : { captures }) }), [typeof input === 'string' ? Buffer.from(input) : input]) as FinalResult[];
const partial = (text: string, isFinal: boolean, speechFinal: boolean, start = 0, duration = 1): string =>
  JSON.stringify({ type: 'transcript.partial', text, words: [], is_final: isFinal, speech_final: speechFinal, start, duration });

t.test('revisions: a re-sent final and revised fragments never duplicate text; the empty done keeps it and adds the pending tail', (t) => {
  const bytes = fixture(`${DIALECT}/revisions-empty-done.ws.jsonl`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(ofType(events, 'text_delta').map((e) => e.text), ['Hello world.', " No, I'm not.", ' Thanks']);
  t.ok(ofType(events, 'text_delta').every((e) => e.transcript === true && e.index === 0));
  t.same(
    ofType(events, 'segment').map((s) => [s.text, s.start, s.end]),
    [
      ['Hello world.', 0, 1],
      ["No, I'm not.", 1.2, 2.4],
    ],
    'one segment per speech_final utterance, end = start + duration',
  );
  t.equal(rawPayloads(events, 'transcript.partial').length, 5, 'interim results and is_final fragments: provisional, raw');
  const sends = events.filter((e) => e.type === 'raw' && (e.event as { dir?: string }).dir === 'send');
  t.equal(sends.length, 5, 'four binary audio frames and audio.done, as raw client messages');
  t.same(
    sends.slice(0, 4).map((e) => (e.type === 'raw' ? e.event : null)),
    Array(4).fill({ dir: 'send', data: null, opcode: 2, binary: true, bytes: 3200 }),
    'the audio frames: never decoded as text, 1600 samples of 16 bits each counted',
  );
  t.same(ofType(events, 'usage').map((u) => [u.inputTokens, u.outputTokens, u.durationSeconds]), [[null, null, 3.1]], 'billed by time: seconds, no tokens');
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'end', providerReason: null }]);
  const [f, ...rest] = finals(bytes);
  t.same(rest, [], 'one final per session');
  t.equal(f!.text, "Hello world. No, I'm not. Thanks");
  t.same(f!.segments, [
    { text: 'Hello world.', start: 0, end: 1 },
    { text: "No, I'm not.", start: 1.2, end: 2.4 },
  ]);
  t.same(f!.usage, { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null, durationSeconds: 3.1 });
  t.equal(f!.audio, null);
  t.same(f!.errors, []);
  t.end();
});

t.test('two channels, diarized: one transcript in arrival order, speakers and channels on the segments, each done text authoritative', (t) => {
  const bytes = fixture(`${DIALECT}/multichannel-diarized.ws.jsonl`);
  const events = stable(t, bytes);
  t.ok(ofType(events, 'text_delta').every((e) => e.index === 0));
  t.equal(texts(events), 'Good morning. Morning! How are you? Fine.', "channel 1's done text is longer than its utterances: its rest is one more delta");
  t.same(
    ofType(events, 'segment').map((s) => [s.channel, s.speaker, s.text]),
    [
      [0, '0', 'Good morning.'],
      [1, '1', 'Morning!'],
      [0, '0', 'How are you?'],
    ],
  );
  t.equal(countType(events, 'done'), 1, 'the session ends once every channel had its done');
  t.equal(events.at(-1)?.type, 'done');
  const [f] = finals(bytes);
  t.same(f!.content, [{ type: 'text', text: 'Good morning. Morning! How are you? Fine.' }]);
  t.same(f!.segments?.map((s) => s.speaker), ['0', '1', '0']);
  t.end();
});

t.test('done text: an empty one never erases, a different one is a transcript_mismatch warning', (t) => {
  const created = '{"type":"transcript.created"}';
  const empty = [created, partial('Hi there.', true, true), '{"type":"transcript.done","text":"","duration":1}'].join('\n');
  t.equal(finals(empty)[0]!.text, 'Hi there.');
  const onlyDone = [created, '{"type":"transcript.done","text":"Hi there.","duration":1}'].join('\n');
  t.equal(finals(onlyDone)[0]!.text, 'Hi there.', 'no utterance: the done text is the transcript');
  const differs = [created, partial('Hi there.', true, true), '{"type":"transcript.done","text":"Bye.","duration":1}'].join('\n');
  const [f] = finals(differs);
  t.equal(f!.text, 'Hi there.');
  t.same(f!.errors.map((e) => e.code), ['transcript_mismatch']);
  t.equal(f!.stopReason, 'end');
  const resent = [created, partial('Hi there.', true, false), partial('Hi there.', true, false), partial('Hi there.', true, true), partial('Hi there.', true, true), partial('Hi there.', true, true, 2)].join('\n');
  t.same(
    ofType(decodeEvents(resent), 'text_delta').map((e) => e.text),
    ['Hi there.', ' Hi there.'],
    'provisional re-sends and the same utterance sent twice add nothing; the same words later (another start) are a new utterance',
  );
  t.end();
});

t.test('errors and cut-offs', (t) => {
  const err = finals(['{"type":"transcript.created"}', partial('Hel', false, false), '{"type":"error","message":"Invalid audio encoding."}'].join('\n'));
  t.equal(err.length, 1);
  t.equal(err[0]!.stopReason, 'error');
  t.same(err[0]!.errors, [{ code: 'provider_error', message: 'Invalid audio encoding.' }]);
  const cut = finals(['{"type":"transcript.created"}', partial('Hello.', true, true)].join('\n'));
  t.equal(cut[0]!.text, 'Hello.');
  t.same(cut[0]!.errors.map((e) => e.code), ['incomplete_stream']);
  const odd = decodeEvents(['{"type":"transcript.created"}', '{"type":"transcript.partial","text":5}', '{"type":"transcript.weird"}', '"x"'].join('\n'));
  t.same(
    odd.map((e) => e.type),
    ['start', 'raw', 'raw', 'raw', 'raw', 'error', 'done'],
  );
  t.end();
});
