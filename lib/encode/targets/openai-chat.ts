/**
 * Unified events → OpenAI Chat Completions chunks (`data: {…}` … `data: [DONE]`).
 *
 * - The finish chunk is written at `done`, when the usage is final, followed
 *   by the usage-only chunk (`choices: []`) and `[DONE]`, as OpenAI does with
 *   `stream_options.include_usage`.
 * - Tool calls get the choice's next `tool_calls[].index` at their start;
 *   arguments stream as deltas, and `tool_call_done`'s authoritative text
 *   completes them.
 * - Refusal text goes to `delta.refusal`. Reasoning, signatures, hosted tool
 *   calls and results, files, audio and citations have no place on this wire:
 *   they are reported lost.
 * - Choices: `choice` k is written as `choices[].index` k.
 */
import { assertNever, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { defineTarget, sseData, type TargetContext, type TargetResponse } from '../target.js';
import { loseNotice } from '../notices.js';

const FINISH: Record<StopReason, string | null> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  error: null,
  other: null,
};

const NATIVE_FINISH = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

interface ChoiceState {
  started: boolean;
  refused: boolean;
  /** Call id → its tool_calls index and the argument text written so far. */
  calls: Map<string, { index: number; written: string }>;
}

/** Unknown counts are left out rather than written as 0 (a reader then sees them as unknown). */
function chatUsage(u: UsageEvent): JsonObject {
  const out: JsonObject = {};
  if (u.inputTokens !== null) out['prompt_tokens'] = u.inputTokens;
  if (u.outputTokens !== null) out['completion_tokens'] = u.outputTokens;
  const total = u.totalTokens ?? (u.inputTokens !== null && u.outputTokens !== null ? u.inputTokens + u.outputTokens : null);
  if (total !== null) out['total_tokens'] = total;
  if (u.cachedInputTokens !== null) out['prompt_tokens_details'] = { cached_tokens: u.cachedInputTokens };
  if (u.reasoningTokens !== null) out['completion_tokens_details'] = { reasoning_tokens: u.reasoningTokens };
  return out;
}

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response, and a closure each of its steps per response costs an allocation each (and, where the
 * code runs through a transform that keeps function names, as tsx does, a defineProperty each).
 */
class ChatResponse implements TargetResponse {
  private id = 'chatcmpl-wirefold';
  private model = 'unknown';
  private sameFamily = false;
  private readonly created = Math.floor(Date.now() / 1000);
  private usage: UsageEvent | null = null;
  private readonly choices: ChoiceState[] = [];
  private ended = false;

  /** The chunk's fields before `choices`, as JSON text (kept until the start event changes them). */
  private head: string | null = null;

  constructor(private readonly ctx: TargetContext) {}

  private chunk(choiceList: JsonObject[], extra?: JsonObject): void {
    this.ctx.write(sseData({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: choiceList, ...extra }));
  }

