/**
 * OpenAI Chat Completions (`chat.completion.chunk` objects in data-only SSE,
 * ended by `data: [DONE]`) → unified events. The same code serves xAI Chat and
 * the OpenAI-compatible endpoints (Azure, OpenRouter, Groq, DeepSeek, Mistral,
 * Perplexity, Hugging Face…): only the usage semantics differ per provider
 * (see `ChatDialectOptions`).
 *
 * - `n > 1`: events of choice k > 0 carry `choice: k`; the response ends with
 *   ONE `done` (choice 0's stop reason) whose `choices` lists every choice's.
 * - A stream that stops without `[DONE]` after every choice's finish_reason
 *   (Hugging Face TGI before 2.2, other compatible servers) is complete: a
 *   non-terminal `missing_terminal` error, then the done of those reasons.
 *   Stopped before that, it is `incomplete_stream`.
 * - Mistral reasoning models send `delta.content` as an array of parts:
 *   `{type:'text', text}` → text, `{type:'thinking', thinking:[{type:'text',
 *   text}…]}` → reasoning; any other part leaves the chunk as `raw` too.
 * - Citations (on the choice's one text block, index 0): OpenAI search models'
 *   `annotations` `{type:'url_citation', url_citation:{url, title,
 *   start_index, end_index}}` (in `delta`, or `message`), offsets passed on as
 *   given (OpenAI's character indexes into the choice's content, not
 *   converted); xAI Live Search `citations` (URLs, on the last chunk) and
 *   Perplexity `citations` / `search_results` (on every chunk), top-level, so
 *   choice 0's. Each citation is emitted once: repeats are dropped, and a
 *   URL already cited by a search result is not cited again by `citations`.
 * - No provider-executed tools: every `tool_calls` entry is the client's.
 */
import type {
  CitationEvent,
  DoneChoice,
  DoneEvent,
  Json,
  JsonObject,
  StopReason,
  UnifiedEvent,
} from '../events.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, providerError, str, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

export interface ChatDialectOptions {
  /**
   * True when `completion_tokens` EXCLUDES `reasoning_tokens` (xAI), so
   * outputTokens = completion + reasoning. OpenAI's already includes them.
   * Only the fallback: a `total_tokens` that proves one reading wins.
   */
  completionExcludesReasoning: boolean;
}

/** One `tool_calls[]` entry being assembled. */
export interface ChatToolCall {
  /** `tool_calls[].index` (the event `index`). */
  readonly index: number;
  readonly id: string;
  /** The id was made up (`call_<index>`): a later provider id does not start a new call. */
  readonly synthetic: boolean;
  name: string;
  parts: string[];
  open: boolean;
}

/** State of one choice (`choices[].index`; n > 1 interleaves them). */
interface Choice {
  readonly k: number;
  /** Latest call per `tool_calls[].index`; null until the first call. */
  calls: Map<number, ChatToolCall> | null;
  /** Started, not yet done, in start order. */
  open: ChatToolCall[];
  hadToolCalls: boolean;
  finishReason: string | null;
  /** Keys of the citations emitted for this choice (each once); null until the first. */
  cited: Set<string> | null;
}

const INCOMPLETE_MESSAGE = "input ended before the response's terminal event";
const MISSING_TERMINAL_MESSAGE = "the stream ended without `data: [DONE]` after every choice's finish_reason: the response is complete";

/** A Chat Completions dialect's `createResponse`: a new handler per response, reading usage as `options` say. */
export function chatHandlers(options: ChatDialectOptions): (ctx: DialectContext) => ChatResponse {
  const excludes = options.completionExcludesReasoning;
  return (ctx) => new ChatResponse(ctx, excludes);
}

/**
 * A Chat Completions chunk: `object: 'chat.completion.chunk'`, or a `choices`
 * array (Azure's first chunk has an empty id, model and object).
 */
export function isChatChunk(payload: JsonObject): boolean {
  return payload['object'] === 'chat.completion.chunk' || Array.isArray(payload['choices']);
}

export const openaiChat = defineDialect({
  name: 'openai-chat',
  family: 'chat',
  // Every chunk: xai-chat, before it in the registry, has taken those of a grok model.
  detect: isChatChunk,
  doneSentinel: true,
  createResponse: chatHandlers({ completionExcludesReasoning: false }),
});

/**
 * One Chat Completions response. Its delta mapping (textIndex, textDelta,
 * openCall, argsDelta) is what both the parse path (onChoice) and the
 * template path (lib/fast/dialects/openai-chat.ts) go through.
 */
