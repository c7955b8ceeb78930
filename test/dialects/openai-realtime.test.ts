import t, { type Test } from 'tap';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';
import { createMessageDecoder } from '../../lib/dialects/capture.js';
import { chain, runStage } from '../../lib/stage.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents as run, detectedDialect, stable } from '../helpers/decode.js';
import { briefs, countType as count, rawLabel, texts } from '../helpers/events.js';

type Ev = UnifiedEvent;

/** Raw payloads are named by their `type`. */
const label = (e: Json): string => rawLabel(e, 'type');
const brief = briefs('type');

const isSend = (e: Ev): boolean => e.type === 'raw' && label(e.event) === 'send';

const start = (id: string | null, model: string | null = 'gpt-realtime') => ({ type: 'start', id, model, dialect: 'openai-realtime' });
const td = (text: string, index = 0) => ({ type: 'text_delta', index, contentIndex: 0, text });
const tr = (text: string) => ({ type: 'text_delta', index: 0, contentIndex: 0, text, transcript: true });
const usage = (inputTokens: number, outputTokens: number, cachedInputTokens: number | null = 0) => ({
  type: 'usage',
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  reasoningTokens: null,
  cachedInputTokens,
});
const done = (stopReason: string, providerReason: string | null = 'completed') => ({ type: 'done', stopReason, providerReason });

const A1 = 'AAABAAIAAwAEAAUABgAHAAgACQAKAAsADAANAA4ADwA=';
const A2 = 'EAARABIAEwAUABUAFgAXABgAGQAaABsAHAAdAB4AHwA=';
const A3 = 'IAAhACIAIwAkACUAJgAnACgAKQAqACsALAAtAC4ALwA=';

