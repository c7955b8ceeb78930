/**
 * OpenAI Realtime (WebSocket/WebRTC server events), shared with xAI's realtime
 * endpoint (same vocabulary). A response is one `response.created` …
 * `response.done`; everything between responses (session, input audio
 * buffer, conversation items, rate limits, pings) is `raw` and does not open
 * a response, so a session that ends between responses reports nothing missing.
 *
 * A translation session (`gpt-realtime-translate`, `session.type:
 * "translation"`) has no responses: the whole session is one, opened by its
 * first `session.input_transcript.delta` / `session.output_transcript.delta`
 * / `session.output_audio.delta` and closed by `session.closed` (stopReason
 * `end`, `language` the session's `audio.output.language`). What the speaker
 * said is `input_transcript`, the translation's transcript `text_delta`
 * (`transcript: true`), its audio `audio_delta` whose MIME type carries the
 * delta's `sample_rate` and `channels` (`format: "pcm16"` → `audio/pcm`).
 *
 * A conversation's input audio transcription (the user's speech, run by a
 * separate ASR model alongside the responses, so its events fall before,
 * inside or after a response: openai-node `ConversationItemInputAudio
 * Transcription{Delta,Completed,Failed}Event`) is `input_transcript`, as a
 * translation session's:
 * - `conversation.item.input_audio_transcription.delta {item_id,
 *   content_index, delta}` → `input_transcript` with the delta (the first
 *   one of a part without the space the ASR puts before its first word,
 *   which the completed transcript does not have);
 * - `.completed {transcript, usage, logprobs?}`: the transcript is
 *   authoritative. Deltas that already said it (give or take spaces at
 *   either end) add nothing;
 *   without deltas, or with deltas that stopped short, the rest is one more
 *   `input_transcript`; deltas that say something else cannot be taken back:
 *   a non-terminal `transcript_mismatch` error whose raw is the payload (as
 *   openai-transcription does). Its `usage` (the ASR's, billed apart from
 *   the response's tokens) and logprobs stay in a `raw` of the payload less
 *   the transcript;
 * - `.failed {error}` → a non-terminal `error` (the error's code, else
 *   `transcription_failed`): the session goes on;
 * - `.segment {id, start, end, speaker, text}` (diarized input) stays `raw`:
 *   the unified `segment` is a piece of the response's own transcript, and
 *   its text came as deltas already.
 * In a conversation these events open no response (the final accumulator
 * carries them into the next one). A transcription session (`session.type:
 * "transcription"`) has no responses at all: there each transcribed audio
 * part is a response of its own (start id its `item_id`), opened by its
 * first event and closed by `.completed` (`done` `end`) or `.failed` (`done`
 * `error`), so each utterance makes a final with its `inputTranscript`.
 */
import type { Json, JsonObject, StopReason, UsageEvent } from '../events.js';
import { isSendRecord } from './capture.js';
import { doneEvent, errorEvent, isObject, num, obj, providerError, str, usageEvent } from './helpers.js';
import { isRealtimeEvent, isRealtimeType } from './detect.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

/**
 * What outlives one response: the normalizer creates a handler per response
 * but keeps one context per stream, so session facts are keyed on it.
 */
interface RealtimeSession {
  model: string | null;
  /** Output audio MIME type from session.created/updated. */
  audioMime: string | null;
  /** Id of the last closed response: its late events must not reopen it. */
  closedId: string | null;
  /** The session's own id and, for a translation session, its output language. */
  id: string | null;
  outputLanguage: string | null;
  /** Input transcription deltas said so far, by `item_id:content_index` (dropped when completed or failed). */
  heard: Map<string, string>;
  /** A transcription session (`session.type: "transcription"`): each transcribed audio part is a response. */
  transcription: boolean;
}

const sessions = new WeakMap<DialectContext, RealtimeSession>();

function sessionOf(ctx: DialectContext): RealtimeSession {
  let s = sessions.get(ctx);
  if (s === undefined) {
    s = { model: null, audioMime: null, closedId: null, id: null, outputLanguage: null, heard: new Map(), transcription: false };
    sessions.set(ctx, s);
  }
  return s;
}

interface Call {
  index: number;
  id: string;
  name: string;
  parts: string[];
  done: boolean;
}

const DEFAULT_AUDIO_MIME = 'audio/pcm';

/** Beta `output_audio_format` names. */
const BETA_AUDIO_FORMATS: Record<string, string> = {
  pcm16: 'audio/pcm',
  g711_ulaw: 'audio/pcmu',
  g711_alaw: 'audio/pcma',
};