  private choice(k: number): ChoiceState {
    let c = this.choices[k];
    if (c === undefined) {
      while (this.choices.length <= k) this.choices.push({ started: false, refused: false, calls: new Map() });
      c = this.choices[k] as ChoiceState;
    }
    if (!c.started) {
      c.started = true;
      this.chunk([{ index: k, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    }
    return c;
  }

  private deltaChunk(k: number, d: JsonObject): void {
    this.chunk([{ index: k, delta: d, logprobs: null, finish_reason: null }]);
  }


  /**
   * A delta of one string field (content, refusal): the bulk of every stream, written around the
   * string's JSON alone; the same bytes as `delta`.
   */
  private stringDelta(k: number, key: string, value: string): void {
    this.head ??= `data: {"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(this.model)},"choices":[{"index":`;
    this.ctx.writeText(`${this.head}${k},"delta":{"${key}":"`, value, '"},"logprobs":null,"finish_reason":null}]}\n\n');
  }

  private toolCall(k: number, callId: string, name: string): { index: number; written: string } {
    const c = this.choice(k);
    let call = c.calls.get(callId);
    if (call === undefined) {
      call = { index: c.calls.size, written: '' };
      c.calls.set(callId, call);
      this.deltaChunk(k, { tool_calls: [{ index: call.index, id: callId, type: 'function', function: { name, arguments: '' } }] });
    }
    return call;
  }

  private args(k: number, call: { index: number; written: string }, text: string): void {
    call.written += text;
    this.deltaChunk(k, { tool_calls: [{ index: call.index, function: { arguments: text } }] });
  }

  private writeError(code: string, message: string): void {
    this.ended = true;
    this.ctx.write(sseData({ error: { message, type: code, code } }));
  }

  private finishReason(stopReason: StopReason, providerReason: string | null, k: number): string {
    if (this.sameFamily && providerReason !== null && NATIVE_FINISH.has(providerReason)) return providerReason;
    if (stopReason === 'refusal' && this.choices[k]?.refused === true) return 'stop';
    const reason = FINISH[stopReason];
    if (reason !== null) return reason;
    this.ctx.lose('stop_reason', `${stopReason}${providerReason === null ? '' : ` (${providerReason})`} written as stop`);
    return 'stop';
  }

  push(ev: UnifiedEvent): void {
    if (this.ended) return;
    const k = ev.choice ?? 0;
    switch (ev.type) {
      case 'start':
        if (ev.id !== null && ev.id !== '') this.id = ev.id;
        if (ev.model !== null) this.model = ev.model;
        this.head = null;
        this.sameFamily = ev.dialect === 'openai-chat' || ev.dialect === 'xai-chat';
        this.choice(0);
        return;
      case 'text_delta':
        this.choice(k);
        if (ev.refusal === true) {
          (this.choices[k] as ChoiceState).refused = true;
          this.stringDelta(k, 'refusal', ev.text);
        } else this.stringDelta(k, 'content', ev.text);
        return;
      case 'reasoning_delta':
        this.ctx.lose('reasoning', 'reasoning text (the Chat wire has no place for it)');
        return;
      case 'signature':
        this.ctx.lose('signature', `a ${ev.kind}`);
        return;
      case 'tool_call_start':
        if (ev.providerExecuted === true) this.ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        else this.toolCall(k, ev.id, ev.name);
        return;
      case 'tool_call_delta':
        if (ev.providerExecuted !== true && ev.argumentsDelta.length > 0) this.args(k, this.toolCall(k, ev.id, ''), ev.argumentsDelta);
        return;
      case 'tool_call_done': {
        if (ev.providerExecuted === true) return;
        const call = this.toolCall(k, ev.id, ev.name);
        if (ev.arguments.startsWith(call.written)) {
          const rest = ev.arguments.slice(call.written.length);
          if (rest.length > 0) this.args(k, call, rest);
        }
        return;
      }
      case 'tool_result':
        this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation':
        this.ctx.lose('citation', ev.url ?? ev.source ?? ev.title ?? 'a citation');
        return;
      case 'file':
        if (ev.partial !== true) this.ctx.lose('file', `a ${ev.mimeType ?? 'file'} of ${ev.data.length} base64 characters`);
        return;
      case 'audio_delta':
        this.ctx.lose('audio', `${ev.mimeType ?? 'audio'} deltas`);
        return;
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        if (ev.terminal) {
          // the usage so far still bills the request
          if (this.usage !== null) this.chunk([], { usage: chatUsage(this.usage) });
          this.writeError(ev.code, ev.message);
        }
        else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done': {
        if (ev.stopReason === 'error') {
          // the usage so far still bills the request
          if (this.usage !== null) this.chunk([], { usage: chatUsage(this.usage) });
          this.writeError('api_error', `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}`);
          return;
        }
        // every choice gets its finish chunk (n > 1: done.choices; a per-choice done of other readers)
        const stops = ev.choices ?? [{ choice: k, stopReason: ev.stopReason, providerReason: ev.providerReason }];
        for (const c of stops) {
          this.choice(c.choice);
          this.chunk([{ index: c.choice, delta: {}, logprobs: null, finish_reason: this.finishReason(c.stopReason, c.providerReason, c.choice) }]);
        }
        if (k !== 0) return; // the response ends with choice 0's done
        if (this.usage !== null) this.chunk([], { usage: chatUsage(this.usage) });
        this.ctx.write('data: [DONE]\n\n');
        this.ended = true;
        return;
      }
      case 'raw':
      case 'session':
      case 'steer':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        loseNotice(ev, this.ctx);
        return;
      default:
        assertNever(ev);
    }
  }

  readonly rawDeltas = 'all';

  abort(): void {
    if (this.ended) return;
    if (this.usage !== null) this.chunk([], { usage: chatUsage(this.usage) });
    this.writeError('api_error', 'the source stream ended before the response was done');
  }
}

function createResponse(ctx: TargetContext): TargetResponse {
  return new ChatResponse(ctx);
}

export const openaiChatTarget = defineTarget({
  name: 'openai-chat',
  contentType: 'text/event-stream',
  family: ['openai-chat', 'xai-chat'],
  passThrough: { dialects: ['openai-chat', 'xai-chat'], framing: 'sse' },
  createResponse,
  writeError(ev, ctx) {
    ctx.write(sseData({ error: { message: ev.message, type: ev.code, code: ev.code } }));
  },
});
