/**
 * The Claude Agent SDK's message stream: the NDJSON of
 * `claude -p --output-format stream-json` (or the SDK's `query()` messages,
 * saved as NDJSON or a JSON array). Five message types carry the session
 * (Agent SDK TypeScript reference, "Message types"):
 *
 * - `system` (`subtype: "init"`, `session_id`, `model`, `tools`…): the
 *   session begins (a `session` `start` event); other subtypes are raw;
 * - `assistant` (`message`: an Anthropic message, often one content block
 *   per SDK message; `parent_tool_use_id`): the model's turn;
 * - `user` (`message.content` with `tool_result` blocks): the results of the
 *   turn's calls; a prompt's text is raw;
 * - `stream_event` (`event`: a raw Anthropic stream event, only with
 *   `--include-partial-messages`): the turn as it streams;
 * - `result` (`subtype`, `usage`, `total_cost_usd`, `num_turns`…): the
 *   session stops (a `session` `end` event with the session's own totals).
 *
 * A turn is one model message and the results of its calls: one response
 * (start … done) with `turn` = the message id, `session` = `session_id`.
 * Its blocks are read by the Anthropic Messages handler (anthropic-messages.ts),
 * nested: a `stream_event`'s event as is, an `assistant` message as a
 * `message_start` holding its blocks; each message of a turn gets block
 * indices after the previous one's. The `assistant` message that repeats a
 * streamed message (same id, after its `stream_event`s) is the same content:
 * it passes as raw, never twice. The harness runs every tool itself, so the
 * turn's calls are `providerExecuted` and their results `tool_result`s.
 *
 * A turn ends when all its calls have their results, else when the next
 * message does not continue it (another message id; an `assistant` message
 * after results; `result`), or at the end of the input when nothing is
 * pending. Subagents (`parent_tool_use_id` set: the Agent/Task call that runs
 * them) are lanes (`streamId` and `agent` = that call's id), so their turns
 * interleave with the root agent's, each with its own final.
 */
