import t from 'tap';
import type { DialectName, Json, UnifiedEvent } from '../../lib/events.js';
import { corpusFile, fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect as detected, stable } from '../helpers/decode.js';
import { briefs } from '../helpers/events.js';

type Ev = UnifiedEvent;

const run = (input: Buffer | string, dialect?: DialectName): Ev[] => decodeEvents(input, dialect === undefined ? {} : { dialect });

/** Raw payloads are named by their `type`. */
const brief = briefs('type');

const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const A1 = 'AAABAAIAAwAEAAUABgAHAAgACQAKAAsADAANAA4ADwA=';
const MODEL = 'grok-voice-think-fast-1.0';

t.test('fixture xai-realtime/voice-tool-call.jsonl', (tt) => {
  const bytes = fixture('xai-realtime/voice-tool-call.jsonl');
  tt.equal(detected(bytes), 'xai-realtime');
  tt.same(stable(tt, bytes).map(brief), [
    'raw:session.created',
    'raw:conversation.created',
    'raw:ping',
    { type: 'start', id: uuid(901), model: MODEL, dialect: 'xai-realtime' },
    'raw:response.output_item.added',
    // xAI names no output format in session.created: the default
    { type: 'audio_delta', index: 0, mimeType: 'audio/pcm', data: A1 },
    { type: 'text_delta', index: 0, contentIndex: 0, text: 'Checking the weather.', transcript: true },
    'raw:response.output_item.done',
    // xAI reuses output_index 0 for the call item; its argument deltas carry no output_index
    { type: 'tool_call_start', index: 0, id: 'call-xa-0', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'call-xa-0', argumentsDelta: '{"city":"Paris"}' },
    { type: 'tool_call_done', index: 0, id: 'call-xa-0', name: 'get_weather', arguments: '{"city":"Paris"}' },
    // top-level usage (response.usage is {}); status_details is the string "unimplemented"
    { type: 'usage', inputTokens: 7, outputTokens: 83, totalTokens: 90, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'tool_use', providerReason: 'completed' },
    'raw:ping', // keep-alive between responses opens nothing
    { type: 'start', id: uuid(902), model: MODEL, dialect: 'xai-realtime' },
    { type: 'text_delta', index: 0, contentIndex: 0, text: 'Sunny, 21 degrees.', transcript: true },
    { type: 'usage', inputTokens: 0, outputTokens: 40, totalTokens: 40, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
    // session-ending errors (timeout, max_duration) come between responses
    { type: 'error', code: 'timeout', message: 'Session timed out after 120 minutes.', terminal: false },
  ]);
  const u = run(bytes).find((e) => e.type === 'usage');
  tt.match(u, { raw: { billable_audio_seconds: 1, output_audio_seconds: 1.51 } });
  tt.end();
});

t.test('fixture xai-realtime/ping-first.jsonl: a ping with an event id tells xAI apart', (tt) => {
  const bytes = fixture('xai-realtime/ping-first.jsonl');
  tt.equal(detected(bytes), 'xai-realtime');
  tt.same(stable(tt, bytes).map(brief), [
    'raw:ping',
    { type: 'start', id: uuid(903), model: null, dialect: 'xai-realtime' },
    { type: 'text_delta', index: 0, contentIndex: 0, text: 'Hi.', transcript: true },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  tt.end();
});

t.test('auto-detection: xAI from the model, conversation.created or ping; OpenAI otherwise', (tt) => {
  const line = (o: Json): string => JSON.stringify(o);
  tt.equal(detected(line({ type: 'session.created', event_id: uuid(1), session: { model: 'grok-voice-1' } })), 'xai-realtime');
  tt.equal(detected(line({ type: 'session.updated', event_id: 'event_1', session: { model: 'gpt-realtime' } })), 'openai-realtime');
  tt.equal(detected(line({ type: 'conversation.created', event_id: uuid(2), conversation: { id: 'c' } })), 'xai-realtime');
  tt.equal(detected(line({ type: 'conversation.created', event_id: 'event_AB', conversation: { id: 'c' } })), 'openai-realtime');
  tt.equal(detected(line({ type: 'ping', event_id: uuid(3), timestamp: 1 })), 'xai-realtime');
  // Anthropic's bare ping says nothing: the next payload decides
  tt.equal(detected(`${line({ type: 'ping' })}\n${line({ type: 'message_start', message: { id: 'm', model: 'claude' } })}`), 'anthropic-messages');
  tt.end();
});

t.test('the xAI corpus capture (compat endpoint in openai-realtime/)', (tt) => {
  const bytes = corpusFile('openai-realtime/pydantic-ai--compat-xai-tool-call.ws.jsonl');
  tt.equal(detected(bytes), 'xai-realtime');
  const evs = stable(tt, bytes, {}, { quick: true });
  tt.equal(evs.filter((e) => e.type === 'start').length, 2);
  tt.same(evs.filter((e) => e.type === 'done').map(brief), [
    { type: 'done', stopReason: 'tool_use', providerReason: 'completed' },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
  ]);
  tt.match(evs.find((e) => e.type === 'audio_delta'), { mimeType: 'audio/pcm;rate=24000' }, 'format from xAI session.updated audio.output.format');
  // forcing either name gives the same mapping; only the dialect stamp differs
  const strip = (list: Ev[]): Ev[] => list.map((e) => (e.type === 'start' ? { ...e, dialect: undefined } : e));
  tt.same(strip(run(bytes, 'openai-realtime')), strip(evs));
  tt.same(run(bytes, 'xai-realtime'), evs);
  tt.end();
});

t.test('input audio transcription (OpenAI\'s vocabulary, grok-transcribe): input_transcript, the completed transcript adding the rest', (tt) => {
  const session = [
    `{"type":"session.created","event_id":"${uuid(1)}","session":{"model":"${MODEL}","audio":{"input":{"transcription":{"model":"grok-transcribe"}}}}}`,
    `{"type":"conversation.item.input_audio_transcription.delta","event_id":"${uuid(2)}","item_id":"${uuid(3)}","content_index":0,"delta":" Weather in"}`,
    `{"type":"conversation.item.input_audio_transcription.completed","event_id":"${uuid(4)}","item_id":"${uuid(3)}","content_index":0,"transcript":"Weather in London?"}`,
    `{"type":"response.created","event_id":"${uuid(5)}","response":{"id":"${uuid(6)}","status":"in_progress","output":[]}}`,
    `{"type":"response.done","event_id":"${uuid(7)}","response":{"id":"${uuid(6)}","status":"completed","output":[]}}`,
  ].join('\n');
  tt.equal(detected(session), 'xai-realtime');
  tt.same(stable(tt, Buffer.from(session)).map(brief), [
    'raw:session.created',
    { type: 'input_transcript', text: 'Weather in' },
    { type: 'input_transcript', text: ' London?' },
    { type: 'start', id: uuid(6), model: MODEL, dialect: 'xai-realtime' },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
  ]);
  tt.end();
});
