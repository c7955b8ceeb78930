/**
 * Anthropic Managed Agents session event stream
 * (`GET /v1/sessions/{id}/events/stream`, beta `managed-agents-2026-04-01`):
 * SSE of typed events (`agent.*`, `user.*`, `session.*`, `span.*`,
 * `system.message`, and with `event_deltas` the previews `event_start` /
 * `event_delta`), as anthropic-sdk-typescript's
 * `BetaManagedAgentsStreamSessionEvents` describes them
 * (src/resources/beta/sessions/events.ts, sessions.ts).
 *
 * A turn is the agent's work between `session.status_running` and
 * `session.status_idle`: one response. Its content: `agent.message` text,
 * `agent.tool_use` / `agent.mcp_tool_use` (run by the platform:
 * `providerExecuted`) and their `agent.tool_result` / `agent.mcp_tool_result`,
 * `agent.custom_tool_use` (the client's to run). Its usage is the sum of its
 * model requests' `span.model_request_end.model_usage`. `status_idle` ends it
 * (`end_turn` → end, `requires_action` → tool_use, `retries_exhausted` →
 * error, `budget_reached` → max_tokens) and is the session's `end` event too
 * (stop, pending `event_ids`); `session.usage` snapshots (cumulative, with
 * `list_cost` in minor units) are `session` `usage` events.
 *
 * Previews: an `event_start` of an `agent.message` opens a preview whose
 * `event_delta` text passes as `text_delta` at once; the buffered
 * `agent.message` with the same id is authoritative: only the part of its
 * text the previews did not bring is emitted (a text that does not continue
 * the preview's is reported as `preview_mismatch`). A preview that
 * `span.model_request_end` closes without its buffered event keeps its text
 * and is flagged with a `preview_only` error (not terminal). `agent.thinking`
 * carries no text (its previews are start-only): raw.
 *
 * The events carry no session or turn id (the stream is one session's); a
 * subagent's thread events cross-posted with `session_thread_id`, and its
 * `session.thread_status_*`, are that thread's lane.
 */
import type { Json, JsonObject, SessionStop, StopReason, UnifiedEvent, Usage } from '../events.js';
import { messagesUsage } from './anthropic-messages.js';
import { emitScoped, inputState, lanesBy, sessionStart } from './agent-scope.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, str, sum, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

/** The types of this stream (user.* are the client's own events, echoed). */
const TYPES = new Set([
  'agent.message',
  'agent.thinking',
  'agent.tool_use',
  'agent.tool_result',
  'agent.mcp_tool_use',
  'agent.mcp_tool_result',
  'agent.custom_tool_use',
  'agent.thread_message_received',
  'agent.thread_message_sent',
  'agent.thread_context_compacted',
  'session.status_running',
  'session.status_idle',
  'session.status_rescheduled',
  'session.status_terminated',
  'session.error',
  'session.deleted',
  'session.usage',
  'session.thread_created',
  'session.thread_status_running',
  'session.thread_status_idle',
  'session.thread_status_rescheduled',
  'session.thread_status_terminated',
  'span.model_request_start',
  'span.model_request_end',
  'span.outcome_evaluation_start',
  'span.outcome_evaluation_ongoing',
  'span.outcome_evaluation_end',
  'user.message',
  'user.interrupt',
  'user.tool_confirmation',
  'user.custom_tool_result',
  'user.tool_result',
  'user.define_outcome',
  'system.message',
]);

const TURN_STOPS: Record<string, StopReason> = {
  end_turn: 'end',
  requires_action: 'tool_use',
  retries_exhausted: 'error',
  budget_reached: 'max_tokens',
};

/** A preview of an agent.message: the unified index of each content entry and the text it brought. */
interface Preview {
  indices: number[];
  texts: string[];
}

const states = new WeakMap<object, { started: boolean }>();

/** A model request's usage, or the session's snapshot (whose cache writes are broken down by cache lifetime). */
function requestUsage(u: JsonObject): Usage {
  const usage = messagesUsage(u, undefined);
  const split = obj(u['cache_creation']);
  const writes = sum(num(split?.['ephemeral_5m_input_tokens']), num(split?.['ephemeral_1h_input_tokens']));
  if (u['cache_creation_input_tokens'] !== undefined || writes === null) return usage;
  const inputTokens = sum(usage.inputTokens, writes);
  return { ...usage, inputTokens, totalTokens: sum(inputTokens, usage.outputTokens) };
}

function addUsage(a: Usage | null, b: Usage): Usage {
  if (a === null) return b;
  return {
    inputTokens: sum(a.inputTokens, b.inputTokens),
    outputTokens: sum(a.outputTokens, b.outputTokens),
    totalTokens: sum(a.totalTokens, b.totalTokens),
    reasoningTokens: null,
    cachedInputTokens: sum(a.cachedInputTokens, b.cachedInputTokens),
  };
}

