/**
 * OpenAI Agents API session events (`GET /v1/agents/sessions/{id}/events`,
 * SSE, beta `agents=v1`), as openai/openai-ruby's models describe them
 * (lib/openai/models/beta/agent_session_*_event.rb, agents/sessions/turn.rb,
 * token_usage.rb, agent_session.rb).
 *
 * Every event names its `session_id`; turn events their `turn_id`. A turn
 * (`agent.session.turn.created` … `completed` / `failed` / `cancelled`) is
 * one response with `session` and `turn` set: `output_text.delta` → text
 * (index: `output_index`, contentIndex: `content_index`),
 * `reasoning_summary_text.delta` → reasoning (contentIndex: `summary_index`),
 * the `.done` texts' missing tails as one more delta; `item.done` items:
 * `function_call` → the client's call (`call_id`), other call items (MCP,
 * web search, command execution, subagent calls…) → calls the platform ran
 * (`providerExecuted`, their `output` as `tool_result`, the item kept raw);
 * `turn.completed.usage` → usage; a failed turn's `turn.error` → a terminal
 * error, done(error); cancelled → done(other).
 *
 * Session events: `agent.session.created` → `session` `start` (its agent's
 * model); `idle` / `requires_action` / `failed` → `session` `end` (stop
 * `end_turn`, `requires_action` with the required actions' `call_id`s, or
 * `failed`: its `session.error` stays in the event's raw payload), with the
 * session's own cumulative `usage` when present.
 * Subagent turns (`turn.subagent_id` set) are lanes (`streamId` and `agent`
 * = the subagent id), so they interleave with the root agent's turns.
 */
import type { Json, JsonObject, StopReason, UnifiedEvent, Usage } from '../events.js';
import { emitScoped, inputState, sessionStart, type Scope } from './agent-scope.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, str, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type LaneRouter, type ResponseHandler } from './types.js';

/** TokenUsage → unified usage (input includes cached tokens, output reasoning ones, as in the Responses API). */
export function agentsUsage(u: JsonObject): Usage {
  const input = num(u['input_tokens']) ?? null;
  const output = num(u['output_tokens']) ?? null;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: num(u['total_tokens']) ?? (input !== null && output !== null ? input + output : null),
    reasoningTokens: num(obj(u['output_tokens_details'])?.['reasoning_tokens']) ?? null,
    cachedInputTokens: num(obj(u['input_tokens_details'])?.['cached_tokens']) ?? null,
  };
}

const states = new WeakMap<object, { model: string | null; started: boolean }>();

