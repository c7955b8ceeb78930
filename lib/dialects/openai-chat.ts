/**
 * OpenAI Chat Completions (`chat.completion.chunk` objects in data-only SSE,
 * ended by `data: [DONE]`) → unified events. The same code serves xAI Chat and
 * the OpenAI-compatible endpoints (Azure, OpenRouter, Groq, DeepSeek…): only
 * the usage semantics differ per provider (see `ChatDialectOptions`).
 */
import type {
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
}

const INCOMPLETE_MESSAGE = "input ended before the response's terminal event";

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
    const error = payload['error'];
    if (error !== undefined && error !== null && error !== false) {
      this.onError(payload, error);
      return;
    }
    if (!this.produced) this.ctx.emit({ type: 'raw', event: payload });
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
    for (const k of this.otherChoices()) {
      const c = this.choices.get(k)!;
      this.closeCalls(c);
      this.emitDone(finishDone(c), k);
    }
    const c0 = this.first;
    if (c0 !== null) this.closeCalls(c0);
    // Choice 0's done comes last: it closes the response.
    this.emitDone(c0 === null ? doneEvent('end', null) : finishDone(c0), 0);
  }

  onIncomplete(): void {
    this.ensureStart();
    // Calls never closed by a finish_reason are closed here (arguments may be cut
    // short: the accumulator's JSON check reports that).
    const ks = this.otherChoices();
    for (const k of ks) this.closeCalls(this.choices.get(k)!);
    if (this.first !== null) this.closeCalls(this.first);
    if (ks.length === 0) return; // the normalizer reports incomplete_stream and emits done
    // n > 1: every choice owes a done, so the whole ending is emitted here
    // (a choice-k done would otherwise end the response in the normalizer).
    this.ctx.emit(errorEvent('incomplete_stream', INCOMPLETE_MESSAGE, true));
    for (const k of ks) this.emitDone(doneEvent('error', this.choices.get(k)!.finishReason), k);
    this.emitDone(doneEvent('error', this.first?.finishReason ?? null), 0);
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
      const content = str(delta['content']);
      if (content !== undefined && content !== '') this.textDelta(k, this.textIndex(k), false, content);
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
    }
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
    const ks = this.otherChoices();
    for (const k of ks) this.closeCalls(this.choices.get(k)!);
    if (this.first !== null) this.closeCalls(this.first);
    // No forced `start` here: an error as the first payload (a plain error body)
    // gives error + done, as the normalizer does for it under `auto`.
    this.ctx.emit(errorEvent(err.code, err.message, true, payload));
    for (const k of ks) this.emitDone(doneEvent('error', this.choices.get(k)!.finishReason), k);
    this.emitDone(doneEvent('error', this.first?.finishReason ?? null), 0);
  }

  // ---- helpers ----

  private choice(k: number): Choice {
    if (k === 0 && this.first !== null) return this.first;
    let c = this.choices.get(k);
    if (c === undefined) {
      c = { k, calls: null, open: [], hadToolCalls: false, finishReason: null };
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

  /** Unlike `out`, forces no `start`: see onError. */
  private emitDone(ev: DoneEvent, k: number): void {
    if (k !== 0) ev.choice = k;
    this.ctx.emit(ev);
  }
}

function nonEmpty(v: Json | undefined): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
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