function createManagedAgentsTurn(ctx: DialectContext): ResponseHandler {
  const input = inputState(states, ctx, () => ({ started: false }));
  let next = 0;
  const previews = new Map<string, Preview>();
  /** Call id → name, for their results. */
  const names = new Map<string, string>();
  let usage: Usage | null = null;
  const rawUsage: Json[] = [];

  function emit(ev: UnifiedEvent): void {
    emitScoped(ctx, {}, ev);
  }

  function open(id: string | null): void {
    if (handler.started) return;
    handler.started = true;
    emit({ type: 'start', id, model: null });
  }

  /** The turn's usage, the error that ended it (if any), its done. */
  function close(stop: StopReason, provider: string | null, error?: UnifiedEvent): void {
    if (usage !== null) emit(usageEvent(usage, rawUsage));
    if (error !== undefined) emit(error);
    emit(doneEvent(stop, provider));
  }

  function textDelta(index: number, text: string): void {
    if (text !== '') emit({ type: 'text_delta', index, text });
  }

  function onPreviewStart(p: JsonObject): void {
    const e = obj(p['event']);
    const id = str(e?.['id']);
    if (e?.['type'] !== 'agent.message' || id === undefined) {
      emit({ type: 'raw', event: p }); // agent.thinking previews are start-only: nothing to show
      return;
    }
    open(null);
    previews.set(id, { indices: [], texts: [] });
  }

  function onPreviewDelta(p: JsonObject): void {
    const preview = previews.get(str(p['event_id']) ?? '');
    const delta = obj(p['delta']);
    const content = obj(delta?.['content']);
    const text = str(content?.['text']);
    const i = num(delta?.['index']) ?? 0;
    if (preview === undefined || delta?.['type'] !== 'content_delta' || content?.['type'] !== 'text' || text === undefined || i < 0 || i > preview.indices.length) {
      emit({ type: 'raw', event: p });
      return;
    }
    if (i === preview.indices.length) {
      preview.indices.push(next++);
      preview.texts.push('');
    }
    preview.texts[i] += text;
    textDelta(preview.indices[i]!, text);
  }

  /** The buffered agent.message: authoritative; only what its previews did not bring is emitted. */
  function onMessage(p: JsonObject): void {
    open(null);
    const id = str(p['id']) ?? '';
    const preview = previews.get(id);
    previews.delete(id);
    let other = false;
    (arr(p['content']) ?? []).forEach((block, i) => {
      const text = isObject(block) && block['type'] === 'text' ? str(block['text']) : undefined;
      if (text === undefined) {
        other = true; // redacted blocks: kept in the raw payload
        return;
      }
      const seen = preview?.texts[i];
      const index = preview?.indices[i] ?? next++;
      if (seen === undefined) textDelta(index, text);
      else if (text.startsWith(seen)) textDelta(index, text.slice(seen.length));
      else emit(errorEvent('preview_mismatch', `agent.message ${id}: content ${i} does not continue its preview; the preview's text was kept`, false, block));
    });
    if (other) emit({ type: 'raw', event: p });
  }

  function onToolUse(p: JsonObject, client: boolean): void {
    open(null);
    const id = str(p['id']) ?? '';
    const name = str(p['name']) ?? '';
    const index = next++;
    const args = JSON.stringify(p['input'] ?? {});
    names.set(id, name);
    if (client) {
      emit({ type: 'tool_call_start', index, id, name });
      emit({ type: 'tool_call_delta', index, id, argumentsDelta: args });
      emit({ type: 'tool_call_done', index, id, name, arguments: args });
    } else {
      emit({ type: 'tool_call_start', index, id, name, providerExecuted: true });
      emit({ type: 'tool_call_delta', index, id, argumentsDelta: args, providerExecuted: true });
      emit({ type: 'tool_call_done', index, id, name, arguments: args, providerExecuted: true });
    }
    // What has no unified place (the MCP server, the permission asked) stays reachable.
    if (p['mcp_server_name'] !== undefined || p['evaluated_permission'] !== undefined) emit({ type: 'raw', event: p });
  }

  function onToolResult(p: JsonObject, key: string): void {
    const id = str(p[key]);
    if (id === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    open(null);
    const ev: UnifiedEvent = { type: 'tool_result', index: next++, id, name: names.get(id) ?? '', result: p['content'] ?? null };
    if (p['is_error'] === true) ev.isError = true;
    emit(ev);
  }

  /** Previews left without their buffered event: their text (already emitted) is kept, flagged. */
  function flagPreviews(why: string): void {
    for (const [id, preview] of previews) {
      if (preview.texts.length > 0) {
        emit(errorEvent('preview_only', `agent.message ${id} was previewed but never delivered (${why}): its text is kept from the previews`, false));
      }
    }
    previews.clear();
  }

  /** span.model_request_end: the request's usage; previews it leaves without their buffered event are kept, flagged. */
  function onRequestEnd(p: JsonObject): void {
    const u = obj(p['model_usage']);
    if (u !== undefined) {
      open(null);
      usage = addUsage(usage, requestUsage(u));
      rawUsage.push(u);
    }
    flagPreviews('its model request ended');
    if (p['is_error'] === true) emit(errorEvent('model_request_failed', `model request ${str(p['model_request_start_id']) ?? ''} ended in an error`, false, p));
    else if (u === undefined) emit({ type: 'raw', event: p });
  }

  function onIdle(p: JsonObject, session: boolean): void {
    const stopReason = obj(p['stop_reason']);
    const type = str(stopReason?.['type']) ?? null;
    if (handler.started) {
      // A failed turn says why, as the error that ended it.
      const failed = type === 'retries_exhausted' ? errorEvent('retries_exhausted', 'the turn ended: repeated errors exhausted the retry budget', true, p) : undefined;
      close(TURN_STOPS[type ?? ''] ?? 'other', type, failed);
    }
    if (!session) return;
    const pending = (arr(stopReason?.['event_ids']) ?? []).filter((x): x is string => typeof x === 'string');
    const known: SessionStop[] = ['end_turn', 'requires_action', 'retries_exhausted', 'budget_reached'];
    const stop = known.find((s) => s === type) ?? 'other';
    emit({ type: 'session', kind: 'end', stop, providerReason: type, pending, raw: p });
  }

  function onError(p: JsonObject): void {
    const e = obj(p['error']);
    const retry = str(obj(e?.['retry_status'])?.['type']);
    // Retrying errors are news; a terminal one ends the session (status_terminated follows).
    emit(errorEvent(str(e?.['type']) ?? 'session_error', str(e?.['message']) ?? 'session error', false, p));
    if (retry === 'terminal' && handler.started) close('error', 'terminal');
  }

  /** session.usage: the session's cumulative usage and list cost (minor units of its currency). */
  function onUsage(p: JsonObject): void {
    const u = obj(p['usage']);
    if (u === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    const ev: UnifiedEvent = { type: 'session', kind: 'usage', usage: requestUsage(u), raw: p };
    const cost = obj(u['list_cost']);
    const amount = Number(str(cost?.['amount']));
    const currency = str(cost?.['currency']);
    // USD is the only currency priced: its minor unit is the cent.
    if (Number.isFinite(amount) && currency !== undefined) ev.cost = { amount: currency === 'USD' ? amount / 100 : amount, currency };
    emit(ev);
  }

  const handler = {
    started: false as boolean,
    onPayload(payload: Json): void {
      const p = obj(payload);
      if (p === undefined) {
        emit({ type: 'raw', event: payload });
        return;
      }
      if (!input.started) {
        input.started = true;
        emit(sessionStart(null, null));
      }
      switch (p['type']) {
        case 'session.status_running':
        case 'session.thread_status_running':
          open(str(p['id']) ?? null);
          return;
        case 'event_start':
          onPreviewStart(p);
          return;
        case 'event_delta':
          onPreviewDelta(p);
          return;
        case 'agent.message':
          onMessage(p);
          return;
        case 'agent.tool_use':
        case 'agent.mcp_tool_use':
          onToolUse(p, false);
          return;
        case 'agent.custom_tool_use':
          onToolUse(p, true);
          return;
        case 'agent.tool_result':
          onToolResult(p, 'tool_use_id');
          return;
        case 'agent.mcp_tool_result':
          onToolResult(p, 'mcp_tool_use_id');
          return;
        case 'span.model_request_end':
          onRequestEnd(p);
          return;
        case 'session.status_idle':
          onIdle(p, true);
          return;
        case 'session.thread_status_idle':
          onIdle(p, false);
          return;
        case 'session.status_terminated':
        case 'session.thread_status_terminated':
          if (handler.started) close('other', 'terminated');
          if (p['type'] === 'session.status_terminated') emit({ type: 'session', kind: 'end', stop: 'terminated', providerReason: 'terminated', raw: p });
          return;
        case 'session.error':
          onError(p);
          return;
        case 'session.usage':
          onUsage(p);
          return;
        default:
          // agent.thinking (no text), user.* echoes, threads, spans, outcomes, system messages, updates.
          emit({ type: 'raw', event: p });
      }
    },
    onDoneSentinel(): void {
      emit({ type: 'raw', event: '[DONE]' });
    },
    onIncomplete(): void {
      // Previews the input cut off, the usage of the requests that ended; the normalizer reports the turn cut off.
      flagPreviews('the input ended');
      if (usage !== null) emit(usageEvent(usage, rawUsage));
    },
  } satisfies ResponseHandler;
  return handler;
}

export const anthropicAgents = defineDialect({
  name: 'anthropic-agents',
  family: 'anthropic-agents',
  // Its own types; `session.*` ones only with the event's `processed_at` (Realtime has `session.updated` too).
  detect: (payload: JsonObject) => {
    const type = payload['type'];
    if (type === 'event_start' || type === 'event_delta') return isObject(payload['event']) || typeof payload['event_id'] === 'string';
    return typeof type === 'string' && TYPES.has(type) && typeof payload['processed_at'] === 'string';
  },
  // A session: events between and after its turns are normal (doctor: no trailing_data).
  session: true,
  // A subagent's payloads (`session_thread_id`) are its lane.
  lanes: lanesBy('session_thread_id'),
  createResponse: createManagedAgentsTurn,
});