const expected: Record<string, Json[]> = {
  'text-turn': [
    'raw:session.created',
    'raw:session.updated',
    'raw:conversation.item.added',
    start('resp_T1'),
    'raw:response.output_item.added',
    'raw:response.content_part.added',
    td('Hi'),
    'raw:response.output_text.delta', // empty delta: no text_delta, but nothing dropped
    td(' there — ünïcödé ✓'),
    'raw:response.output_text.done',
    'raw:response.content_part.done',
    'raw:response.output_item.done',
    usage(100, 7, 64),
    done('end'),
    // between responses: raw, no response opened, nothing reported missing at the end
    'raw:rate_limits.updated',
    'raw:input_audio_buffer.speech_started',
  ],
  'audio-transcript': [
    'raw:session.created',
    'raw:input_audio_buffer.speech_started',
    'raw:input_audio_buffer.speech_stopped',
    'raw:input_audio_buffer.committed',
    start('resp_A2'),
    // the user's speech: its first delta without the ASR's leading space
    { type: 'input_transcript', text: 'Hello' },
    'raw:response.output_item.added',
    'raw:response.content_part.added',
    tr('Hello'),
    // the session's output format (response.created names none here)
    { type: 'audio_delta', index: 0, mimeType: 'audio/pcmu', data: A1 },
    tr(' to you.'),
    { type: 'audio_delta', index: 0, mimeType: 'audio/pcmu', data: A2 },
    // the completed transcript ("Hello") is what the delta said: only its usage is left, as raw
    'raw:conversation.item.input_audio_transcription.completed',
    'raw:response.output_audio.done',
    'raw:response.output_audio_transcript.done',
    'raw:response.output_item.done',
    { type: 'usage', inputTokens: 30, outputTokens: 60, totalTokens: 90, reasoningTokens: null, cachedInputTokens: 0 },
    done('end'),
    'raw:output_audio_buffer.stopped',
  ],
  // hand-written (input-transcription.md): the user's speech, transcribed alongside the responses
  'input-transcription': [
    'raw:session.created',
    'raw:input_audio_buffer.committed',
    { type: 'input_transcript', text: "What's" }, // before any response: carried into the next final
    start('resp_T1'),
    { type: 'input_transcript', text: ' the' },
    td('Noon.'),
    'raw:conversation.item.input_audio_transcription.completed', // its usage (the ASR's), without the transcript
    { type: 'input_transcript', text: ' time?' }, // the deltas stopped short: the completed transcript's rest
    { type: 'usage', inputTokens: 20, outputTokens: 10, totalTokens: 30, reasoningTokens: null, cachedInputTokens: null },
    done('end'),
    { type: 'input_transcript', text: 'Thanks.' }, // completed with no deltas: all of it
    { type: 'error', code: 'audio_unintelligible', message: 'Audio is unintelligible.', terminal: false },
    'raw:conversation.item.input_audio_transcription.segment',
    { type: 'input_transcript', text: 'Bye now.' },
    {
      type: 'error',
      code: 'transcript_mismatch',
      message:
        "input_audio_transcription.completed's transcript (12 characters) differs from its deltas' (8 characters): the input transcript keeps the deltas' text, the completed one is in this error's raw",
      terminal: false,
    },
    start('resp_T2'),
    td('Bye!'),
    { type: 'usage', inputTokens: 10, outputTokens: 4, totalTokens: 14, reasoningTokens: null, cachedInputTokens: null },
    done('end'),
  ],
  'tool-call': [
    'raw:session.created',
    start('resp_C1'),
    { type: 'tool_call_start', index: 0, id: 'call_L1', name: 'lookup' },
    { type: 'tool_call_delta', index: 0, id: 'call_L1', argumentsDelta: '{"q":' },
    { type: 'tool_call_delta', index: 0, id: 'call_L1', argumentsDelta: '"tea","n":2}' },
    { type: 'tool_call_done', index: 0, id: 'call_L1', name: 'lookup', arguments: '{"q":"tea","n":2}' },
    'raw:response.output_item.done', // snapshot of a call already closed
    // arguments.done with no output_item.added nor delta: started there, one delta holding it all
    { type: 'tool_call_start', index: 1, id: 'call_L2', name: 'ping_host' },
    { type: 'tool_call_delta', index: 1, id: 'call_L2', argumentsDelta: '{}' },
    { type: 'tool_call_done', index: 1, id: 'call_L2', name: 'ping_host', arguments: '{}' },
    // only an output_item.done, with empty arguments: no delta, arguments ''
    { type: 'tool_call_start', index: 2, id: 'call_L3', name: 'no_args' },
    { type: 'tool_call_done', index: 2, id: 'call_L3', name: 'no_args', arguments: '' },
    usage(80, 20),
    done('tool_use'),
    'raw:conversation.item.added',
    start('resp_C2'),
    td('Green and black.'),
    usage(110, 5),
    done('end'),
  ],
  'stop-reasons': [
    'raw:session.created',
    start('resp_X1'),
    tr('Let me tell you'),
    'raw:input_audio_buffer.speech_started',
    usage(40, 6),
    done('other', 'turn_detected'),
    start('resp_X2'),
    td('A very long'),
    usage(40, 16),
    done('max_tokens', 'max_output_tokens'),
    start('resp_X3'),
    { type: 'error', code: 'internal_error', message: 'The server had an error while processing your request.', terminal: true },
    done('error', 'failed'),
  ],
  error: [
    'raw:session.created',
    // Realtime errors concern a client event: never terminal, and outside a response they open none
    { type: 'error', code: 'invalid_value', message: "Invalid value: 'pcm8'. Supported values are: 'audio/pcm'.", terminal: false },
    start('resp_E1'),
    td('Still'),
    {
      type: 'error',
      code: 'conversation_already_has_active_response',
      message: 'Conversation already has an active response in progress.',
      terminal: false,
    },
    td(' going.'),
    usage(20, 3),
    done('end'),
  ],
  'beta-names': [
    'raw:session.created',
    'raw:conversation.created',
    start('resp_B1', 'gpt-4o-realtime-preview'),
    tr('Olá'),
    { type: 'audio_delta', index: 0, mimeType: 'audio/pcma', data: A3 },
    td('(text)', 1),
    usage(20, 30),
    done('end'),
  ],
};

