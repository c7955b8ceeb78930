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

function createResponse(ctx: TargetContext): TargetResponse {
  let id = 'chatcmpl-wirefold';
  let model = 'unknown';
  let sameFamily = false;
  const created = Math.floor(Date.now() / 1000);
  let usage: UsageEvent | null = null;
  const choices: ChoiceState[] = [];
  let ended = false;

  function chunk(choiceList: JsonObject[], extra?: JsonObject): void {
    ctx.write(sseData({ id, object: 'chat.completion.chunk', created, model, choices: choiceList, ...extra }));
  }

  function choice(k: number): ChoiceState {
    let c = choices[k];
    if (c === undefined) {
      while (choices.length <= k) choices.push({ started: false, refused: false, calls: new Map() });
      c = choices[k] as ChoiceState;
    }
    if (!c.started) {
      c.started = true;
      chunk([{ index: k, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    }
    return c;
  }

  function delta(k: number, d: JsonObject): void {
    chunk([{ index: k, delta: d, logprobs: null, finish_reason: null }]);
  }

  /** The chunk's fields before `choices`, as JSON text (kept until the start event changes them). */
  let head: string | null = null;

  /**
   * A delta of one string field (content, refusal): the bulk of every stream, written around the
   * string's JSON alone; the same bytes as `delta`.
   */
  function stringDelta(k: number, key: string, value: string): void {
    head ??= `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"choices":[{"index":`;
    ctx.writeText(`${head}${k},"delta":{"${key}":"`, value, '"},"logprobs":null,"finish_reason":null}]}\n\n');
  }

  function toolCall(k: number, callId: string, name: string): { index: number; written: string } {
    const c = choice(k);
    let call = c.calls.get(callId);
    if (call === undefined) {
      call = { index: c.calls.size, written: '' };
      c.calls.set(callId, call);
      delta(k, { tool_calls: [{ index: call.index, id: callId, type: 'function', function: { name, arguments: '' } }] });
    }
    return call;
  }

  function args(k: number, call: { index: number; written: string }, text: string): void {
    call.written += text;
    delta(k, { tool_calls: [{ index: call.index, function: { arguments: text } }] });
  }

  function writeError(code: string, message: string): void {
    ended = true;
    ctx.write(sseData({ error: { message, type: code, code } }));
  }

  function finishReason(stopReason: StopReason, providerReason: string | null, k: number): string {
    if (sameFamily && providerReason !== null && NATIVE_FINISH.has(providerReason)) return providerReason;
    if (stopReason === 'refusal' && choices[k]?.refused === true) return 'stop';
    const reason = FINISH[stopReason];
    if (reason !== null) return reason;
    ctx.lose('stop_reason', `${stopReason}${providerReason === null ? '' : ` (${providerReason})`} written as stop`);
    return 'stop';
  }

  function push(ev: UnifiedEvent): void {
    if (ended) return;
    const k = ev.choice ?? 0;
    switch (ev.type) {
      case 'start':
        if (ev.id !== null && ev.id !== '') id = ev.id;
        if (ev.model !== null) model = ev.model;
        head = null;
        sameFamily = ev.dialect === 'openai-chat' || ev.dialect === 'xai-chat';
        choice(0);
        return;
      case 'text_delta':
        choice(k);
        if (ev.refusal === true) {
          (choices[k] as ChoiceState).refused = true;
          stringDelta(k, 'refusal', ev.text);
        } else stringDelta(k, 'content', ev.text);
        return;
      case 'reasoning_delta':
        ctx.lose('reasoning', 'reasoning text (the Chat wire has no place for it)');
        return;
      case 'signature':
        ctx.lose('signature', `a ${ev.kind}`);
        return;
      case 'tool_call_start':
        if (ev.providerExecuted === true) ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        else toolCall(k, ev.id, ev.name);
        return;
      case 'tool_call_delta':
        if (ev.providerExecuted !== true && ev.argumentsDelta.length > 0) args(k, toolCall(k, ev.id, ''), ev.argumentsDelta);
        return;
      case 'tool_call_done': {
        if (ev.providerExecuted === true) return;
        const call = toolCall(k, ev.id, ev.name);
        if (ev.arguments.startsWith(call.written)) {
          const rest = ev.arguments.slice(call.written.length);
          if (rest.length > 0) args(k, call, rest);
        }
        return;
      }
      case 'tool_result':
        ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation':
        ctx.lose('citation', ev.url ?? ev.source ?? ev.title ?? 'a citation');
        return;
      case 'file':
        if (ev.partial !== true) ctx.lose('file', `a ${ev.mimeType ?? 'file'} of ${ev.data.length} base64 characters`);
        return;
      case 'audio_delta':
        ctx.lose('audio', `${ev.mimeType ?? 'audio'} deltas`);
        return;
      case 'usage':
        usage = ev;
        return;
      case 'error':
        if (ev.terminal) {
          // the usage so far still bills the request
          if (usage !== null) chunk([], { usage: chatUsage(usage) });
          writeError(ev.code, ev.message);
        }
        else ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done': {
        if (ev.stopReason === 'error') {
          // the usage so far still bills the request
          if (usage !== null) chunk([], { usage: chatUsage(usage) });
          writeError('api_error', `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}`);
          return;
        }
        // every choice gets its finish chunk (n > 1: done.choices; a per-choice done of other readers)
        const stops = ev.choices ?? [{ choice: k, stopReason: ev.stopReason, providerReason: ev.providerReason }];
        for (const c of stops) {
          choice(c.choice);
          chunk([{ index: c.choice, delta: {}, logprobs: null, finish_reason: finishReason(c.stopReason, c.providerReason, c.choice) }]);
        }
        if (k !== 0) return; // the response ends with choice 0's done
        if (usage !== null) chunk([], { usage: chatUsage(usage) });
        ctx.write('data: [DONE]\n\n');
        ended = true;
        return;
      }
      case 'raw':
      case 'session':
      case 'steer':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        loseNotice(ev, ctx);
        return;
      default:
        assertNever(ev);
    }
  }

  return {
    push,
    rawDeltas: 'all',
    abort() {
      if (ended) return;
      if (usage !== null) chunk([], { usage: chatUsage(usage) });
      writeError('api_error', 'the source stream ended before the response was done');
    },
  };
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
