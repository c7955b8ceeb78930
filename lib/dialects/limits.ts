/**
 * Bounds on what a dialect handler buffers for one response, enforced on the
 * events it emits: the handler's own buffers (tool-argument text for
 * `tool_call_done`, open calls) mirror them, so an attacker-controlled stream
 * (10^6 tiny tool calls, one endless argument) is stopped by a typed error,
 * not by the OOM killer — even in events mode, with no accumulator.
 */
import { LimitExceededError } from '../errors.js';
import { byteLength } from '../bytes/index.js';
import type { UnifiedEvent } from '../events.js';
import type { LimitOptions, Limits } from '../limits.js';

export type DialectLimitOptions = Pick<LimitOptions, 'maxToolArgumentBytes' | 'maxBlocks'>;

export interface ResponseLimits {
  /**
   * Checks one event about to be emitted; throws LimitExceededError past a
   * limit. Returns false for an event of a call that a limit already refused
   * (the caller drops it: the error event stands for that call).
   */
  check(ev: UnifiedEvent): boolean;
  /** A response ended: forget its counts. */
  reset(): void;
}

export function createResponseLimits(limits: Pick<Limits, 'maxToolArgumentBytes' | 'maxBlocks'>): ResponseLimits {
  const maxArgs = limits.maxToolArgumentBytes;
  const maxCalls = limits.maxBlocks;
  let calls = 0;
  const argBytes = new Map<string, number>();
  const refused = new Set<string>();
  return {
    check(ev) {
      if (ev.type === 'tool_call_start') {
        if (++calls > maxCalls) {
          refused.add(ev.id);
          throw new LimitExceededError('maxBlocks', maxCalls, 'too many tool calls in one response', at(ev));
        }
      } else if (ev.type === 'tool_call_delta') {
        if (refused.has(ev.id)) return false;
        const n = (argBytes.get(ev.id) ?? 0) + byteLength(ev.argumentsDelta);
        if (n > maxArgs) {
          refused.add(ev.id);
          throw new LimitExceededError('maxToolArgumentBytes', maxArgs, `tool call ${ev.id}: arguments too large`, at(ev));
        }
        argBytes.set(ev.id, n);
      } else if (ev.type === 'tool_call_done') {
        if (refused.has(ev.id)) return false;
      }
      return true;
    },
    reset() {
      calls = 0;
      argBytes.clear();
      refused.clear();
    },
  };
}

function at(ev: UnifiedEvent): { offset?: number; frame?: number } {
  return ev.at === undefined ? {} : { offset: ev.at.offset, frame: ev.at.frame };
}