for (const [name, want] of Object.entries(expected)) {
  t.test(`fixture openai-realtime/${name}.jsonl`, (tt) => {
    const bytes = fixture(`openai-realtime/${name}.jsonl`);
    tt.equal(detectedDialect(bytes), 'openai-realtime');
    tt.same(stable(tt, bytes).map(brief), want);
    tt.end();
  });
}

t.test('raw and error events carry the provider objects', (tt) => {
  const evs = run(fixture('openai-realtime/error.jsonl'));
  tt.match(evs[1], { type: 'error', raw: { type: 'error', event_id: 'event_82', error: { param: 'session.audio.output.format' } } });
  tt.match(evs[0], { type: 'raw', event: { type: 'session.created', session: { max_output_tokens: 'inf' } } });
  const u = run(fixture('openai-realtime/text-turn.jsonl')).find((e) => e.type === 'usage');
  tt.match(u, { raw: { input_token_details: { cached_tokens: 64 } } });
  tt.end();
});

t.test('the same messages as NDJSON, capture records, a HAR export and whole messages give the same events', (tt) => {
  for (const name of Object.keys(expected)) {
    const bytes = fixture(`openai-realtime/${name}.jsonl`);
    const want = run(bytes);
    const lines = bytes.toString('utf8').split('\n').filter((l) => l !== '');
    const capture = lines.map((l) => JSON.stringify({ dir: 'recv', data: l })).join('\n');
    tt.same(stable(tt, Buffer.from(capture), {}, { quick: true }), want, `${name}: capture records`);
    const pretty = lines.map((l) => JSON.stringify(JSON.parse(l), null, 2)).join('\n');
    tt.same(stable(tt, Buffer.from(pretty), {}, { quick: true }), want, `${name}: pretty-printed`);
    const har = { log: { entries: [{ _webSocketMessages: lines.map((data, i) => ({ type: 'receive', time: i, opcode: 1, data })) }] } };
    tt.same(run(JSON.stringify(har)), want, `${name}: HAR`);
    // messages from a WebSocket client, as strings, Buffers and parsed objects
    const msgs = lines.map((l, i) => (i % 3 === 0 ? l : i % 3 === 1 ? Buffer.from(l) : (JSON.parse(l) as Json)));
    tt.same(runStage(chain(createMessageDecoder(), createNormalizer()), msgs), want, `${name}: message decoder`);
  }
  tt.end();
});

t.test('HAR with two connections: the cut-off response is closed when the next session begins', (tt) => {
  const evs = run(fixture('har/openai-realtime.har'));
  tt.same(evs.slice(0, 14).map(brief), [
    'raw:session.created',
    'raw:session.updated',
    'raw:conversation.item.added',
    start('resp_T1'),
    'raw:response.output_item.added',
    'raw:response.content_part.added',
    td('Hi'),
    'raw:response.output_text.delta',
    'raw:send', // first message of the second connection
    { type: 'error', code: 'incomplete_stream', message: "a new session began before the response's response.done", terminal: true },
    done('error', null),
    'raw:session.created',
    start('resp_C1'),
    { type: 'tool_call_start', index: 0, id: 'call_L1', name: 'lookup' },
  ]);
  tt.same(evs.slice(14), run(fixture('openai-realtime/tool-call.jsonl')).slice(3));
  tt.match(evs[8], { type: 'raw', event: { dir: 'send', data: '{"type": "response.create"}', opcode: 1 } });
  tt.end();
});

