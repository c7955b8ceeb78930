/**
 * OpenAI text-to-speech over SSE (`/v1/audio/speech`, `stream_format: "sse"`).
 * No capture exists (the workplace's spec, shared/spec/next-wire.md A4): the fixtures are
 * hand-written from openai-openapi's SpeechAudioDeltaEvent /
 * SpeechAudioDoneEvent, one with CRLF and `[DONE]` as live probes report it.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectOption, UnifiedEvent } from '../../lib/events.js';
import { sniffAudioMimeType } from '../../lib/dialects/openai-speech.js';
import { createDiagnosis, formatReport } from '../../lib/doctor/index.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable, type Input } from '../helpers/decode.js';
import { countType, ofType } from '../helpers/events.js';
import { dataSse } from '../helpers/sse.js';

const DIALECT = 'openai-speech';
const decode = (input: Input, dialect: DialectOption = 'auto'): UnifiedEvent[] => decodeEvents(input, { dialect });
const finals = (input: Buffer | string): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [typeof input === 'string' ? Buffer.from(input) : input]) as FinalResult[];

/** The decoded byte count of the audio deltas, by decoding their base64. */
const decodedBytes = (events: UnifiedEvent[]): number => ofType(events, 'audio_delta').reduce((n, e) => n + Buffer.from(e.data, 'base64').length, 0);

