/**
 * xAI TTS over WebSocket (`/v1/tts`). No capture exists (the workplace's
 * spec, shared/spec/next-wire.md A4): hand-written sessions from pipecat's
 * and docs.x.ai's shapes (fixtures/xai-tts/README.md).
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable } from '../helpers/decode.js';
import { countType, ofType, rawPayloads } from '../helpers/events.js';

const DIALECT = 'xai-tts';
const finals = (input: Buffer | string): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [typeof input === 'string' ? Buffer.from(input) : input]) as FinalResult[];
const decoded = (events: UnifiedEvent[]): number => ofType(events, 'audio_delta').reduce((n, e) => n + Buffer.from(e.data, 'base64').length, 0);
const NO_USAGE = { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };

t.test('pcm: one response per utterance on one connection, audio counted, no usage (null, not 0)', (t) => {
  const bytes = fixture(`${DIALECT}/pcm-two-utterances.ws.jsonl`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.equal(countType(events, 'start'), 2);
  t.same(ofType(events, 'done'), [
    { type: 'done', stopReason: 'end', providerReason: null },
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  t.same(rawPayloads(events, 'audio.done').map((p) => p['trace_id']), ['trace-0001', 'trace-0002'], 'trace ids kept as raw');
  t.equal(events.filter((e) => e.type === 'raw' && (e.event as { dir?: string }).dir === 'send').length, 5, "the client's text.delta / text.done as raw");
  t.ok(ofType(events, 'audio_delta').every((e) => e.mimeType === null && e.index === 0), 'raw PCM has no signature: no MIME type guessed');
  t.equal(countType(events, 'usage'), 0);
  const fs = finals(bytes);
  t.equal(fs.length, 2);
  // 480 + 480 + 240 samples, then 720, of 16 bits
  t.same(
    fs.map((f) => f.audio),
    [
      { mimeType: null, bytes: 2400 },
      { mimeType: null, bytes: 1440 },
    ],
  );
  t.equal(fs[0]!.audio!.bytes + fs[1]!.audio!.bytes, decoded(events), 'the byte counts are those of the decoded base64');
  t.same(fs[0]!.usage, NO_USAGE);
  t.ok(fs.every((f) => f.stopReason === 'end' && f.errors.length === 0 && f.dialect === DIALECT));
  t.end();
});

t.test('mp3 with timestamps, then an error: audio/mpeg sniffed, timings as raw without the audio, the failed utterance a final of its own', (t) => {
  const bytes = fixture(`${DIALECT}/mp3-timestamps-error.ws.jsonl`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  const audio = ofType(events, 'audio_delta');
  t.equal(audio.length, 2);
  t.ok(audio.every((e) => e.mimeType === 'audio/mpeg'), 'the first bytes (ID3) name the type of every delta');
  const timings = rawPayloads(events, 'audio.delta');
  t.equal(timings.length, 2, 'a delta with timings, and the audio-less one');
  t.ok(timings.every((p) => !('delta' in p) || p['delta'] === ''), 'the base64 is not repeated in raw');
  t.same(timings.map((p) => (p['audio_timestamps'] as { graph_chars: string[] }).graph_chars.join('')), ['Hi ', 'Bo.']);
  const [ok, failed, ...rest] = finals(bytes);
  t.same(rest, []);
  t.same(ok!.audio, { mimeType: 'audio/mpeg', bytes: decoded(events) });
  t.equal(ok!.audio!.bytes, 64 + 64);
  t.equal(ok!.stopReason, 'end');
  t.equal(failed!.stopReason, 'error');
  t.equal(failed!.audio, null);
  t.same(failed!.errors, [{ code: 'provider_error', message: 'Text exceeds the maximum length for a single utterance.' }]);
  t.same(failed!.usage, NO_USAGE);
  t.end();
});

t.test('cut off mid-utterance: incomplete_stream, the audio so far; odd payloads stay raw', (t) => {
  const cut = ['{"type":"audio.delta","delta":"AAAA"}', '{"type":"audio.delta","delta":"AAAA"}'].join('\n');
  const [f] = finals(cut);
  t.equal(f!.stopReason, 'error');
  t.same(f!.errors.map((e) => e.code), ['incomplete_stream']);
  t.same(f!.audio, { mimeType: null, bytes: 6 });
  const odd = decodeEvents(['{"type":"audio.delta","delta":"AAAA"}', '{"type":"audio.clear"}', '{"type":"audio.delta","delta":7}', '[1]', '{"type":"audio.done"}'].join('\n'));
  t.same(
    odd.map((e) => e.type),
    ['start', 'audio_delta', 'raw', 'raw', 'raw', 'done'],
  );
  t.same(decodeEvents('{"type":"audio.done","trace_id":"t"}', { dialect: 'xai-tts' }).map((e) => e.type), ['start', 'raw', 'done'], 'an utterance with no audio still ends');
  t.end();
});