t.test('events of another response never mix into the open one', (tt) => {
  const lines = [
    { type: 'response.created', event_id: 'event_1', response: { object: 'realtime.response', id: 'resp_A', status: 'in_progress' } },
    // an out-of-band response overlapping it
    { type: 'response.created', event_id: 'event_2', response: { object: 'realtime.response', id: 'resp_OOB', status: 'in_progress' } },
    { type: 'response.output_text.delta', event_id: 'event_3', response_id: 'resp_OOB', output_index: 0, content_index: 0, delta: 'side' },
    { type: 'response.output_text.delta', event_id: 'event_4', response_id: 'resp_A', output_index: 0, content_index: 0, delta: 'main' },
    { type: 'response.done', event_id: 'event_5', response: { object: 'realtime.response', id: 'resp_A', status: 'completed' } },
    // a late event of the closed response opens nothing
    { type: 'response.output_audio.done', event_id: 'event_6', response_id: 'resp_A', output_index: 0, content_index: 0 },
    // the rest of the out-of-band response, whose response.created was taken as raw: it opens there
    { type: 'response.output_text.delta', event_id: 'event_7', response_id: 'resp_OOB', output_index: 0, content_index: 0, delta: ' story' },
    { type: 'response.done', event_id: 'event_8', response: { object: 'realtime.response', id: 'resp_OOB', status: 'completed' } },
  ];
  const evs = run(lines.map((l) => JSON.stringify(l)).join('\n'));
  tt.same(evs.map(brief), [
    start('resp_A', null),
    'raw:response.created',
    'raw:response.output_text.delta',
    td('main'),
    done('end'),
    'raw:response.output_audio.done',
    start('resp_OOB', null),
    td(' story'),
    done('end'),
  ]);
  tt.end();
});

t.test('input that ends inside a response is reported by the normalizer', (tt) => {
  const evs = run(
    [
      '{"type":"response.created","event_id":"event_1","response":{"object":"realtime.response","id":"resp_Z","status":"in_progress"}}',
      '{"type":"response.function_call_arguments.delta","event_id":"event_2","response_id":"resp_Z","item_id":"item_1","output_index":0,"call_id":"call_9","delta":"{\\"a\\":"}',
    ].join('\n'),
  );
  tt.same(evs.map(brief), [
    start('resp_Z', null),
    // a delta before any output_item.added starts the call from its own call_id
    { type: 'tool_call_start', index: 0, id: 'call_9', name: '' },
    { type: 'tool_call_delta', index: 0, id: 'call_9', argumentsDelta: '{"a":' },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    done('error', null),
  ]);
  tt.end();
});

interface CorpusCheck {
  responses: number;
  check: (tt: Test, evs: Ev[]) => void;
}

