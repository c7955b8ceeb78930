/**
 * What the agent session dialects share (claude-agent-sdk, anthropic-agents,
 * openai-agents): the session state of one input, seen by every handler of
 * it (one handler per turn, per lane), and events stamped with their
 * session and turn. See docs/dialects.md, "Agent sessions".
 */
import type { SessionCost, SessionEvent, UnifiedEvent } from '../events.js';
import { str } from './helpers.js';
import type { DialectContext, LaneRouter } from './types.js';

/**
 * The state `make` builds once per input: keyed by the input's lane router
 * (every lane's context carries the same one), else by the context itself
 * (an input read without lanes has one context).
 */
export function inputState<T>(states: WeakMap<object, T>, ctx: DialectContext, make: () => T): T {
  const key: object = ctx.router ?? ctx;
  let state = states.get(key);
  if (state === undefined) {
    state = make();
    states.set(key, state);
  }
  return state;
}

/** The session and turn an event is stamped with (absent ones are left out). */
export interface Scope {
  session?: string | undefined;
  turn?: string | undefined;
}

/** Stamps `ev` with `scope` and emits it. */
export function emitScoped(ctx: DialectContext, scope: Scope, ev: UnifiedEvent): void {
  if (scope.session !== undefined) ev.session = scope.session;
  if (scope.turn !== undefined) ev.turn = scope.turn;
  ctx.emit(ev);
}

/** A `session` event of kind `start`. */
export function sessionStart(id: string | null, model: string | null): SessionEvent {
  return { type: 'session', kind: 'start', id, model };
}

/** US dollars as a SessionCost, when `usd` is a number. */
export function usdCost(usd: number | undefined): SessionCost | undefined {
  return usd === undefined ? undefined : { amount: usd, currency: 'USD' };
}

/**
 * A lane router for the subagents of a wire that names them in one field of
 * each payload (the lane and the agent tag are its value; without it the
 * payload is the root agent's).
 */
export function lanesBy(field: string): () => LaneRouter {
  return () => ({
    route(payload) {
      const id = str(payload[field]);
      return id === undefined ? null : { lane: id, agent: id };
    },
  });
}