export class ChatResponse implements ResponseHandler {
  started = false;
  /** `start` went out (read-only outside: the template path waits for it, as it cannot read an id or model). */
  startEmitted = false;
  /** Whether the payload being handled produced an event other than `start` (read by onPayload only, which resets it). */
  private produced = false;
  /** Part of the payload being handled was not understood: the payload goes out as `raw` too, so nothing is lost. */
  private unread = false;
  private first: Choice | null = null;
  private readonly choices = new Map<number, Choice>();

  constructor(
    private readonly ctx: DialectContext,
    private readonly excludes: boolean,
  ) {}

  onPayload(payload: Json): void {
    this.started = true;
    if (!isObject(payload)) {
      this.ctx.emit({ type: 'raw', event: payload });
      return;
    }
    this.produced = false;
    this.unread = false;
    if (!this.startEmitted) {
      // Azure's first chunk has empty id/model: start waits for a chunk that has them.
      const id = nonEmpty(payload['id']);
      const model = nonEmpty(payload['model']);
      if (id !== null || model !== null) this.emitStart(id, model);
    }
    const choices = arr(payload['choices']);
    if (choices !== undefined) {
      for (let i = 0; i < choices.length; i++) {
        const c = obj(choices[i]);
        if (c !== undefined) this.onChoice(c, i);
      }
    }
    // `"usage": null` on ordinary chunks is skipped by obj(); some compat servers
    // put the usage on the last chunk that still has choices; Groq may put it
    // in `x_groq.usage` only.
    let usage = obj(payload['usage']);
    if (usage === undefined && payload['x_groq'] !== undefined) usage = obj(obj(payload['x_groq'])?.['usage']);
    if (usage !== undefined) this.onUsage(usage);
    // Perplexity's search_results (url, title) before the bare URLs of `citations` (Perplexity, xAI).
    const results = payload['search_results'];
    if (results !== undefined && results !== null) this.onSources(results);
    const citations = payload['citations'];
    if (citations !== undefined && citations !== null) this.onSources(citations);
    const error = payload['error'];
    if (error !== undefined && error !== null && error !== false) {
      this.onError(payload, error);
      return;
    }
    if (!this.produced || this.unread) this.ctx.emit({ type: 'raw', event: payload });
  }

  // ---- the delta mapping ----

  /** A text or reasoning delta of choice k is coming: the choice is known from now on; its block's index (Chat has one: 0). */
  textIndex(k: number): number {
    this.choice(k);
    return 0;
  }