const corpusChecks: Record<string, CorpusCheck> = {
  'pydantic-ai--audio-in-server-vad.ws.jsonl': {
    responses: 1,
    check(tt, evs) {
      tt.equal(texts(evs, (e) => e.transcript === true), 'Hello, Marcelo! Great to meet you. How can I help you today?');
      tt.equal(count(evs, 'audio_delta'), 27);
      tt.match(evs.find((e) => e.type === 'audio_delta'), { mimeType: 'audio/pcm;rate=24000', index: 0 });
      // the user's speech: 7 deltas, the completed transcript agreeing (its usage raw, no more text)
      tt.equal(count(evs, 'input_transcript'), 7);
      tt.equal(evs.filter((e) => e.type === 'input_transcript').map((e) => e.text).join(''), 'Hello, my name is Marcelo.');
      const left = evs.filter((e) => e.type === 'raw' && label(e.event).startsWith('conversation.item.input_audio_transcription'));
      tt.equal(left.length, 1);
      tt.same((left[0] as Extract<Ev, { type: 'raw' }>).event, {
        type: 'conversation.item.input_audio_transcription.completed',
        event_id: 'event_E6U0yPHRaSGaFrbW4UkbV',
        item_id: 'item_E6U0xpLmn5e80rVGpEeKv',
        content_index: 0,
        usage: { type: 'duration', seconds: 3 },
      }, 'the ASR usage kept, the transcript not repeated');
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(41, 164)]);
      tt.same(evs.at(-1), done('end'));
    },
  },
  'pydantic-ai--compat-azure-tool-call.ws.jsonl': {
    responses: 2,
    check(tt, evs) {
      tt.match(evs.find((e) => e.type === 'tool_call_done'), { id: 'call_I5nx0fK2YAldYQZs', name: 'get_weather', arguments: '{  \n  "city": "London" \n} \n' });
      tt.equal(count(evs, 'tool_call_delta'), 12);
      tt.equal(texts(evs), 'It is foggy and 12 degrees in London.');
      tt.same(evs.filter((e) => e.type === 'done').map(brief), [done('tool_use'), done('end')]);
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(63, 22), usage(96, 13, 64)]);
    },
  },
  'pydantic-ai--compat-xai-tool-call.ws.jsonl': {
    responses: 2,
    check(tt, evs) {
      // detected as xAI from the grok model of session.created
      tt.match(evs.find((e) => e.type === 'start'), { dialect: 'xai-realtime', model: 'grok-voice-think-fast-1.0' });
      tt.match(evs.find((e) => e.type === 'tool_call_done'), { id: 'call-aafc8abe-be2e-450e-9fc0-9e39f3421fc2-0', name: 'get_weather', arguments: '{"city":"London"}' });
      tt.equal(count(evs, 'tool_call_delta'), 1, 'whole arguments in one delta');
      tt.equal(
        texts(evs, (e) => e.transcript === true),
        "I'll check the weather for London.It is foggy and 12 degrees in London. The weather is foggy with a temperature of 12 degrees.",
      );
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [
        { type: 'usage', inputTokens: 7, outputTokens: 83, totalTokens: 90, reasoningTokens: null, cachedInputTokens: null },
        { type: 'usage', inputTokens: 0, outputTokens: 309, totalTokens: 309, reasoningTokens: null, cachedInputTokens: null },
      ]);
      tt.match(evs.find((e) => e.type === 'usage'), { raw: { billable_audio_seconds: 1 } }, 'top-level usage, not the empty response.usage');
      tt.same(evs.filter((e) => e.type === 'done').map(brief), [done('tool_use'), done('end')]);
      tt.ok(evs.some((e) => e.type === 'raw' && label(e.event) === 'ping'));
      tt.ok(evs.some((e) => e.type === 'raw' && label(e.event) === 'conversation.created'));
    },
  },
  'pydantic-ai--history-seeding-text.ws.jsonl': {
    responses: 1,
    check(tt, evs) {
      tt.equal(texts(evs), 'Your name is Alice, and your favorite color is teal!');
      tt.equal(count(evs, 'text_delta'), 12);
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(149, 14)]);
    },
  },
  'pydantic-ai--text-in-audio-out.ws.jsonl': {
    responses: 1,
    check(tt, evs) {
      tt.equal(texts(evs, (e) => e.transcript === true), 'Hi there!');
      tt.equal(count(evs, 'audio_delta'), 4);
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(16, 24)]);
    },
  },
  'pydantic-ai--three-vad-turns-rate-limits.ws.jsonl': {
    responses: 3,
    check(tt, evs) {
      const dones = evs.filter((e) => e.type === 'done').map(brief);
      tt.same(dones, [done('end'), done('end'), done('end')]);
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(42, 60), usage(139, 61, 64), usage(187, 115)]);
      tt.same(evs.filter((e) => e.type === 'start').map((e) => (e.type === 'start' ? e.id : null)), [
        'resp_E8qoq5gBYpDn8AU4jdaXW',
        'resp_E8qoyE3eACWZXQPJtoJjw',
        'resp_E8qp7ywSgpfaFHE0Mqdnj',
      ]);
      tt.equal(texts(evs, (e) => e.transcript === true), 'Hi Marcelo! Nice to meet you.Hi Marcelo! Great to meet you.Hey Marcelo, nice meeting you.');
      tt.equal(evs.filter((e) => e.type === 'raw' && label(e.event) === 'rate_limits.updated').length, 3);
      tt.equal(evs.at(-1)?.type, 'raw', 'the session goes on after the last response: nothing reported missing');
    },
  },
  'pydantic-ai--tool-call-round.ws.jsonl': {
    responses: 2,
    check(tt, evs) {
      tt.match(evs.find((e) => e.type === 'tool_call_start'), { index: 0, id: 'call_uMNE0Myi2tDTPu0w', name: 'get_weather' });
      tt.match(evs.find((e) => e.type === 'tool_call_done'), { arguments: '{  \n  "city": "London" \n} \n' });
      tt.equal(texts(evs), 'It is foggy and 12 degrees in London.');
      tt.same(evs.filter((e) => e.type === 'done').map(brief), [done('tool_use'), done('end')]);
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(63, 22), usage(103, 13, 64)]);
      tt.match(evs.find((e) => e.type === 'raw' && label(e.event) === 'session.created'), { event: { session: { max_output_tokens: 'inf' } } });
    },
  },
  'vercel-ai--speech-translation.ws.jsonl': {
    // A translation session is one response: source and translation kept apart, audio with its rate, closed by session.closed.
    responses: 1,
    check(tt, evs) {
      tt.match(evs.find((e) => e.type === 'start'), { id: 'session-fixture', model: 'gpt-realtime-translate', dialect: 'openai-realtime' });
      tt.equal(evs.filter((e) => e.type === 'input_transcript').map((e) => (e.type === 'input_transcript' ? e.text : '')).join(''), ' The quick brown fox jumps over the lazy');
      tt.equal(texts(evs, (e) => e.transcript === true), 'La rápida zorra marrón salta sobre el perro perezoso.');
      tt.equal(count(evs, 'text_delta'), 15);
      tt.same(evs.filter((e) => e.type === 'audio_delta').map(brief), [{ type: 'audio_delta', index: 0, mimeType: 'audio/pcm;rate=24000', data: 'AQID' }]);
      tt.same(evs.slice(-2).map(brief), ['raw:session.closed', { type: 'done', stopReason: 'end', providerReason: null, language: 'es' }]);
      const [f, ...rest] = runStage(createOutputStage({ output: 'final' }), [corpusFile('openai-realtime/vercel-ai--speech-translation.ws.jsonl')]) as FinalResult[];
      tt.same(rest, [], 'one final per session');
      tt.equal(f!.text, 'La rápida zorra marrón salta sobre el perro perezoso.');
      tt.equal(f!.inputTranscript, ' The quick brown fox jumps over the lazy');
      tt.same(f!.audio, { mimeType: 'audio/pcm;rate=24000', sampleRate: 24000, bytes: Buffer.from('AQID', 'base64').length });
      tt.equal(f!.language, 'es');
      tt.equal(f!.stopReason, 'end');
    },
  },
  'pydantic-ai--webrtc-sideband-audio.ws.jsonl': {
    responses: 1,
    check(tt, evs) {
      tt.equal(count(evs, 'audio_delta'), 0, 'no audio on a sideband socket');
      tt.equal(texts(evs, (e) => e.transcript === true), 'Hello there.');
      tt.same(evs.filter((e) => e.type === 'usage').map(brief), [usage(12, 70)]);
      tt.same(evs.slice(-3).map(brief), [done('end'), 'raw:rate_limits.updated', 'raw:output_audio_buffer.stopped']);
      tt.ok(evs.some((e) => e.type === 'raw' && label(e.event) === 'output_audio_buffer.started'));
    },
  },
};