/** `{type:'audio/pcm', rate:24000}` (GA) or `'pcm16'` (beta) → `audio/pcm;rate=24000`. */
function audioMime(holder: JsonObject | undefined): string | null {
  if (holder === undefined) return null;
  const format = obj(obj(obj(holder['audio'])?.['output'])?.['format']);
  const type = str(format?.['type']);
  if (type !== undefined && type.startsWith('audio/')) {
    const rate = num(format?.['rate']);
    return rate === undefined ? type : `${type};rate=${rate}`;
  }
  const beta = str(holder['output_audio_format']);
  return beta === undefined ? null : (BETA_AUDIO_FORMATS[beta] ?? null);
}

class RealtimeResponse implements ResponseHandler {
  private isStarted = false;
  private id: string | null = null;
  private audioMime: string | null = null;
  private readonly calls = new Map<string, Call>();
  private sawCall = false;

  constructor(
    private readonly ctx: DialectContext,
    private readonly session: RealtimeSession,
  ) {}

  get started(): boolean {
    return this.isStarted;
  }

  onPayload(payload: Json): void {
    if (!isObject(payload) || isSendRecord(payload)) return this.raw(payload);
    const type = str(payload['type']);
    switch (type) {
      case 'session.created':
      case 'session.updated':
        return this.onSession(payload, type);
      case 'response.created':
        return this.onCreated(payload);
      case 'response.done':
        return this.onDone(payload);
      case 'error':
        return this.onError(payload);
      case 'session.input_transcript.delta':
      case 'session.output_transcript.delta':
      case 'session.output_audio.delta':
        return this.onTranslation(payload, type);
      case 'session.closed':
        return this.onClosed(payload);
      case 'conversation.item.input_audio_transcription.delta':
        return this.onInputDelta(payload);
      case 'conversation.item.input_audio_transcription.completed':
        return this.onInputCompleted(payload);
      case 'conversation.item.input_audio_transcription.failed':
        return this.onInputFailed(payload);
      default:
        if (type !== undefined && type.startsWith('response.')) return this.onResponseEvent(payload, type);
        return this.raw(payload);
    }
  }

  onDoneSentinel(): void {
    this.raw('[DONE]');
  }

  onIncomplete(): void {
    // Calls whose arguments never completed are left to the accumulator (it keeps the deltas).
  }

  private raw(event: Json): void {
    this.ctx.emit({ type: 'raw', event });
  }

  private onSession(payload: JsonObject, type: string): void {
    const s = obj(payload['session']);
    if (s !== undefined) {
      const model = str(s['model']);
      if (model !== undefined) this.session.model = model;
      const mime = audioMime(s);
      if (mime !== null) this.session.audioMime = mime;
      const id = str(s['id']);
      if (id !== undefined) this.session.id = id;
      const language = str(obj(obj(s['audio'])?.['output'])?.['language']);
      if (language !== undefined) this.session.outputLanguage = language;
      const kind = str(s['type']);
      if (kind !== undefined) this.session.transcription = kind === 'transcription';
      // A transcription session's model is its ASR's.
      const asr = str(obj(obj(obj(s['audio'])?.['input'])?.['transcription'])?.['model']);
      if (kind === 'transcription' && model === undefined && asr !== undefined) this.session.model = asr;
    }
    if (type === 'session.created' && this.isStarted) {
      // A new connection while a response was streaming: the old one was cut off.
      this.ctx.emit(errorEvent('incomplete_stream', 'a new session began before the response\'s response.done', true));
      this.session.closedId = this.id;
      this.ctx.emit(doneEvent('error', null));
    }
    this.raw(payload);
  }

  private begin(id: string | null, response: JsonObject | undefined): void {
    this.isStarted = true;
    this.id = id;
    this.audioMime = audioMime(response);
    this.ctx.emit({ type: 'start', id, model: str(response?.['model']) ?? this.session.model });
  }

  /** True when the event belongs to another response than the open one (or to one already closed). */
  private isForeign(id: string | undefined): boolean {
    if (id === undefined) return false;
    if (this.isStarted) return this.id !== null && id !== this.id;
    return id === this.session.closedId;
  }

  private onCreated(payload: JsonObject): void {
    const response = obj(payload['response']);
    const id = str(response?.['id']);
    // Responses run one at a time in a conversation; an out-of-band one overlapping it stays raw.
    if (this.isStarted || this.isForeign(id)) return this.raw(payload);
    this.begin(id ?? null, response);
  }

