/**
 * Gemini Live (`BidiGenerateContent`) and Lyria RealTime (`BidiGenerateMusic`)
 * server messages. One model turn is one response: it opens with the turn's
 * first model output and closes at `turnComplete` (or `interrupted`).
 *
 * - `setupComplete` is raw and only records the session id, which becomes the
 *   `start` id of every turn: a session that ends before (or between) turns
 *   then reports no missing terminal.
 * - Session traffic (`goAway`, `sessionResumptionUpdate`, `toolCallCancellation`,
 *   `inputTranscription`, empty `serverContent`) never opens a response.
 * - Usage: the last `usageMetadata` seen in the turn is emitted right before
 *   `done` (it normally rides on the `turnComplete` message). One that arrives
 *   after the turn closed cannot be attached to it and stays `raw`.
 * - After `interrupted` the server still finishes the old turn: what it sends
 *   until that turn's `turnComplete` is stale residue of a closed response and
 *   passes as `raw` (no new response).
 * - `tool_use` when the turn ended on a tool call nobody answered within the
 *   turn; a Live turn usually continues after the tool response and then ends
 *   normally (`end`), its tool calls still reported.
 * - `inputTranscription` (what the user said) → `input_transcript` with its
 *   `languageCode`: it does not open a turn (the final accumulator carries it
 *   into the next one).
 * - Speech translation (`generationConfig.translationConfig` in the client's
 *   setup, or the user's speech transcribed inside an open turn in another
 *   `languageCode` than the turn's output transcript) and Lyria RealTime music
 *   (`BidiGenerateMusic`, told by its `audioChunks`): the server never sends
 *   `turnComplete`, so the end of the input ends the session's one turn
 *   (`done` `end`; `language` the translation's) instead of cutting it off.
 *   A translation's `usageMetadata` messages are periodic deltas (vercel/ai's
 *   Live translation model adds them up): its usage is their sum.
 * - Lyria: `audioChunks[]` → `audio_delta`; `filteredPrompt {text,
 *   filteredReason}` → a `notice` (`filtered_prompt`): the music goes on.
 */
import type { Json, JsonObject, UnifiedEvent, UsageEvent } from '../events.js';
import { isSendRecord } from './capture.js';
import { doneEvent, errorEvent, isObject, num, obj, providerError, str, sum, usageEvent } from './helpers.js';
import { isKeepAlive } from './detect.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

/** What outlives a turn (the normalizer keeps one context per stream). */
interface LiveSession {
  sessionId: string | null;
  /** From the client's `setup` message, when client messages are parsed (`captures: 'all'`). */
  model: string | null;
  /** An interrupted turn awaits its `turnComplete`. */
  residue: boolean;
  /** A session that never ends a turn (speech translation, Lyria music; see the file's comment), and a translation's language. */
  endless: boolean;
  targetLanguage: string | null;
  /** The `languageCode` of the last output transcript. */
  outputLanguage: string | null;
}

const sessions = new WeakMap<DialectContext, LiveSession>();

function sessionOf(ctx: DialectContext): LiveSession {
  let s = sessions.get(ctx);
  if (s === undefined) {
    s = { sessionId: null, model: null, residue: false, endless: false, targetLanguage: null, outputLanguage: null };
    sessions.set(ctx, s);
  }
  return s;
}

/** `serverContent` fields mapped to events (anything else makes the message also raw). */
const MAPPED_CONTENT = new Set([
  'modelTurn',
  'outputTranscription',
  'turnComplete',
  'interrupted',
  'turnCompleteReason',
  'waitingForInput',
  'audioChunks',
  'inputTranscription',
]);

/** Top-level message fields mapped to events. */
const MAPPED_TOP = new Set([
  'serverContent',
  'toolCall',
  'toolCallCancellation',
  'goAway',
  'sessionResumptionUpdate',
  'usageMetadata',
  'filteredPrompt',
]);

/** True when the message is part of a model turn (opens a response if none is open). */
function isTurnContent(p: JsonObject, sc: JsonObject | undefined): boolean {
  if ('toolCall' in p || 'filteredPrompt' in p) return true;
  if (sc === undefined) return false;
  for (const k in sc) if (k !== 'inputTranscription' && k !== 'interrupted' && (k !== 'outputTranscription' || hasText(sc[k]))) return true;
  return false;
}