t.test('corpus openai-realtime', (tt) => {
  const files = corpusFiles(['openai-realtime']);
  tt.equal(files.length, 9);
  for (const f of files) {
    tt.test(f.name, (t2) => {
      const evs = stable(t2, f.bytes, {}, { quick: true });
      const spec = corpusChecks[f.name.slice('openai-realtime/'.length)];
      if (spec === undefined) {
        t2.fail('no concrete checks for this file');
        return t2.end();
      }
      t2.equal(evs.filter((e) => e.type === 'error').length, 0, 'no error (no invalid_json, nothing incomplete)');
      t2.equal(count(evs, 'start'), spec.responses, 'responses');
      t2.equal(count(evs, 'done'), spec.responses, 'exactly one done per response');
      const records = f.bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { dir: string; data: string });
      t2.equal(evs.filter(isSend).length, records.filter((r) => r.dir === 'send').length, 'every client message is a raw event');
      // every server message yields at least one event
      t2.equal(evs.filter((e) => !isSend(e) && e.type !== 'start').length >= records.filter((r) => r.dir === 'recv').length, true);
      spec.check(t2, evs);
      // the recv messages alone, as NDJSON, give the same events minus the client messages
      const ndjson = records.filter((r) => r.dir === 'recv').map((r) => r.data).join('\n');
      t2.same(run(ndjson), evs.filter((e) => !isSend(e)), 'NDJSON form');
      t2.end();
    });
  }
  tt.end();
});