  private onDone(payload: JsonObject): void {
    const response = obj(payload['response']);
    const id = str(response?.['id']) ?? str(payload['response_id']);
    if (this.isForeign(id)) return this.raw(payload);
    if (!this.isStarted) this.begin(id ?? null, response);
    const usage = usageOf(response, payload);
    if (usage !== undefined) this.ctx.emit(usage);
    const status = str(response?.['status']);
    const details = response?.['status_details'];
    const reason = str(obj(details)?.['reason']);
    let stop: StopReason;
    let providerReason: string | null = status ?? null;
    switch (status) {
      case 'completed':
        stop = this.sawCall || hasFunctionCall(response) ? 'tool_use' : 'end';
        break;
      case 'incomplete':
        stop = reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : 'other';
        providerReason = reason ?? status;
        break;
      case 'cancelled':
        stop = 'other';
        providerReason = reason ?? status;
        break;
      case 'failed': {
        stop = 'error';
        const err = providerError(obj(details)?.['error']);
        this.ctx.emit(errorEvent(err?.code ?? 'provider_error', err?.message ?? 'the response failed', true, payload));
        break;
      }
      default:
        stop = 'other';
    }
    this.session.closedId = this.id;
    this.ctx.emit(doneEvent(stop, providerReason));
  }

  /** A translation session's deltas: the session is the response (see the file's comment). */
  private onTranslation(payload: JsonObject, type: string): void {
    const delta = str(payload['delta']);
    if (delta === undefined || delta === '') return this.raw(payload);
    if (!this.isStarted) this.begin(this.session.id, undefined);
    if (type === 'session.input_transcript.delta') return this.ctx.emit({ type: 'input_transcript', text: delta });
    if (type === 'session.output_transcript.delta') return this.ctx.emit({ type: 'text_delta', index: 0, text: delta, transcript: true });
    this.ctx.emit({ type: 'audio_delta', index: 0, mimeType: translationAudioMime(payload), data: delta });
  }

  /** The transcription of one input audio part (see the file's comment): outside or inside whatever response is open. */
  private onInputDelta(payload: JsonObject): void {
    const key = inputKey(payload);
    const heard = this.session.heard.get(key) ?? '';
    let delta = str(payload['delta']);
    // The ASR starts its first word with a space that the completed transcript does not have.
    if (heard === '') delta = delta?.trimStart();
    if (delta === undefined || delta === '') return this.raw(payload);
    this.openUtterance(payload);
    this.session.heard.set(key, heard + delta);
    this.ctx.emit({ type: 'input_transcript', text: delta });
  }

  /** A transcription session: the audio part's first event opens its response. */
  private openUtterance(payload: JsonObject): void {
    if (this.session.transcription && !this.isStarted) this.begin(str(payload['item_id']) ?? null, undefined);
  }

  /** A transcription session: the audio part's last event closes its response. */
  private closeUtterance(stop: StopReason): void {
    if (!this.session.transcription || !this.isStarted) return;
    this.session.closedId = this.id;
    this.ctx.emit(doneEvent(stop, null));
  }

  private onInputCompleted(payload: JsonObject): void {
    const transcript = str(payload['transcript']);
    if (transcript === undefined) return this.raw(payload);
    const key = inputKey(payload);
    const heard = this.session.heard.get(key) ?? '';
    this.session.heard.delete(key);
    this.openUtterance(payload);
    const { transcript: _text, ...rest } = payload;
    if (Object.keys(rest).some((k) => !INPUT_IDS.has(k))) this.raw(rest);
    this.reconcile(transcript, heard, payload);
    this.closeUtterance('end');
  }

  /** The completed transcript against the deltas that came (see the file's comment). */
  private reconcile(transcript: string, heard: string, payload: JsonObject): void {
    if (transcript === heard || transcript.trim() === heard.trim()) return;
    // The deltas stopped short (or there were none): the rest.
    if (transcript.startsWith(heard)) return this.ctx.emit({ type: 'input_transcript', text: transcript.slice(heard.length) });
    this.ctx.emit(
      errorEvent(
        'transcript_mismatch',
        `input_audio_transcription.completed's transcript (${transcript.length} characters) differs from its deltas' (${heard.length} characters): the input transcript keeps the deltas' text, the completed one is in this error's raw`,
        false,
        payload,
      ),
    );
  }

  /** A failed transcription is about one item: the session (and any response) goes on. */
  private onInputFailed(payload: JsonObject): void {
    this.session.heard.delete(inputKey(payload));
    this.openUtterance(payload);
    const err = obj(payload['error']);
    const code = str(err?.['code']) || str(err?.['type']) || 'transcription_failed';
    this.ctx.emit(errorEvent(code, str(err?.['message']) || 'the input audio transcription failed', false, payload));
    this.closeUtterance('error');
  }

