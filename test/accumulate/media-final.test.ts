/**
 * The final's media fields (issue 29): inputTranscript (carried into the next
 * response when it comes first), segments, language, notices, the audio's
 * sampleRate, usage durationSeconds; each absent when no event brought it.
 */
import t from 'tap';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { runStage } from '../../lib/stage.js';

const start: UnifiedEvent = { type: 'start', id: 'r', model: null };
const done: UnifiedEvent = { type: 'done', stopReason: 'end', providerReason: null };
const fin = (events: UnifiedEvent[], options = {}): FinalResult[] => runStage(createFinalAccumulator(options), events);

t.test('a plain response has none of the media fields', (t) => {
  const [f] = fin([start, { type: 'text_delta', index: 0, text: 'hi' }, done]);
  for (const k of ['inputTranscript', 'segments', 'language', 'notices']) t.notOk(k in f!, k);
  t.equal(f!.audio, null);
  t.notOk('durationSeconds' in f!.usage);
  t.end();
});

t.test('input transcripts: inside the response and carried in from before it; never in text', (t) => {
  const [a, b] = fin([
    { type: 'input_transcript', text: 'Bon', language: 'fr' },
    { type: 'input_transcript', text: 'jour' },
    start,
    { type: 'text_delta', index: 0, text: 'Hello', transcript: true },
    { type: 'input_transcript', text: ' à tous' },
    done,
    start,
    done,
  ]);
  t.equal(a!.inputTranscript, 'Bonjour à tous');
  t.equal(a!.text, 'Hello');
  t.notOk('inputTranscript' in b!, 'the next response starts without it');
  t.same(fin([{ type: 'input_transcript', text: 'lonely' }]), [], 'with no response after it: no final (as a usage alone)');
  t.end();
});

t.test('segments, language, notices, sampleRate, durationSeconds', (t) => {
  const [f] = fin([
    start,
    { type: 'audio_delta', index: 0, mimeType: 'audio/L16;codec=pcm;rate=16000', data: 'AAECAw==' },
    { type: 'segment', id: 's0', text: 'Hi.', start: 0, end: 0.5, speaker: 'A' },
    { type: 'segment', text: 'Yes.', channel: 1 },
    { type: 'notice', code: 'filtered_prompt', message: 'no artists', raw: {} },
    { type: 'usage', inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null, durationSeconds: 2.5, raw: {} },
    { ...done, language: 'en' },
  ]);
  t.same(f!.segments, [
    { id: 's0', text: 'Hi.', start: 0, end: 0.5, speaker: 'A' },
    { text: 'Yes.', channel: 1 },
  ]);
  t.equal(f!.language, 'en');
  t.same(f!.notices, [{ code: 'filtered_prompt', message: 'no artists' }]);
  t.same(f!.audio, { mimeType: 'audio/L16;codec=pcm;rate=16000', sampleRate: 16000, bytes: 4 });
  t.same(f!.usage, { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null, durationSeconds: 2.5 });
  const [plain] = fin([start, { type: 'audio_delta', index: 0, mimeType: 'audio/pcm', data: 'AAAA' }, done]);
  t.same(plain!.audio, { mimeType: 'audio/pcm', bytes: 3 }, 'no rate= in the MIME type: no sampleRate');
  t.end();
});

t.test('the input transcript counts against maxTextBytes', (t) => {
  const events: UnifiedEvent[] = [start, { type: 'input_transcript', text: 'x'.repeat(40) }, { type: 'input_transcript', text: 'é'.repeat(40) }, done];
  t.throws(() => fin(events, { maxTextBytes: 100 }), { name: 'LimitExceededError' });
  t.equal(fin(events, { maxTextBytes: 120 })[0]!.inputTranscript?.length, 80);
  t.end();
});