t.test('translation session edge cases: stereo audio, empty deltas, session.closed around a conversation response', (tt) => {
  const evs = run(
    [
      '{"type":"session.created","event_id":"e1","session":{"id":"s1","type":"translation","model":"gpt-realtime-translate","audio":{"output":{"language":"de"}}}}',
      '{"type":"session.output_audio.delta","event_id":"e2","delta":"AAAAAA==","sample_rate":48000,"channels":2,"format":"pcm16"}',
      '{"type":"session.input_transcript.delta","event_id":"e3","delta":""}',
      '{"type":"session.output_transcript.delta","event_id":"e4","delta":"Hallo"}',
      '{"type":"session.closed","event_id":"e5"}',
    ].join('\n'),
  );
  tt.same(evs.map(brief), [
    'raw:session.created',
    { type: 'start', id: 's1', model: 'gpt-realtime-translate', dialect: 'openai-realtime' },
    { type: 'audio_delta', index: 0, mimeType: 'audio/pcm;rate=48000;channels=2', data: 'AAAAAA==' },
    'raw:session.input_transcript.delta', // an empty delta says nothing
    { type: 'text_delta', index: 0, text: 'Hallo', transcript: true },
    'raw:session.closed',
    { type: 'done', stopReason: 'end', providerReason: null, language: 'de' },
  ]);
  // a session closed before any translation: nothing opened, nothing owed
  tt.same(run('{"type":"session.closed","event_id":"e9"}').map(brief), ['raw:session.closed']);
  // a conversation response still open when the session closes: cut off
  const cut = run(
    [
      '{"type":"response.created","event_id":"e1","response":{"object":"realtime.response","id":"r1","status":"in_progress","output":[]}}',
      '{"type":"response.output_text.delta","event_id":"e2","response_id":"r1","item_id":"i1","output_index":0,"content_index":0,"delta":"Hi"}',
      '{"type":"session.closed","event_id":"e3"}',
    ].join('\n'),
  );
  tt.same(cut.slice(-3).map(brief), [
    'raw:session.closed',
    { type: 'error', code: 'incomplete_stream', message: "the session closed before the response's response.done", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  tt.end();
});

/** The finals of a whole input (final mode of the fused stage). */
const finalsOf = (bytes: Buffer | string): FinalResult[] =>
  runStage(createOutputStage({ output: 'final' }), [typeof bytes === 'string' ? Buffer.from(bytes) : bytes]) as FinalResult[];

t.test('input audio transcription: the finals\' inputTranscript, the completed transcript in the mismatch error', (tt) => {
  const fs = finalsOf(fixture('openai-realtime/input-transcription.jsonl'));
  tt.same(
    fs.map((f) => [f.id, f.text, f.inputTranscript, f.errors.map((e) => e.code)]),
    [
      ['resp_T1', 'Noon.', "What's the time?", []],
      // what came between the responses is carried into the next final: its errors too
      ['resp_T2', 'Bye!', 'Thanks.Bye now.', ['audio_unintelligible', 'transcript_mismatch']],
    ],
  );
  const mismatch = run(fixture('openai-realtime/input-transcription.jsonl')).find((e) => e.type === 'error' && e.code === 'transcript_mismatch');
  tt.match(mismatch, { raw: { transcript: 'Goodbye now.', item_id: 'item_D' } }, 'the completed payload, whole');
  // the pydantic-ai captures: each turn's final has the user's words exactly as completed (no ASR leading space, nothing twice)
  for (const name of ['pydantic-ai--three-vad-turns-rate-limits.ws.jsonl', 'pydantic-ai--audio-in-server-vad.ws.jsonl']) {
    const turns = finalsOf(corpusFile(`openai-realtime/${name}`));
    tt.ok(turns.length > 0);
    tt.ok(turns.every((f) => f.inputTranscript === 'Hello, my name is Marcelo.' && f.errors.length === 0), name);
  }
  tt.end();
});

t.test('a transcription session (session.type "transcription"): each transcribed audio part is a response and a final', (tt) => {
  const session = [
    '{"type":"session.created","event_id":"e1","session":{"id":"sess_X","type":"transcription","audio":{"input":{"transcription":{"model":"gpt-4o-transcribe"}}}}}',
    '{"type":"conversation.item.input_audio_transcription.delta","event_id":"e2","item_id":"item_1","content_index":0,"delta":" Good"}',
    '{"type":"conversation.item.input_audio_transcription.delta","event_id":"e3","item_id":"item_1","content_index":0,"delta":" morning"}',
    '{"type":"conversation.item.input_audio_transcription.completed","event_id":"e4","item_id":"item_1","content_index":0,"transcript":"Good morning.","usage":{"type":"duration","seconds":2}}',
    '{"type":"input_audio_buffer.committed","event_id":"e5","item_id":"item_2"}',
    '{"type":"conversation.item.input_audio_transcription.failed","event_id":"e6","item_id":"item_2","content_index":0,"error":{"type":"transcription_error","message":"Audio too short."}}',
    '{"type":"conversation.item.input_audio_transcription.completed","event_id":"e7","item_id":"item_3","content_index":0,"transcript":"Bye."}',
  ].join('\n');
  const evs = stable(tt, Buffer.from(session));
  const asr = (id: string) => ({ type: 'start', id, model: 'gpt-4o-transcribe', dialect: 'openai-realtime' });
  tt.same(evs.map(brief), [
    'raw:session.created',
    asr('item_1'),
    { type: 'input_transcript', text: 'Good' },
    { type: 'input_transcript', text: ' morning' },
    'raw:conversation.item.input_audio_transcription.completed',
    { type: 'input_transcript', text: '.' },
    { type: 'done', stopReason: 'end', providerReason: null },
    'raw:input_audio_buffer.committed',
    asr('item_2'),
    { type: 'error', code: 'transcription_error', message: 'Audio too short.', terminal: false },
    { type: 'done', stopReason: 'error', providerReason: null },
    asr('item_3'),
    { type: 'input_transcript', text: 'Bye.' },
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  tt.same(
    finalsOf(session).map((f) => [f.id, f.model, f.inputTranscript, f.stopReason, f.text]),
    [
      ['item_1', 'gpt-4o-transcribe', 'Good morning.', 'end', ''],
      ['item_2', 'gpt-4o-transcribe', undefined, 'error', ''],
      ['item_3', 'gpt-4o-transcribe', 'Bye.', 'end', ''],
    ],
  );
  // empty deltas, a completed with no transcript: raw, nothing opened
  tt.same(
    run(
      [
        '{"type":"conversation.item.input_audio_transcription.delta","event_id":"e1","item_id":"i","content_index":0,"delta":" "}',
        '{"type":"conversation.item.input_audio_transcription.completed","event_id":"e2","item_id":"i","content_index":0}',
      ].join('\n'),
    ).map(brief),
    ['raw:conversation.item.input_audio_transcription.delta', 'raw:conversation.item.input_audio_transcription.completed'],
  );
  tt.end();
});