  /** `session.closed`: the end of a translation session (of any session: a response still open was cut off). */
  private onClosed(payload: JsonObject): void {
    this.raw(payload);
    if (!this.isStarted) return;
    if (this.id !== this.session.id) {
      // A conversation's response still open when the session closed: it never got its response.done.
      this.ctx.emit(errorEvent('incomplete_stream', "the session closed before the response's response.done", true));
      this.session.closedId = this.id;
      return this.ctx.emit(doneEvent('error', null));
    }
    const done = doneEvent('end', null);
    if (this.session.outputLanguage !== null) done.language = this.session.outputLanguage;
    this.ctx.emit(done);
  }

  /** Realtime errors are about a client event; the session (and any response) goes on. */
  private onError(payload: JsonObject): void {
    const err = providerError(payload);
    this.ctx.emit(errorEvent(err?.code ?? 'provider_error', err?.message ?? 'realtime error', false, payload));
  }

  private onResponseEvent(payload: JsonObject, type: string): void {
    if (this.isForeign(str(payload['response_id']))) return this.raw(payload);
    if (!this.isStarted) this.begin(str(payload['response_id']) ?? null, undefined);
    switch (type) {
      case 'response.output_text.delta':
      case 'response.text.delta':
        return this.text(payload, false);
      case 'response.output_audio_transcript.delta':
      case 'response.audio_transcript.delta':
        return this.text(payload, true);
      case 'response.output_audio.delta':
      case 'response.audio.delta':
        return this.audio(payload);
      case 'response.output_item.added':
        return this.itemAdded(payload);
      case 'response.function_call_arguments.delta':
        return this.argsDelta(payload);
      case 'response.function_call_arguments.done':
        return this.argsDone(payload);
      case 'response.output_item.done':
        return this.itemDone(payload);
      default:
        return this.raw(payload);
    }
  }

  private text(payload: JsonObject, transcript: boolean): void {
    const text = str(payload['delta']);
    if (text === undefined || text === '') return this.raw(payload);
    const index = num(payload['output_index']) ?? 0;
    const contentIndex = num(payload['content_index']);
    if (transcript) {
      if (contentIndex === undefined) this.ctx.emit({ type: 'text_delta', index, text, transcript: true });
      else this.ctx.emit({ type: 'text_delta', index, contentIndex, text, transcript: true });
    } else if (contentIndex === undefined) this.ctx.emit({ type: 'text_delta', index, text });
    else this.ctx.emit({ type: 'text_delta', index, contentIndex, text });
  }

  private audio(payload: JsonObject): void {
    const data = str(payload['delta']);
    if (data === undefined || data === '') return this.raw(payload);
    const mimeType = this.audioMime ?? this.session.audioMime ?? DEFAULT_AUDIO_MIME;
    this.ctx.emit({ type: 'audio_delta', index: num(payload['output_index']) ?? 0, mimeType, data });
  }

  private itemAdded(payload: JsonObject): void {
    const item = obj(payload['item']);
    if (item?.['type'] !== 'function_call' || this.existingCall(payload, item) !== undefined) return this.raw(payload);
    this.startCall(payload, item);
  }

  /** Starts a call the first time we hear of it (usually `output_item.added`; else its first argument event). */
  private startCall(payload: JsonObject, item: JsonObject | undefined): Call {
    let key = str(item?.['id']) ?? str(payload['item_id']) ?? str(item?.['call_id']) ?? str(payload['call_id']) ?? '';
    if (this.calls.has(key)) key = `${key}#${this.calls.size}`;
    const index = num(payload['output_index']) ?? this.calls.size;
    const id = str(item?.['call_id']) || str(payload['call_id']) || `call_${index}`;
    const call: Call = { index, id, name: str(item?.['name']) ?? str(payload['name']) ?? '', parts: [], done: false };
    this.calls.set(key, call);
    this.sawCall = true;
    this.ctx.emit({ type: 'tool_call_start', index: call.index, id: call.id, name: call.name });
    return call;
  }

  /** The call an event belongs to: by item id (OpenAI's key), else by call id. */
  private existingCall(payload: JsonObject, item: JsonObject | undefined): Call | undefined {
    const key = str(item?.['id']) ?? str(payload['item_id']);
    if (key !== undefined) {
      const c = this.calls.get(key);
      if (c !== undefined) return c;
    }
    const callId = str(item?.['call_id']) ?? str(payload['call_id']);
    if (callId === undefined) return undefined;
    for (const c of this.calls.values()) if (c.id === callId) return c;
    return undefined;
  }

