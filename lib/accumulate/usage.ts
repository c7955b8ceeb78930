/**
 * The usage of the current response. Usage events replace each other, never
 * add up: the dialects already made them cumulative (Anthropic message_start
 * ⊕ message_delta, Gemini's running totals, the terminal events).
 */
import type { Json, UnifiedEvent, Usage, UsageEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { BEGIN, OUTSIDE, RESTART, ResponseTracker } from './response.js';

/** All fields null: the response reported no usage. */
export function emptyUsage(): Usage {
  return { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
}

/** The five counters of a usage event, without `raw` and the event fields. */
export function usageOf(ev: UsageEvent): Usage {
  return {
    inputTokens: ev.inputTokens,
    outputTokens: ev.outputTokens,
    totalTokens: ev.totalTokens,
    reasoningTokens: ev.reasoningTokens,
    cachedInputTokens: ev.cachedInputTokens,
    // Only a usage billed by time has it (a final of token usage keeps its five fields).
    ...(ev.durationSeconds === undefined ? {} : { durationSeconds: ev.durationSeconds }),
  };
}

export interface UsageAccumulator extends Stage<UnifiedEvent, UnifiedEvent> {
  /** The last usage of the current (or last finished) response, or null when it reported none. */
  usage(): Usage | null;
  /** The provider's own usage object of that event, or null. */
  raw(): Json | null;
}

/**
 * Passes events through unchanged and keeps the last usage event of the
 * current response. A usage event that arrives while no response is open is
 * carried into the next response (where the response's own usage, if any,
 * replaces it).
 */
export function createUsageAccumulator(): UsageAccumulator {
  const tracker = new ResponseTracker();
  let current: UsageEvent | null = null;
  let pending: UsageEvent | null = null;

  return {
    push(ev: UnifiedEvent, emit: Emit<UnifiedEvent>) {
      const step = tracker.step(ev);
      if (step === BEGIN || step === RESTART) {
        current = pending;
        pending = null;
      }
      if (ev.type === 'usage') {
        if (step === OUTSIDE) pending = ev;
        else current = ev;
      }
      emit(ev);
    },
    end() {},
    usage() {
      return current === null ? null : usageOf(current);
    },
    raw() {
      return current === null ? null : current.raw;
    },
  };
}