function hasText(v: Json | undefined): boolean {
  const text = str(obj(v)?.['text']);
  return text !== undefined && text !== '';
}

class LiveTurn implements ResponseHandler {
  private isStarted = false;
  /** Events emitted for the current message (besides `start`). */
  private emitted = 0;
  private usage: UsageEvent | undefined;
  /** Every usageMetadata of the turn, as received (a translation's are deltas). */
  private readonly usages: JsonObject[] = [];
  /** A tool call came and no model output followed it yet. */
  private toolPending = false;
  private calls = 0;

  constructor(
    private readonly ctx: DialectContext,
    private readonly session: LiveSession,
  ) {}

  get started(): boolean {
    return this.isStarted;
  }

  onPayload(p: Json): void {
    if (!isObject(p)) return this.ctx.emit({ type: 'raw', event: p });
    if (isSendRecord(p)) return this.onSend(p);
    if ('setupComplete' in p) return this.onSetup(p);
    if ('error' in p && !('serverContent' in p)) return this.onError(p);
    const sc = obj(p['serverContent']);
    if (!this.isStarted && isTurnContent(p, sc)) {
      if (this.session.residue) return this.onResidue(p, sc);
      this.begin();
    }

    this.emitted = 0;
    let leftover = false;

    if (sc !== undefined) leftover = this.content(sc);
    const toolCall = obj(p['toolCall']);
    if (toolCall !== undefined) this.toolCall(toolCall);
    const cancel = obj(p['toolCallCancellation']);
    if (cancel !== undefined) {
      const ids: string[] = [];
      for (const id of arrOf(cancel['ids'])) if (typeof id === 'string') ids.push(id);
      this.emit({ type: 'tool_call_cancel', ids });
    }
    const filtered = obj(p['filteredPrompt']);
    if (filtered !== undefined) {
      // Lyria left a prompt out (the music goes on): its reason, else the prompt, says which.
      const reason = str(filtered['filteredReason']);
      const prompt = str(filtered['text']);
      const message = reason && prompt ? `${reason} (prompt: ${prompt})` : reason || prompt;
      if (message) this.emit({ type: 'notice', code: 'filtered_prompt', message, raw: filtered });
      else leftover = true;
    }
    const goAway = obj(p['goAway']);
    if (goAway !== undefined) this.emit({ type: 'session', kind: 'go_away', timeLeft: str(goAway['timeLeft']) ?? null });
    const resumption = obj(p['sessionResumptionUpdate']);
    if (resumption !== undefined) {
      const resumable = resumption['resumable'];
      this.emit({
        type: 'session',
        kind: 'resumption',
        newHandle: str(resumption['newHandle']) ?? null,
        resumable: typeof resumable === 'boolean' ? resumable : null,
      });
    }
    const usage = obj(p['usageMetadata']);
    // Usage outside a turn has no response to belong to: it stays raw.
    if (usage !== undefined && this.isStarted) {
      this.usage = liveUsage(usage);
      this.usages.push(usage);
    }
    if (!leftover) for (const k in p) if (!MAPPED_TOP.has(k)) leftover = true;

    const ends = sc !== undefined && this.isStarted && (sc['turnComplete'] === true || sc['interrupted'] === true);
    if (leftover || (this.emitted === 0 && !ends)) this.ctx.emit({ type: 'raw', event: p });
    if (sc !== undefined) this.terminal(sc);
  }

  onDoneSentinel(): void {
    this.ctx.emit({ type: 'raw', event: '[DONE]' });
  }

  onIncomplete(): void {
    if (!this.session.endless) {
      if (this.usage !== undefined) this.ctx.emit(this.usage);
      return;
    }
    // A translation reports its usage in periodic deltas (vercel/ai's reading of Live translation): their sum.
    if (this.usages.length > 1) this.ctx.emit(summedUsage(this.usages));
    else if (this.usage !== undefined) this.ctx.emit(this.usage);
    // Translation and music have no turnComplete: the input's end is the session's end.
    const done = doneEvent('end', null);
    const language = this.session.targetLanguage ?? this.session.outputLanguage;
    if (language !== null) done.language = language;
    this.ctx.emit(done);
  }

  private emit(ev: UnifiedEvent): void {
    this.emitted++;
    this.ctx.emit(ev);
  }

  private begin(): void {
    this.isStarted = true;
    this.ctx.emit({ type: 'start', id: this.session.sessionId, model: this.session.model });
  }