  /** A text (reasoning: reasoning) delta of choice k, not empty, of the block textIndex gave. */
  textDelta(k: number, index: number, reasoning: boolean, text: string): void {
    this.out(reasoning ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text }, k);
  }

  /** Choice k's call at tool index `index` while it is open (its argument fragments are deltas); else undefined. */
  openCall(k: number, index: number): ChatToolCall | undefined {
    const choice = k === 0 ? this.first : this.choices.get(k);
    const call = choice?.calls?.get(index);
    return call !== undefined && call.open ? call : undefined;
  }

  /** An argument fragment, not empty, of choice k's open call: kept for its tool_call_done, and emitted. */
  argsDelta(k: number, call: ChatToolCall, args: string): void {
    call.parts.push(args);
    this.out({ type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: args }, k);
  }

  onDoneSentinel(): void {
    this.ensureStart();
    this.closeAllCalls();
    this.ctx.emit(this.done(false));
  }

  onIncomplete(): void {
    this.ensureStart();
    // Calls never closed by a finish_reason are closed here (arguments may be cut
    // short: the accumulator's JSON check reports that).
    this.closeAllCalls();
    if (this.choices.size > 0 && this.allFinished()) {
      // Every choice said how it finished: complete, only the sentinel is missing.
      this.ctx.emit(errorEvent('missing_terminal', MISSING_TERMINAL_MESSAGE, false));
      this.ctx.emit(this.done(false));
      return;
    }
    // Cut off: the normalizer reports incomplete_stream and emits done(error), unless
    // several choices owe their stop reasons to the one done.
    if (this.otherChoices().length === 0) return;
    this.ctx.emit(errorEvent('incomplete_stream', INCOMPLETE_MESSAGE, true));
    this.ctx.emit(this.done(true));
  }

  // ---- payload parts ----

  private onChoice(c: JsonObject, pos: number): void {
    const ci = c['index'];
    const k = typeof ci === 'number' && Number.isInteger(ci) && ci >= 0 ? ci : pos;
    const choice = this.choice(k);
    const delta = obj(c['delta']);
    if (delta !== undefined) {
      // DeepSeek/xAI `reasoning_content`; OpenRouter/Groq/vLLM `reasoning`. Servers
      // that send both send the same text twice, so only one is used.
      let reasoning = str(delta['reasoning_content']);
      if (reasoning === undefined || reasoning === '') reasoning = str(delta['reasoning']);
      if (reasoning !== undefined && reasoning !== '') this.textDelta(k, this.textIndex(k), true, reasoning);
      const content = delta['content'];
      if (typeof content === 'string') {
        if (content !== '') this.textDelta(k, this.textIndex(k), false, content);
      } else if (Array.isArray(content)) this.onContentParts(k, content);
      else if (content !== undefined && content !== null) this.unread = true;
      const refusal = str(delta['refusal']);
      if (refusal !== undefined && refusal !== '') {
        this.out({ type: 'text_delta', index: 0, text: refusal, refusal: true }, k);
      }
      const toolCalls = arr(delta['tool_calls']);
      if (toolCalls !== undefined) {
        for (let j = 0; j < toolCalls.length; j++) {
          const tc = obj(toolCalls[j]);
          if (tc !== undefined) this.onToolFragment(choice, tc['index'], tc['id'], obj(tc['function']), j);
        }
      } else {
        // Legacy `functions` API: one call, no id, finish_reason `function_call`.
        const fc = obj(delta['function_call']);
        if (fc !== undefined) this.onToolFragment(choice, 0, undefined, fc, 0);
      }
      const annotations = delta['annotations'];
      if (annotations !== undefined && annotations !== null) this.onAnnotations(choice, annotations);
    }
    // A whole `message` (some compatible servers repeat it on chunks): only its annotations are read.
    const message = obj(c['message']);
    const annotations = message?.['annotations'];
    if (annotations !== undefined && annotations !== null) this.onAnnotations(choice, annotations);
    const finish = str(c['finish_reason']);
    if (finish !== undefined && finish !== '') {
      choice.finishReason = finish;
      this.closeCalls(choice);
    }
  }

  private onToolFragment(
    choice: Choice,
    indexValue: Json | undefined,
    idValue: Json | undefined,
    fn: JsonObject | undefined,
    pos: number,
  ): void {
    const index = typeof indexValue === 'number' && Number.isInteger(indexValue) ? indexValue : pos;
    const id = nonEmpty(idValue);
    const name = fn === undefined ? null : nonEmpty(fn['name']);
    // `arguments: null` (compat servers) is no fragment.
    const args = fn === undefined ? undefined : str(fn['arguments']);
    const calls = (choice.calls ??= new Map());
    let call = calls.get(index);
    if (call === undefined || (id !== null && id !== call.id && !call.synthetic)) {
      // First sight of this index, or a new id there. OpenRouter repeats the same
      // id and name on every fragment: that is the same call, not a new one.
      if (call !== undefined && call.open) this.closeCall(choice, call);
      call = {
        index,
        id: id ?? `call_${index}`,
        synthetic: id === null,
        name: name ?? '',
        parts: [],
        open: true,
      };
      calls.set(index, call);
      choice.open.push(call);
      choice.hadToolCalls = true;
      this.out({ type: 'tool_call_start', index, id: call.id, name: call.name }, choice.k);
    } else if (!call.open) {
      return; // a fragment after finish_reason closed the call: left to `raw`
    } else if (call.name === '' && name !== null) {
      call.name = name;
    }
    if (args !== undefined && args !== '') this.argsDelta(choice.k, call, args);
  }

  /** Mistral's `delta.content` array: text parts are text, thinking parts' text is reasoning. */
  private onContentParts(k: number, parts: Json[]): void {
    for (let i = 0; i < parts.length; i++) {
      const part = obj(parts[i]);
      const type = part?.['type'];
      if (type === 'text') {
        const text = str(part!['text']);
        if (text === undefined) this.unread = true;
        else if (text !== '') this.textDelta(k, this.textIndex(k), false, text);
      } else if (type === 'thinking') {
        const inner = arr(part!['thinking']);
        if (inner === undefined) {
          this.unread = true;
          continue;
        }
        for (let j = 0; j < inner.length; j++) {
          const t = obj(inner[j]);
          const text = t?.['type'] === 'text' ? str(t['text']) : undefined;
          if (text === undefined) this.unread = true; // a reference chunk, say
          else if (text !== '') this.textDelta(k, this.textIndex(k), true, text);
        }
      } else this.unread = true;
    }
  }

  /** `annotations`: url_citation entries, nested (OpenAI) or flat (some compatible servers). */
  private onAnnotations(choice: Choice, value: Json): void {
    const list = arr(value);
    if (list === undefined) {
      this.unread = true;
      return;
    }
    for (let i = 0; i < list.length; i++) {
      const a = obj(list[i]);
      const c = a === undefined || a['type'] !== 'url_citation' ? undefined : (obj(a['url_citation']) ?? a);
      const url = c === undefined ? undefined : str(c['url']);
      if (url === undefined || url === '') {
        this.unread = true;
        continue;
      }
      const title = str(c!['title']);
      const start = offset(c!['start_index']);
      const end = offset(c!['end_index']);
      const ev: CitationEvent = { type: 'citation', index: this.textIndex(choice.k), url, raw: list[i]! };
      if (title !== undefined) ev.title = title;
      if (start !== undefined) ev.start = start;
      if (end !== undefined) ev.end = end;
      this.cite(choice, JSON.stringify([url, title, start, end]), ev);
    }
  }

  /** Top-level `citations` (URLs) or `search_results` (`{url, title, …}`): choice 0's. */
  private onSources(value: Json): void {
    const list = arr(value);
    if (list === undefined) {
      this.unread = true;
      return;
    }
    for (let i = 0; i < list.length; i++) {
      const item = list[i]!;
      const o = obj(item);
      const url = typeof item === 'string' ? item : o === undefined ? undefined : str(o['url']);
      if (url === undefined || url === '') {
        this.unread = true;
        continue;
      }
      const ev: CitationEvent = { type: 'citation', index: this.textIndex(0), url, raw: item };
      const title = o === undefined ? undefined : str(o['title']);
      if (title !== undefined) ev.title = title;
      this.cite(this.choice(0), url, ev);
    }
  }

  /** Emits a citation unless one of the same key was already emitted for this choice (providers repeat them on every chunk). */
  private cite(choice: Choice, key: string, ev: CitationEvent): void {
    const cited = (choice.cited ??= new Set());
    if (cited.has(key)) return;
    cited.add(key);
    this.out(ev, choice.k);
  }

  private onUsage(u: JsonObject): void {
    const input = num(u['prompt_tokens']) ?? null;
    const completion = num(u['completion_tokens']);
    const reasoning = num(obj(u['completion_tokens_details'])?.['reasoning_tokens']);
    const total = num(u['total_tokens']);
    const cached = num(obj(u['prompt_tokens_details'])?.['cached_tokens']) ?? num(u['prompt_cache_hit_tokens']) ?? null;
    const output = outputTokens(input, completion, reasoning, total, this.excludes);
    this.out(
      usageEvent(
        {
          inputTokens: input,
          outputTokens: output,
          totalTokens: total ?? (input !== null && output !== null ? input + output : null),
          reasoningTokens: reasoning ?? null,
          cachedInputTokens: cached,
        },
        u,
      ),
      0,
    );
  }

  /**
   * An error chunk (OpenRouter: top-level `error` in a normal chunk; Groq:
   * `{"error":{…}}` under `event: error`) ends the response. The error wins over
   * any finish_reason seen before it: stopReason `error`, while providerReason
   * keeps that finish_reason (e.g. `length`) as the provider's own word.
   */
  private onError(payload: JsonObject, error: Json): void {
    const err = providerError(payload) ?? {
      code: 'provider_error',
      message: typeof error === 'string' ? error : 'provider error',
    };
    this.closeAllCalls();
    // No forced `start` here: an error as the first payload (a plain error body)
    // gives error + done, as the normalizer does for it under `auto`.
    this.ctx.emit(errorEvent(err.code, err.message, true, payload));
    this.ctx.emit(this.done(true));
  }

  /**
   * The response's one `done`: choice 0's stop reason (`error` when `failed`,
   * keeping the finish_reason seen as providerReason), and with several
   * choices every choice's in `choices`.
   */
  private done(failed: boolean): DoneEvent {
    const c0 = this.first;
    const ev = stopOf(c0, failed);
    const ks = this.otherChoices();
    if (ks.length === 0) return ev;
    const stops: DoneChoice[] = [];
    if (c0 !== null) stops.push({ choice: 0, stopReason: ev.stopReason, providerReason: ev.providerReason });
    for (const k of ks) {
      const d = stopOf(this.choices.get(k)!, failed);
      stops.push({ choice: k, stopReason: d.stopReason, providerReason: d.providerReason });
    }
    ev.choices = stops;
    return ev;
  }

  /** True when every choice seen has its finish_reason. */
  private allFinished(): boolean {
    for (const c of this.choices.values()) if (c.finishReason === null) return false;
    return true;
  }

  /** Closes the open calls of every choice, choices k > 0 first (in order), then choice 0. */
  private closeAllCalls(): void {
    for (const k of this.otherChoices()) this.closeCalls(this.choices.get(k)!);
    if (this.first !== null) this.closeCalls(this.first);
  }

  // ---- helpers ----

  private choice(k: number): Choice {
    if (k === 0 && this.first !== null) return this.first;
    let c = this.choices.get(k);
    if (c === undefined) {
      c = { k, calls: null, open: [], hadToolCalls: false, finishReason: null, cited: null };
      this.choices.set(k, c);
      if (k === 0) this.first = c;
    }
    return c;
  }

  /** Choice indexes other than 0, ascending. */
  private otherChoices(): number[] {
    const ks: number[] = [];
    for (const k of this.choices.keys()) if (k !== 0) ks.push(k);
    return ks.length > 1 ? ks.sort((a, b) => a - b) : ks;
  }

  private closeCalls(choice: Choice): void {
    const open = choice.open;
    if (open.length === 0) return;
    for (let i = 0; i < open.length; i++) this.emitCallDone(choice, open[i]!);
    open.length = 0;
  }

  private closeCall(choice: Choice, call: ChatToolCall): void {
    const i = choice.open.indexOf(call);
    if (i >= 0) choice.open.splice(i, 1);
    this.emitCallDone(choice, call);
  }

  private emitCallDone(choice: Choice, call: ChatToolCall): void {
    call.open = false;
    const parts = call.parts;
    const args = parts.length === 1 ? parts[0]! : parts.join('');
    call.parts = [];
    this.out({ type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: args }, choice.k);
  }

  private emitStart(id: string | null, model: string | null): void {
    this.startEmitted = true;
    this.ctx.emit({ type: 'start', id, model });
  }

  /** `start` precedes the first event that is not `raw`; {null, null} when no chunk had an id or model. */
  private ensureStart(): void {
    if (!this.startEmitted) this.emitStart(null, null);
  }

  private out(ev: UnifiedEvent, k: number): void {
    if (!this.startEmitted) this.emitStart(null, null);
    if (k !== 0) ev.choice = k;
    this.produced = true;
    this.ctx.emit(ev);
  }
}