t.test('mp3 stream with CRLF and [DONE]: exact events, every chunking, final audio bytes = the decoded base64', (t) => {
  const bytes = fixture(`${DIALECT}/mp3-crlf-done.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(
    events.map((e) => e.type),
    ['start', 'audio_delta', 'audio_delta', 'audio_delta', 'audio_delta', 'usage', 'done', 'raw'],
  );
  t.same(events[0], { type: 'start', id: null, model: null, dialect: DIALECT });
  t.ok(
    ofType(events, 'audio_delta').every((e) => e.index === 0 && e.mimeType === 'audio/mpeg'),
    'every delta: index 0, the MIME type sniffed from the MPEG frame header',
  );
  t.same(ofType(events, 'usage')[0], {
    type: 'usage',
    inputTokens: 14,
    outputTokens: 101,
    totalTokens: 115,
    reasoningTokens: null,
    cachedInputTokens: null,
    raw: { input_tokens: 14, output_tokens: 101, total_tokens: 115 },
  });
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'end', providerReason: null }]);
  t.same(events.at(-1), { type: 'raw', event: '[DONE]' }, '[DONE] after the terminal event: raw, the response is closed');
  t.equal(decodedBytes(events), 153);
  const [f, ...rest] = finals(bytes);
  t.same(rest, []);
  t.same(f!.audio, { mimeType: 'audio/mpeg', bytes: decodedBytes(events) });
  t.equal(f!.stopReason, 'end');
  t.same(f!.errors, []);
  t.equal(f!.text, '');
  t.same(f!.usage, { inputTokens: 14, outputTokens: 101, totalTokens: 115, reasoningTokens: null, cachedInputTokens: null });
  t.end();
});

t.test('pcm stream without [DONE]: no MIME type (raw PCM has no signature), bytes counted', (t) => {
  const bytes = fixture(`${DIALECT}/pcm-no-done.sse`);
  const events = stable(t, bytes);
  t.ok(ofType(events, 'audio_delta').every((e) => e.mimeType === null));
  t.equal(countType(events, 'error'), 0);
  t.equal(decodedBytes(events), 160);
  const [f] = finals(bytes);
  t.same(f!.audio, { mimeType: null, bytes: 160 });
  t.equal(f!.stopReason, 'end');
  t.end();
});

t.test('CRLF and LF framings give the same events', (t) => {
  const lf = fixture(`${DIALECT}/mp3-crlf-done.sse`).toString('utf8').replace(/\r\n/g, '\n');
  t.same(decode(lf), decode(fixture(`${DIALECT}/mp3-crlf-done.sse`)));
  t.end();
});

t.test("the spec's verbatim example (placeholder audio) is read and detected", (t) => {
  const spec =
    'data: {"type":"speech.audio.delta","audio":"base64-encoded-audio-data"}\n\n' +
    'data: {"type":"speech.audio.done","usage":{"input_tokens":14,"output_tokens":101,"total_tokens":115}}\n\n';
  t.equal(detectedDialect(spec), DIALECT);
  const events = decode(spec);
  t.same(
    events.map((e) => e.type),
    ['start', 'audio_delta', 'usage', 'done'],
  );
  t.equal(ofType(events, 'audio_delta')[0]!.data, 'base64-encoded-audio-data');
  t.end();
});

t.test('MIME type sniffing', (t) => {
  const b64 = (bytes: number[] | string): string => Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes)).toString('base64');
  t.equal(sniffAudioMimeType(b64('ID3\x04\x00\x00\x00\x00\x00\x00')), 'audio/mpeg');
  t.equal(sniffAudioMimeType(b64([0xff, 0xfb, 0x90, 0x64])), 'audio/mpeg');
  t.equal(sniffAudioMimeType(b64([0xff, 0xf3, 0x64, 0xc4])), 'audio/mpeg');
  t.equal(sniffAudioMimeType(b64([0xff, 0xf1, 0x50, 0x80])), 'audio/aac');
  t.equal(sniffAudioMimeType(b64('RIFF\x24\x08\x00\x00WAVEfmt ')), 'audio/wav');
  t.equal(sniffAudioMimeType(b64('OggS\x00\x02\x00\x00')), 'audio/ogg');
  t.equal(sniffAudioMimeType(b64('fLaC\x00\x00\x00\x22')), 'audio/flac');
  t.equal(sniffAudioMimeType(b64([0x00, 0x01, 0xfe, 0xff, 0x10, 0x20])), null, 'PCM samples');
  t.equal(sniffAudioMimeType(''), null);
  t.equal(sniffAudioMimeType('not base64 at all!'), null);
  t.end();
});

t.test('the first delta with data decides the MIME type for the response', (t) => {
  const mp3 = Buffer.from([0xff, 0xf3, 0x64, 0xc4, 1, 2]).toString('base64');
  const events = decode(
    dataSse(
      { type: 'speech.audio.delta', audio: '' },
      { type: 'speech.audio.delta', audio: mp3 },
      { type: 'speech.audio.delta', audio: 'AAAA' },
      { type: 'speech.audio.done', usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } },
    ),
  );
  t.same(
    ofType(events, 'audio_delta').map((e) => e.mimeType),
    [null, 'audio/mpeg', 'audio/mpeg'],
  );
  t.end();
});

t.test('an error event ends the response with stopReason error', (t) => {
  const events = decode(
    dataSse({ type: 'speech.audio.delta', audio: 'AAAA' }, { type: 'error', error: { code: 'server_error', message: 'The server had an error' } }),
  );
  const err = ofType(events, 'error');
  t.equal(err.length, 1);
  t.match(err[0], { code: 'server_error', message: 'The server had an error', terminal: true });
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'error', providerReason: null }]);
  t.end();
});

t.test('cut off before speech.audio.done (or [DONE] instead of it): incomplete_stream, the audio still counted', (t) => {
  for (const tail of ['', 'data: [DONE]\n\n']) {
    const input = dataSse({ type: 'speech.audio.delta', audio: 'AAAAAA==' }) + tail;
    const events = decode(input);
    t.match(ofType(events, 'error'), [{ code: 'incomplete_stream', terminal: true }]);
    t.same(ofType(events, 'done').map((e) => e.stopReason), ['error']);
    const [f] = finals(input);
    t.same(f!.audio, { mimeType: null, bytes: 4 });
    t.equal(f!.stopReason, 'error');
  }
  t.end();
});

t.test('bad input never throws: odd payloads become raw', (t) => {
  const input = dataSse(
    { type: 'speech.audio.delta', audio: 'AAAA' },
    { type: 'speech.audio.delta', audio: 42 },
    { type: 'speech.audio.delta' },
    { type: 'speech.audio.something_new', x: 1 },
    [1, 2],
    'null',
    { type: 'speech.audio.done', usage: 'none' },
  );
  const events = decode(input);
  t.same(
    events.map((e) => e.type),
    ['start', 'audio_delta', 'raw', 'raw', 'raw', 'raw', 'raw', 'raw', 'done'],
  );
  t.equal(countType(events, 'usage'), 0, 'no usage object: no usage event (the done payload as raw)');
  t.same(decode(input, DIALECT), events, 'forced: the same events');
  t.end();
});

t.test('usage without total_tokens: the sum', (t) => {
  const events = decode(dataSse({ type: 'speech.audio.delta', audio: 'AAAA' }, { type: 'speech.audio.done', usage: { input_tokens: 3, output_tokens: 4 } }));
  t.equal(ofType(events, 'usage')[0]!.totalTokens, 7);
  t.end();
});

t.test('two responses in one log: one final each', (t) => {
  const one = dataSse({ type: 'speech.audio.delta', audio: 'AAAA' }, { type: 'speech.audio.done', usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } }, '[DONE]');
  const fs = finals(one + one);
  t.equal(fs.length, 2);
  t.ok(fs.every((f) => f.audio?.bytes === 3 && f.stopReason === 'end' && f.dialect === DIALECT));
  t.end();
});

t.test('doctor: both fixtures are ok (no [DONE] is not a missing terminal here)', (t) => {
  for (const name of ['mp3-crlf-done.sse', 'pcm-no-done.sse']) {
    const d = createDiagnosis({ name });
    d.push(fixture(`${DIALECT}/${name}`));
    const text = formatReport(d.end());
    t.match(text, /dialect openai-speech, 1 response/, name);
    t.match(text, /result: ok/, name);
  }
  t.end();
});