  private argsDelta(payload: JsonObject): void {
    const delta = str(payload['delta']);
    const call = this.existingCall(payload, undefined) ?? this.startCall(payload, undefined);
    if (delta === undefined || delta === '' || call.done) return this.raw(payload);
    call.parts.push(delta);
    this.ctx.emit({ type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: delta });
  }

  private argsDone(payload: JsonObject): void {
    const call = this.existingCall(payload, undefined) ?? this.startCall(payload, undefined);
    if (call.done) return this.raw(payload);
    this.finishCall(call, str(payload['arguments']), str(payload['name']));
  }

  private itemDone(payload: JsonObject): void {
    const item = obj(payload['item']);
    if (item?.['type'] !== 'function_call') return this.raw(payload);
    const call = this.existingCall(payload, item) ?? this.startCall(payload, item);
    // Normally arguments.done closed the call already; the item is then a snapshot.
    if (call.done) return this.raw(payload);
    this.finishCall(call, str(item['arguments']), str(item['name']));
  }

  private finishCall(call: Call, args: string | undefined, name: string | undefined): void {
    if (name !== undefined && name !== '') call.name = name;
    let text: string;
    if (args === undefined) text = call.parts.join('');
    else {
      text = args;
      // A whole-call delivery still goes through one delta.
      if (call.parts.length === 0 && args !== '') {
        call.parts.push(args);
        this.ctx.emit({ type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: args });
      }
    }
    call.done = true;
    this.ctx.emit({ type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: text });
  }
}

/** The fields of an input transcription event that only say which one it is. */
const INPUT_IDS = new Set(['type', 'event_id', 'item_id', 'content_index']);

/** The audio part an input transcription event is about. */
function inputKey(payload: JsonObject): string {
  return `${str(payload['item_id']) ?? ''}:${num(payload['content_index']) ?? 0}`;
}

/** `{format: "pcm16", sample_rate: 24000, channels: 1}` → `audio/pcm;rate=24000` (channels only when not 1). */
function translationAudioMime(payload: JsonObject): string {
  const format = str(payload['format']);
  let mime = format === undefined || format === 'pcm16' ? DEFAULT_AUDIO_MIME : (BETA_AUDIO_FORMATS[format] ?? `audio/${format}`);
  const rate = num(payload['sample_rate']);
  if (rate !== undefined) mime += `;rate=${rate}`;
  const channels = num(payload['channels']);
  if (channels !== undefined && channels !== 1) mime += `;channels=${channels}`;
  return mime;
}

function hasFunctionCall(response: JsonObject | undefined): boolean {
  const output = response?.['output'];
  if (!Array.isArray(output)) return false;
  for (const item of output) if (obj(item)?.['type'] === 'function_call') return true;
  return false;
}

/** `response.usage` (OpenAI), else the top-level `usage` xAI puts next to an empty `response.usage`. */
function usageOf(response: JsonObject | undefined, payload: JsonObject): UsageEvent | undefined {
  let u = obj(response?.['usage']);
  if (u === undefined || isEmpty(u)) u = obj(payload['usage']);
  if (u === undefined || isEmpty(u)) return undefined;
  const input = num(u['input_tokens']) ?? null;
  const output = num(u['output_tokens']) ?? null;
  const total = num(u['total_tokens']) ?? (input !== null && output !== null ? input + output : null);
  const inDetails = obj(u['input_token_details']);
  const outDetails = obj(u['output_token_details']);
  return usageEvent(
    {
      inputTokens: input,
      outputTokens: output,
      totalTokens: total,
      reasoningTokens: num(outDetails?.['reasoning_tokens']) ?? null,
      cachedInputTokens: num(inDetails?.['cached_tokens']) ?? null,
    },
    u,
  );
}

function isEmpty(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

/** The Realtime dialects' `createResponse` (OpenAI and xAI share the mapping). */
export function createRealtimeResponse(ctx: DialectContext): ResponseHandler {
  return new RealtimeResponse(ctx, sessionOf(ctx));
}

export const openaiRealtime = defineDialect({
  name: 'openai-realtime',
  family: 'realtime',
  // After xai-realtime (its session of a grok model, its keep-alive), before the Responses
  // dialects: a Realtime-only type, or an `error` / `response.*` event with Realtime's ids.
  detect(payload) {
    const type = str(payload['type']);
    if (type === undefined) return false;
    if (isRealtimeType(type)) return true;
    return (type === 'error' || type.startsWith('response.')) && isRealtimeEvent(payload);
  },
  readsClientMessages: true,
  session: true,
  createResponse: createRealtimeResponse,
});
