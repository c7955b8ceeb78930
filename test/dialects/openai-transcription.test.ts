/**
 * OpenAI speech-to-text over SSE (`/v1/audio/transcriptions`, `stream=true`).
 * No capture exists (the workplace's spec, shared/spec/next-wire.md A4): the fixtures are the
 * API reference's own 32-frame streaming example (verbatim) and hand-written
 * streams in openai-openapi's TranscriptText* shapes (diarized segments and
 * duration usage with CRLF and [DONE]; a done text longer than the deltas').
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectOption, UnifiedEvent } from '../../lib/events.js';
import { createDiagnosis, formatReport } from '../../lib/doctor/index.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable, type Input } from '../helpers/decode.js';
import { countType, ofType, rawPayloads, texts, usageCounts } from '../helpers/events.js';
import { dataSse } from '../helpers/sse.js';

const DIALECT = 'openai-transcription';
const decode = (input: Input, dialect: DialectOption = 'auto'): UnifiedEvent[] => decodeEvents(input, { dialect });
const finals = (input: Buffer | string): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [typeof input === 'string' ? Buffer.from(input) : input]) as FinalResult[];

const SPEC_TEXT = 'I see skies of blue and clouds of white, the bright blessed days, the dark sacred nights, and I think to myself, what a wonderful world.';

t.test("the API reference's 32-frame streaming example: transcript deltas, the done's logprobs as raw, token usage", (t) => {
  const bytes = fixture(`${DIALECT}/spec-stream-logprobs.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(events[0], { type: 'start', id: null, model: null, dialect: DIALECT });
  const deltas = ofType(events, 'text_delta');
  t.equal(deltas.length, 31);
  t.ok(deltas.every((e) => e.index === 0 && e.transcript === true));
  t.equal(texts(events), SPEC_TEXT);
  const done = rawPayloads(events, 'transcript.text.done');
  t.equal(done.length, 1, 'the done payload (with its logprobs) kept as raw');
  t.equal((done[0]!['logprobs'] as unknown[]).length, 31);
  t.same(usageCounts(events), [{ inputTokens: 14, outputTokens: 45, totalTokens: 59, reasoningTokens: null, cachedInputTokens: null }], 'usage without `type` is read as tokens');
  t.same(
    events.slice(-3).map((e) => e.type),
    ['raw', 'usage', 'done'],
  );
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'end', providerReason: null }]);
  t.equal(countType(events, 'error'), 0);
  const [f, ...rest] = finals(bytes);
  t.same(rest, []);
  t.equal(f!.text, SPEC_TEXT);
  t.equal(f!.dialect, DIALECT);
  t.equal(f!.audio, null);
  t.same(f!.errors, []);
  t.equal(f!.stopReason, 'end');
  t.end();
});

t.test('diarized stream with duration usage, CRLF and [DONE]: segment events, the language, seconds and no tokens made up', (t) => {
  const bytes = fixture(`${DIALECT}/diarized-duration-crlf.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  const segments = ofType(events, 'segment');
  t.same(
    segments.map((s) => [s.id, s.speaker, s.start, s.end]),
    [
      ['seg_0', 'A', 0, 2.35],
      ['seg_1', 'B', 2.6, 5.1],
    ],
  );
  t.same(rawPayloads(events, 'transcript.text.segment'), [], 'no segment left raw');
  t.equal(texts(events), segments.map((s) => s.text).join(''), "the deltas' text is the segments' text");
  const usage = ofType(events, 'usage');
  t.equal(usage.length, 1);
  t.same(usageCounts(events), [{ inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null }], 'duration: every token count null');
  t.equal(usage[0]!.durationSeconds, 6, 'the billed seconds as their own field');
  t.same(usage[0]!.raw, { type: 'duration', seconds: 6 }, 'the usage object kept in raw');
  t.same(rawPayloads(events, 'transcript.text.done'), [], 'the done (text, one language, usage) fully read: not raw');
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'end', providerReason: null, language: 'en' }]);
  t.same(events.at(-1), { type: 'raw', event: '[DONE]' });
  t.same(decode(bytes.toString('utf8').replace(/\r\n/g, '\n')), events, 'LF framing: the same events');
  const [f] = finals(bytes);
  t.equal(f!.text, " Hi, thanks for calling. Hello, I'd like to book a table.");
  t.same(f!.usage, { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null, durationSeconds: 6 });
  t.same(f!.segments, [
    { id: 'seg_0', text: segments[0]!.text, start: 0, end: 2.35, speaker: 'A' },
    { id: 'seg_1', text: segments[1]!.text, start: 2.6, end: 5.1, speaker: 'B' },
  ]);
  t.equal(f!.language, 'en');
  t.equal(f!.stopReason, 'end');
  t.end();
});

t.test("done text longer than the deltas': the tail is one more delta, the final text is the done text", (t) => {
  const bytes = fixture(`${DIALECT}/done-text-longer.sse`);
  const events = stable(t, bytes);
  t.same(
    ofType(events, 'text_delta').map((e) => e.text),
    ['Today', ' is', ' a', ' wonderful', ' day to build something people love.'],
  );
  t.equal(countType(events, 'raw'), 0, 'a done with only text and usage is not repeated as raw');
  t.same(usageCounts(events), [{ inputTokens: 22, outputTokens: 13, totalTokens: 35, reasoningTokens: null, cachedInputTokens: null }]);
  const [f] = finals(bytes);
  t.equal(f!.text, 'Today is a wonderful day to build something people love.');
  t.same(f!.errors, []);
  t.end();
});

t.test('no deltas at all: the done text is the one delta', (t) => {
  const events = decode(dataSse({ type: 'transcript.text.done', text: 'Hello there.', usage: { type: 'duration', seconds: 2 } }));
  t.same(
    events.map((e) => e.type),
    ['start', 'text_delta', 'usage', 'done'],
  );
  t.equal(texts(events), 'Hello there.');
  t.end();
});

t.test("deltas that disagree with the done text: a transcript_mismatch warning, the deltas' text kept", (t) => {
  const input = dataSse(
    { type: 'transcript.text.delta', delta: 'Hello' },
    { type: 'transcript.text.delta', delta: ' wrld' },
    { type: 'transcript.text.done', text: 'Hello world', usage: { type: 'tokens', input_tokens: 5, output_tokens: 2, total_tokens: 7 } },
  );
  const events = stable(t, Buffer.from(input));
  const errors = ofType(events, 'error');
  t.equal(errors.length, 1);
  t.match(errors[0], { code: 'transcript_mismatch', terminal: false });
  t.same(errors[0]!.raw, { type: 'transcript.text.done', text: 'Hello world', usage: { type: 'tokens', input_tokens: 5, output_tokens: 2, total_tokens: 7 } }, 'the done text in the raw');
  t.same(ofType(events, 'done').map((e) => e.stopReason), ['end'], 'a warning: the response still ends normally');
  const [f] = finals(input);
  t.equal(f!.text, 'Hello wrld');
  t.same(f!.errors.map((e) => e.code), ['transcript_mismatch']);
  t.equal(f!.stopReason, 'end');
  t.end();
});

t.test('an error event ends the response with stopReason error', (t) => {
  const events = decode(dataSse({ type: 'transcript.text.delta', delta: 'Hi' }, { type: 'error', error: { type: 'invalid_request_error', message: 'Audio file is too short' } }));
  t.match(ofType(events, 'error'), [{ code: 'invalid_request_error', message: 'Audio file is too short', terminal: true }]);
  t.same(ofType(events, 'done').map((e) => e.stopReason), ['error']);
  t.end();
});

t.test('cut off before transcript.text.done: incomplete_stream, the text so far in the final', (t) => {
  const input = dataSse({ type: 'transcript.text.delta', delta: 'Hel' }, { type: 'transcript.text.delta', delta: 'lo' }, '[DONE]');
  const events = decode(input);
  t.match(ofType(events, 'error'), [{ code: 'incomplete_stream', terminal: true }]);
  const [f] = finals(input);
  t.equal(f!.text, 'Hello');
  t.equal(f!.stopReason, 'error');
  t.end();
});

t.test('bad input never throws: odd payloads become raw', (t) => {
  const input = dataSse(
    { type: 'transcript.text.delta', delta: 'A' },
    { type: 'transcript.text.delta', delta: 7 },
    { type: 'transcript.text.delta', delta: '' },
    { type: 'transcript.text.future', x: 1 },
    [1],
    '"str"',
    { type: 'transcript.text.done', text: 42, usage: 'none' },
  );
  const events = decode(input);
  t.same(
    events.map((e) => e.type),
    ['start', 'text_delta', 'raw', 'raw', 'raw', 'raw', 'raw', 'done'],
  );
  t.same(decode(input, DIALECT), events, 'forced: the same events');
  t.end();
});

t.test("detection: only the transcript.text. prefix (xAI STT's transcript.partial / transcript.done are not this dialect)", (t) => {
  t.equal(detectedDialect(dataSse({ type: 'transcript.text.delta', delta: 'x' })), DIALECT);
  t.equal(detectedDialect(dataSse({ type: 'transcript.text.segment', id: 's', start: 0, end: 1, speaker: 'A', text: 'x' })), DIALECT);
  t.not(detectedDialect(dataSse({ type: 'transcript.partial', text: 'Hello world.', is_final: true, speech_final: true, start: 0, duration: 1 })), DIALECT);
  t.not(detectedDialect(dataSse({ type: 'transcript.done', text: '', duration: 1 })), DIALECT);
  t.end();
});

t.test('two transcriptions in one log: one final each', (t) => {
  const one = dataSse({ type: 'transcript.text.delta', delta: 'Hi.' }, { type: 'transcript.text.done', text: 'Hi.' }, '[DONE]');
  const fs = finals(one + one);
  t.same(
    fs.map((f) => [f.dialect, f.text, f.stopReason]),
    [
      [DIALECT, 'Hi.', 'end'],
      [DIALECT, 'Hi.', 'end'],
    ],
  );
  t.end();
});

t.test('doctor: every fixture is ok; a duration-billed usage is reported without token counts', (t) => {
  for (const name of ['spec-stream-logprobs.sse', 'diarized-duration-crlf.sse', 'done-text-longer.sse']) {
    const d = createDiagnosis({ name });
    d.push(fixture(`${DIALECT}/${name}`));
    const text = formatReport(d.end());
    t.match(text, /dialect openai-transcription, 1 response/, name);
    t.match(text, /result: ok/, name);
    if (name.startsWith('diarized')) t.match(text, /usage: no token counts/, name);
  }
  t.end();
});