function createAgentsTurn(ctx: DialectContext): ResponseHandler {
  const session = inputState(states, ctx, () => ({ model: null as string | null, started: false }));
  const scope: Scope = {};
  /** Text seen per `output_index:content_index` (reasoning: `r` prefix), for the `.done` tails. */
  const seen = new Map<string, string>();
  let clientCalls = 0;

  function emit(ev: UnifiedEvent): void {
    emitScoped(ctx, scope, ev);
  }

  function open(p: JsonObject): void {
    if (handler.started) return;
    handler.started = true;
    const turn = obj(p['turn']);
    scope.turn = str(p['turn_id']) ?? str(turn?.['id']);
    emit({ type: 'start', id: scope.turn ?? null, model: session.model });
  }

  function delta(p: JsonObject, reasoning: boolean): void {
    const index = num(p['output_index']);
    const part = num(p[reasoning ? 'summary_index' : 'content_index']);
    const text = str(p['delta']);
    if (index === undefined || text === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    open(p);
    const key = `${reasoning ? 'r' : ''}${index}:${part ?? -1}`;
    seen.set(key, (seen.get(key) ?? '') + text);
    if (text === '') return;
    const ev: UnifiedEvent = reasoning ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text };
    if (part !== undefined) ev.contentIndex = part;
    emit(ev);
  }

  /** A `.done` text (or a finished item's): what its deltas did not bring, as one more delta. */
  function tail(index: number, part: number | undefined, reasoning: boolean, text: string, raw: Json): void {
    const key = `${reasoning ? 'r' : ''}${index}:${part ?? -1}`;
    const got = seen.get(key) ?? '';
    seen.set(key, text);
    if (!text.startsWith(got)) {
      emit(errorEvent('text_mismatch', `output ${index}: the done text does not continue its deltas; the deltas' text was kept`, false, raw));
      return;
    }
    const rest = text.slice(got.length);
    if (rest === '') return;
    const ev: UnifiedEvent = reasoning ? { type: 'reasoning_delta', index, text: rest } : { type: 'text_delta', index, text: rest };
    if (part !== undefined) ev.contentIndex = part;
    emit(ev);
  }

  function textDone(p: JsonObject, reasoning: boolean): void {
    const index = num(p['output_index']);
    const text = str(p['text']);
    if (index === undefined || text === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    open(p);
    tail(index, num(p[reasoning ? 'summary_index' : 'content_index']), reasoning, text, p);
  }

  function itemDone(p: JsonObject): void {
    const item = obj(p['item']);
    const index = num(p['output_index']);
    if (item === undefined || index === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    open(p);
    const type = str(item['type']);
    if (type === 'message' || type === 'reasoning') {
      const parts = arr(item[type === 'message' ? 'content' : 'summary']) ?? [];
      parts.forEach((part, k) => {
        const text = isObject(part) ? str(part['text']) : undefined;
        if (text !== undefined) tail(index, k, type === 'reasoning', text, p);
      });
      return;
    }
    const args = item['arguments'];
    const argsText = typeof args === 'string' ? args : JSON.stringify(args ?? {});
    if (type === 'function_call') {
      const id = str(item['call_id']) ?? str(item['id']) ?? '';
      const name = str(item['name']) ?? '';
      clientCalls++;
      emit({ type: 'tool_call_start', index, id, name });
      emit({ type: 'tool_call_delta', index, id, argumentsDelta: argsText });
      emit({ type: 'tool_call_done', index, id, name, arguments: argsText });
      return;
    }
    // Calls the platform ran (MCP, web search, commands, subagents…): the call, its output, and the item as received.
    const id = str(item['call_id']) ?? str(item['id']) ?? `item_${index}`;
    const name = str(item['name']) ?? (type ?? 'item').replace(/_call$/, '');
    emit({ type: 'tool_call_start', index, id, name, providerExecuted: true });
    emit({ type: 'tool_call_delta', index, id, argumentsDelta: argsText, providerExecuted: true });
    emit({ type: 'tool_call_done', index, id, name, arguments: argsText, providerExecuted: true });
    if (item['output'] !== undefined && item['output'] !== null) {
      const ev: UnifiedEvent = { type: 'tool_result', index, id, name, result: item['output'] };
      if (item['status'] === 'failed' || item['status'] === 'incomplete') ev.isError = true;
      emit(ev);
    }
    emit({ type: 'raw', event: p });
  }

  function turnEnd(p: JsonObject, stop: StopReason, provider: string): void {
    open(p);
    const turn = obj(p['turn']);
    const u = obj(p['usage']) ?? obj(turn?.['usage']);
    if (u !== undefined) emit(usageEvent(agentsUsage(u), u));
    if (stop === 'error') {
      const e = obj(turn?.['error']) ?? obj(p['error']);
      emit(errorEvent(str(e?.['code']) ?? 'turn_failed', str(e?.['message']) ?? 'the turn failed', true, p));
    }
    emit(doneEvent(stop === 'end' && clientCalls > 0 ? 'tool_use' : stop, provider));
  }

  function sessionEnd(p: JsonObject, stop: 'end_turn' | 'requires_action' | 'failed'): void {
    const s = obj(p['session']);
    const ev: UnifiedEvent = { type: 'session', kind: 'end', stop, providerReason: str(s?.['status']) ?? stop, raw: p };
    const u = obj(s?.['usage']);
    if (u !== undefined) ev.usage = agentsUsage(u);
    if (stop === 'requires_action') {
      ev.pending = (arr(s?.['required_actions']) ?? []).flatMap((a) => {
        const id = isObject(a) ? (str(a['call_id']) ?? str(a['environment_id'])) : undefined;
        return id === undefined ? [] : [id];
      });
    }
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
      scope.session ??= str(p['session_id']) ?? str(obj(p['session'])?.['id']);
      if (p['type'] === 'agent.session.created') {
        const s = obj(p['session']);
        session.model = str(obj(s?.['agent'])?.['model']) ?? null;
        session.started = true;
        emit(sessionStart(str(s?.['id']) ?? null, session.model));
        return;
      }
      if (!session.started) {
        // A stream joined after the session was created: the session is first seen here.
        session.started = true;
        emit(sessionStart(scope.session ?? null, null));
      }
      switch (p['type']) {
        case 'agent.session.turn.created':
          open(p);
          return;
        case 'agent.session.turn.output_text.delta':
          delta(p, false);
          return;
        case 'agent.session.turn.reasoning_summary_text.delta':
          delta(p, true);
          return;
        case 'agent.session.turn.output_text.done':
          textDone(p, false);
          return;
        case 'agent.session.turn.reasoning_summary_text.done':
          textDone(p, true);
          return;
        case 'agent.session.turn.item.done':
          itemDone(p);
          return;
        case 'agent.session.turn.completed':
          turnEnd(p, 'end', 'completed');
          return;
        case 'agent.session.turn.failed':
          turnEnd(p, 'error', 'failed');
          return;
        case 'agent.session.turn.cancelled':
          turnEnd(p, 'other', 'cancelled');
          return;
        case 'agent.session.idle':
          sessionEnd(p, 'end_turn');
          return;
        case 'agent.session.requires_action':
          sessionEnd(p, 'requires_action');
          return;
        case 'agent.session.failed':
          sessionEnd(p, 'failed');
          return;
        case 'error': {
          const e = obj(p['error']) ?? p;
          emit(errorEvent(str(e['code']) ?? str(e['type']) ?? 'provider_error', str(e['message']) ?? 'error', false, p));
          return;
        }
        default:
          // in_progress, environments, subagents' lifecycle, item/part openings, command output.
          emit({ type: 'raw', event: p });
      }
    },
    onDoneSentinel(): void {
      emit({ type: 'raw', event: '[DONE]' });
    },
    onIncomplete(): void {},
  } satisfies ResponseHandler;
  return handler;
}

/** Subagent turns are lanes: a turn's subagent is learnt from its `turn.created`. */
function createRouter(): LaneRouter {
  const subagents = new Map<string, string>();
  return {
    route(payload) {
      const turn = obj(payload['turn']);
      const turnId = str(payload['turn_id']) ?? str(turn?.['id']);
      if (turnId === undefined) return null;
      const sub = str(turn?.['subagent_id']);
      if (sub !== undefined) subagents.set(turnId, sub);
      const lane = subagents.get(turnId);
      return lane === undefined ? null : { lane, agent: lane };
    },
  };
}

export const openaiAgents = defineDialect({
  name: 'openai-agents',
  family: 'openai-agents',
  detect: (payload: JsonObject) => {
    const type = payload['type'];
    return typeof type === 'string' && (type.startsWith('agent.session.') || type.startsWith('agent.output.'));
  },
  // A session: events between and after its turns are normal (doctor: no trailing_data).
  session: true,
  lanes: createRouter,
  createResponse: createAgentsTurn,
});