function nonEmpty(v: Json | undefined): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** A citation offset: a non-negative integer, else none. */
function offset(v: Json | undefined): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/** How a choice stopped (choice null: no choice was seen): its finish_reason, or `error` when the response failed. */
function stopOf(c: Choice | null, failed: boolean): DoneEvent {
  if (failed) return doneEvent('error', c?.finishReason ?? null);
  return c === null ? doneEvent('end', null) : finishDone(c);
}

/** finish_reason → done; a missing one means tool_use when the choice made calls, else end. */
function finishDone(c: Choice): DoneEvent {
  const reason = c.finishReason;
  if (reason === null) return doneEvent(c.hadToolCalls ? 'tool_use' : 'end', null);
  return doneEvent(stopReasonOf(reason, c.hadToolCalls), reason);
}

function stopReasonOf(reason: string, hadToolCalls: boolean): StopReason {
  switch (reason) {
    case 'stop':
      // Some compat servers (Ollama, older vLLM) say `stop` after tool calls.
      return hadToolCalls ? 'tool_use' : 'end';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

/**
 * Every generated token, reasoning included. When `total_tokens` matches
 * exactly one reading of `completion_tokens` (with or without the reasoning
 * tokens) that reading is used; otherwise the provider's documented one.
 */
function outputTokens(
  input: number | null,
  completion: number | undefined,
  reasoning: number | undefined,
  total: number | undefined,
  excludes: boolean,
): number | null {
  if (completion === undefined) return null;
  if (reasoning === undefined || reasoning === 0) return completion;
  if (total !== undefined && input !== null) {
    if (input + completion === total) return completion;
    if (input + completion + reasoning === total) return completion + reasoning;
  }
  return excludes ? completion + reasoning : completion;
}