  private onSend(p: JsonObject): void {
    const setup = obj(obj(p['data'])?.['setup']);
    const model = str(setup?.['model']);
    if (model !== undefined) this.session.model = model;
    const translation = obj(obj(setup?.['generationConfig'])?.['translationConfig']);
    if (translation !== undefined) {
      this.session.endless = true;
      this.session.targetLanguage = str(translation['targetLanguageCode']) ?? this.session.targetLanguage;
    }
    this.ctx.emit({ type: 'raw', event: p });
  }

  private onSetup(p: JsonObject): void {
    if (this.isStarted) {
      // A new connection while a turn was streaming: the old one was cut off.
      if (this.usage !== undefined) this.ctx.emit(this.usage);
      this.ctx.emit(errorEvent('incomplete_stream', 'a new session began before the turn completed', true));
      this.ctx.emit(doneEvent('error', null));
    }
    this.session.sessionId = str(obj(p['setupComplete'])?.['sessionId']) ?? null;
    this.session.residue = false;
    this.ctx.emit({ type: 'raw', event: p });
  }

  private onError(p: JsonObject): void {
    const err = providerError(p);
    // Google's status enum (RESOURCE_EXHAUSTED…) says more than its numeric HTTP code.
    const code = str(obj(p['error'])?.['status']) ?? err?.code ?? 'provider_error';
    this.ctx.emit(errorEvent(code, err?.message ?? 'provider error', true, p));
    if (this.isStarted && this.usage !== undefined) this.ctx.emit(this.usage);
    this.ctx.emit(doneEvent('error', null));
  }

  private onResidue(p: JsonObject, sc: JsonObject | undefined): void {
    if (sc?.['turnComplete'] === true) this.session.residue = false;
    this.ctx.emit({ type: 'raw', event: p });
  }

  /** Maps `serverContent`; returns true when part of it has no event of its own. */
  private content(sc: JsonObject): boolean {
    let leftover = false;
    for (const k in sc) if (!MAPPED_CONTENT.has(k)) leftover = true;
    const turn = obj(sc['modelTurn']);
    if (turn !== undefined) {
      const parts = arrOf(turn['parts']);
      for (let i = 0; i < parts.length; i++) if (this.part(obj(parts[i]), i)) leftover = true;
    }
    const transcription = obj(sc['outputTranscription']);
    if (transcription !== undefined) {
      const text = str(transcription['text']);
      if (text) {
        this.toolPending = false;
        this.emit({ type: 'text_delta', index: 0, text, transcript: true });
        const language = str(transcription['languageCode']);
        if (language !== undefined) this.session.outputLanguage = language;
      }
    }
    const input = obj(sc['inputTranscription']);
    if (input !== undefined) {
      const text = str(input['text']);
      if (text) {
        const language = str(input['languageCode']);
        // The user speaking on inside the model's turn in another language than its output: a translation.
        const output = this.session.outputLanguage;
        if (this.isStarted && language !== undefined && output !== null && language !== output) this.session.endless = true;
        this.emit(language === undefined ? { type: 'input_transcript', text } : { type: 'input_transcript', text, language });
      } else if (text === undefined) leftover = true;
    }
    const chunks = arrOf(sc['audioChunks']);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = obj(chunks[i]);
      const data = str(chunk?.['data']);
      if (data) {
        this.toolPending = false;
        this.session.endless = true; // Lyria music
        this.emit({ type: 'audio_delta', index: i, mimeType: str(chunk?.['mimeType']) ?? null, data });
      } else leftover = true;
    }
    return leftover;
  }

  /** One `modelTurn` part; returns true when something in it has no event. */
  private part(part: JsonObject | undefined, index: number): boolean {
    if (part === undefined) return true;
    let leftover = false;
    for (const k in part) {
      switch (k) {
        case 'text': {
          const text = str(part['text']);
          if (!text) break;
          this.toolPending = false;
          if (part['thought'] === true) this.emit({ type: 'reasoning_delta', index, text });
          else this.emit({ type: 'text_delta', index, text });
          break;
        }
        case 'thought':
          break;
        case 'thoughtSignature': {
          const signature = str(part['thoughtSignature']);
          if (signature) this.emit({ type: 'signature', index, signature, kind: 'thought_signature' });
          break;
        }
        case 'inlineData': {
          const blob = obj(part['inlineData']);
          const mimeType = str(blob?.['mimeType']);
          const data = str(blob?.['data']);
          if (data && (mimeType === undefined || mimeType.startsWith('audio/'))) {
            this.toolPending = false;
            this.emit({ type: 'audio_delta', index, mimeType: mimeType ?? null, data });
          } else leftover = true;
          break;
        }
        case 'functionCall': {
          const fc = obj(part['functionCall']);
          if (fc !== undefined) this.functionCall(fc, index);
          else leftover = true;
          break;
        }
        default:
          // executableCode, codeExecutionResult, fileData…
          leftover = true;
      }
    }
    return leftover;
  }

  private toolCall(toolCall: JsonObject): void {
    const calls = arrOf(toolCall['functionCalls']);
    for (let i = 0; i < calls.length; i++) {
      const fc = obj(calls[i]);
      if (fc !== undefined) this.functionCall(fc, i);
    }
  }

  /** A whole call: start, one delta holding all the arguments, done. */
  private functionCall(fc: JsonObject, index: number): void {
    const id = str(fc['id']) || `call_${this.calls}`;
    this.calls++;
    const name = str(fc['name']) ?? '';
    const args = fc['args'] === undefined ? '' : JSON.stringify(fc['args']);
    this.toolPending = true;
    this.emit({ type: 'tool_call_start', index, id, name });
    if (args !== '') this.emit({ type: 'tool_call_delta', index, id, argumentsDelta: args });
    this.emit({ type: 'tool_call_done', index, id, name, arguments: args });
  }

  private terminal(sc: JsonObject): void {
    const interrupted = sc['interrupted'] === true;
    const complete = sc['turnComplete'] === true;
    if (!complete && !interrupted) return;
    // Until the interrupted turn's own turnComplete, what follows is residue.
    if (interrupted && !complete) this.session.residue = true;
    if (!this.isStarted) return;
    if (this.usage !== undefined) this.ctx.emit(this.usage);
    if (interrupted) this.ctx.emit(doneEvent('other', 'interrupted'));
    else this.ctx.emit(doneEvent(this.toolPending ? 'tool_use' : 'end', str(sc['turnCompleteReason']) ?? null));
  }
}