import { assertNever, type Json, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../events.js';
import { buildUsage, createMessagesResponse, messagesStop, messagesUsage, type MessagesResponse } from './anthropic-messages.js';
import { emitScoped, inputState, lanesBy, sessionStart, usdCost, type Scope } from './agent-scope.js';
import { arr, doneEvent, isObject, num, obj, str } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

const TYPES = new Set(['system', 'assistant', 'user', 'stream_event', 'result']);

/** result.subtype → the session's stop. */
const STOPS: Record<string, 'end_turn' | 'max_turns' | 'budget_reached' | 'retries_exhausted' | 'failed'> = {
  success: 'end_turn',
  error_max_turns: 'max_turns',
  error_max_budget_usd: 'budget_reached',
  error_max_structured_output_retries: 'retries_exhausted',
  error_during_execution: 'failed',
};

/** What every handler of one input shares. */
interface SessionState {
  started: boolean;
  id: string | undefined;
  model: string | null;
}
const states = new WeakMap<object, SessionState>();

function createClaudeAgentTurn(ctx: DialectContext): ResponseHandler {
  const session = inputState(states, ctx, () => ({ started: false, id: undefined, model: null }));
  const scope: Scope = {};
  /** The message id of the turn (null: the wire gave none). */
  let turnId: string | null = null;
  /** The next unified block index of the turn: each message's blocks come after the previous one's. */
  let base = 0;
  let top = 0;
  /** The nested Messages handler of the message being read, and whether it streams. */
  let inner: MessagesResponse | null = null;
  let streamed = false;
  /** Blocks the stream brought, and how many the `assistant` messages repeating it have shown. */
  let streamedBlocks = 0;
  let echoed = 0;
  /** The synthetic message_start of a whole message (its raw copy is not passed on). */
  let synthetic: JsonObject | null = null;
  /** Calls of the turn waiting for their result (id → name), and every call's name. */
  const pending = new Map<string, string>();
  const names = new Map<string, string>();
  let calls = 0;
  let sawResults = false;
  let usage: JsonObject | undefined;
  let usageDelta: UsageEvent | null = null;
  let stop: { reason: StopReason; provider: string | null } | null = null;

  /** The nested handler's events: its start opens the turn once, its usage and done are the turn's to emit. */
  const innerCtx: DialectContext = {
    get at() {
      return ctx.at;
    },
    get frame() {
      return ctx.frame;
    },
    router: ctx.router ?? null,
    emit(ev: UnifiedEvent): void {
      switch (ev.type) {
        case 'start':
          open(ev.id, ev.model);
          return;
        case 'usage':
          usageDelta = ev;
          return;
        case 'done':
          stop = { reason: ev.stopReason, provider: ev.providerReason };
          return;
        case 'raw':
          if (ev.event === synthetic) return;
          break;
        case 'tool_call_start':
        case 'tool_call_delta':
        case 'tool_call_done':
          // The harness runs the model's calls itself: the consumer must not.
          ev.providerExecuted = true;
          if (ev.type === 'tool_call_start') {
            calls++;
            pending.set(ev.id, ev.name);
            names.set(ev.id, ev.name);
          }
          break;
        case 'text_delta':
        case 'reasoning_delta':
        case 'tool_result':
        case 'citation':
        case 'file':
        case 'signature':
        case 'error':
        case 'audio_delta':
        case 'tool_call_cancel':
        case 'session':
        case 'input_transcript':
        case 'segment':
        case 'notice':
        case 'steer':
          break;
        default:
          assertNever(ev);
      }
      if ('index' in ev && typeof ev.index === 'number') {
        ev.index += base;
        if (ev.index >= top) top = ev.index + 1;
      }
      emit(ev);
    },
  };

  function emit(ev: UnifiedEvent): void {
    emitScoped(ctx, scope, ev);
  }

  function beginSession(p: JsonObject): void {
    session.id ??= str(p['session_id']);
    if (session.id !== undefined) scope.session = session.id;
    if (session.started) return;
    session.started = true;
    session.model = p['type'] === 'system' ? (str(p['model']) ?? null) : null;
    emit(sessionStart(session.id ?? null, session.model));
  }

  function open(id: string | null, model: string | null): void {
    if (handler.started) return;
    handler.started = true;
    turnId = id;
    if (id !== null) scope.turn = id;
    emit({ type: 'start', id, model: model ?? session.model });
  }

  /** The turn's usage (the last message's: split messages repeat it) and its done. */
  function close(): void {
    if (usage !== undefined) emit(buildUsage(usage, undefined));
    else if (usageDelta !== null) emit(usageDelta);
    const s = stop;
    let reason: StopReason = s?.reason ?? 'end';
    // The harness runs every call itself: none is a request to the client (anthropic-messages says the same of
    // provider-run calls), even one left without result when the session stopped; providerReason keeps `tool_use`.
    if (reason === 'tool_use') reason = 'end';
    emit(doneEvent(reason, s?.provider ?? null));
  }

  function messageOf(p: JsonObject): JsonObject | undefined {
    return obj(p['message']);
  }

  function onAssistant(p: JsonObject): void {
    const message = messageOf(p);
    const id = str(message?.['id']) ?? null;
    if (streamed && (id === null || id === turnId)) {
      // The message its stream_events already delivered: the same content, once.
      emit({ type: 'raw', event: p });
      echoed += arr(message?.['content'])?.length ?? 0;
      if (inner === null && echoed >= streamedBlocks) settled();
      return;
    }
    const u = obj(message?.['usage']);
    if (u !== undefined) usage = u;
    if (message === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    open(id, str(message['model']) ?? null);
    base = top;
    inner = createMessagesResponse(innerCtx);
    synthetic = { type: 'message_start', message };
    inner.onPayload(synthetic, 'message_start');
    const reason = str(message['stop_reason']);
    if (reason !== undefined) stop = { reason: messagesStop(reason), provider: reason };
    inner = null;
    synthetic = null;
    settled();
  }

  /** A message that said it stopped, with no call waiting for its result: nothing more belongs to the turn. */
  function settled(): void {
    if (stop !== null && stop.reason !== 'tool_use' && pending.size === 0) close();
  }

  function onStreamEvent(p: JsonObject): void {
    const event = obj(p['event']);
    if (event === undefined) {
      emit({ type: 'raw', event: p });
      return;
    }
    if (event['type'] === 'message_start' || inner === null) {
      if (event['type'] === 'message_start') base = top;
      inner = createMessagesResponse(innerCtx);
      streamed = true;
    }
    if (event['type'] === 'content_block_start') streamedBlocks++;
    inner.onPayload(event, 'message');
    // After message_stop the repeating `assistant` messages follow (one per block, as the CLI prints them).
    if (event['type'] === 'message_stop') inner = null;
  }

  function onUser(p: JsonObject): void {
    const content = arr(messageOf(p)?.['content']);
    let mapped = false;
    for (const block of content ?? []) {
      if (!isObject(block) || block['type'] !== 'tool_result') continue;
      const id = str(block['tool_use_id']);
      if (id === undefined || !names.has(id)) continue;
      mapped = true;
      const ev: UnifiedEvent = { type: 'tool_result', index: top++, id, name: names.get(id)!, result: block['content'] ?? null };
      if (block['is_error'] === true) ev.isError = true;
      emit(ev);
      pending.delete(id);
    }
    if (!mapped) {
      emit({ type: 'raw', event: p });
      return;
    }
    sawResults = true;
    if (pending.size === 0 && calls > 0) close();
  }

  function onResult(p: JsonObject): void {
    const subtype = str(p['subtype']) ?? null;
    const u = obj(p['usage']);
    const ev: UnifiedEvent = {
      type: 'session',
      kind: 'end',
      stop: (subtype === null ? undefined : STOPS[subtype]) ?? (p['is_error'] === true ? 'failed' : 'other'),
      providerReason: subtype,
      raw: p,
    };
    if (u !== undefined) ev.usage = messagesUsage(u, undefined);
    const cost = usdCost(num(p['total_cost_usd']));
    if (cost !== undefined) ev.cost = cost;
    const turns = num(p['num_turns']);
    if (turns !== undefined) ev.turns = turns;
    emit(ev);
  }

  const handler = {
    started: false as boolean,
    beforePayload(payload: JsonObject): void {
      if (!handler.started) return;
      const type = payload['type'];
      const id = str(messageOf(payload)?.['id']) ?? null;
      let continues: boolean;
      // Message ids decide when both sides have one; without, a message after results is the next call's.
      if (type === 'assistant') continues = id !== null && turnId !== null ? id === turnId : !sawResults;
      else if (type === 'stream_event') continues = obj(payload['event'])?.['type'] !== 'message_start';
      else continues = type === 'user';
      if (!continues) close();
    },
    onPayload(payload: Json): void {
      const p = obj(payload);
      if (p === undefined) {
        emit({ type: 'raw', event: payload });
        return;
      }
      beginSession(p);
      switch (p['type']) {
        case 'assistant':
          onAssistant(p);
          return;
        case 'stream_event':
          onStreamEvent(p);
          return;
        case 'user':
          onUser(p);
          return;
        case 'result':
          onResult(p);
          return;
        default:
          emit({ type: 'raw', event: p }); // system messages (init's tools, status, compact boundaries…)
      }
    },
    onDoneSentinel(): void {
      emit({ type: 'raw', event: '[DONE]' });
    },
    onIncomplete(): void {
      // Cut off while the message streamed, or while calls wait for results: the normalizer reports it.
      // Otherwise the turn was over (its last message came whole): it ends as it would have.
      if (inner !== null && streamed && stop === null) {
        inner.onIncomplete();
        return;
      }
      if (pending.size === 0) close();
    },
  } satisfies ResponseHandler;
  return handler;
}

export const claudeAgentSdk = defineDialect({
  name: 'claude-agent-sdk',
  family: 'claude-agent-sdk',
  // An SDK message: one of the five types, with the fields only SDK messages carry.
  detect: (payload: JsonObject) =>
    typeof payload['type'] === 'string' &&
    TYPES.has(payload['type']) &&
    ('session_id' in payload || 'parent_tool_use_id' in payload || 'uuid' in payload),
  // A session: events between and after its turns are normal (doctor: no trailing_data).
  session: true,
  // A subagent's payloads (`parent_tool_use_id`) are its lane.
  lanes: lanesBy('parent_tool_use_id'),
  createResponse: createClaudeAgentTurn,
});