function arrOf(v: Json | undefined): Json[] {
  return Array.isArray(v) ? v : EMPTY;
}

const EMPTY: Json[] = [];

/**
 * `responseTokenCount` (Live's name; `candidatesTokenCount` elsewhere) excludes
 * thinking: outputTokens adds `thoughtsTokenCount`, as for generateContent.
 */
function liveUsage(u: JsonObject): UsageEvent {
  const prompt = num(u['promptTokenCount']);
  const toolPrompt = num(u['toolUsePromptTokenCount']);
  const response = num(u['responseTokenCount']) ?? num(u['candidatesTokenCount']);
  const thoughts = num(u['thoughtsTokenCount']);
  const input = sum(prompt, toolPrompt);
  const output = sum(response, thoughts);
  return usageEvent(
    {
      inputTokens: input,
      outputTokens: output,
      totalTokens: num(u['totalTokenCount']) ?? sum(input, output),
      reasoningTokens: thoughts ?? null,
      cachedInputTokens: num(u['cachedContentTokenCount']) ?? null,
    },
    u,
  );
}

/** The usage of several usageMetadata deltas: their counts added up; `raw` is the list as received. */
function summedUsage(list: JsonObject[]): UsageEvent {
  const total: JsonObject = {};
  for (const u of list) {
    for (const k in u) {
      const n = num(u[k]);
      if (n !== undefined) total[k] = (num(total[k]) ?? 0) + n;
    }
  }
  const ev = liveUsage(total);
  ev.raw = list;
  return ev;
}

/** The top-level keys of Live's server messages (generateContent never has them). */
const LIVE_KEYS = ['setupComplete', 'serverContent', 'toolCall', 'toolCallCancellation', 'goAway', 'sessionResumptionUpdate', 'filteredPrompt'];

export const geminiLive = defineDialect({
  name: 'gemini-live',
  family: 'live',
  // Listed before gemini: Live sends usageMetadata next to serverContent.
  detect: (payload) => !isKeepAlive(payload) && LIVE_KEYS.some((k) => k in payload),
  readsClientMessages: true,
  session: true,
  createResponse(ctx) {
    return new LiveTurn(ctx, sessionOf(ctx));
  },
});
