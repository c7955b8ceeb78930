/**
 * Where one response ends and the next begins, seen from the event stream
 * alone (every accumulator resets on the same boundaries as the final one).
 *
 * - `raw`, `session`, `tool_call_cancel` and `steer` never open a response:
 *   realtime logs carry them between responses (a steer may be answered after
 *   its response ended).
 * - `error`, `usage` and `input_transcript` arriving while no response is
 *   open do not open one either (an `invalid_json` between responses, a late
 *   usage message, the user speaking before the model answers): they are
 *   OUTSIDE, and the accumulators carry them into the next response.
 * - Any other event opens a response when none is open; `done` without
 *   `choice` (or with `choice: 0`) closes it. A response of several choices
 *   has one such `done` (its `choices` give each choice's stop reason); a
 *   `done` with `choice: k > 0` is that choice's stop alone (Gemini
 *   candidates) and leaves the response open.
 * - A second `start` inside an open response means the previous one never
 *   finished: RESTART.
 */
import { assertNever, type DoneEvent, type UnifiedEvent } from '../events.js';

/** The event is not part of any response. */
export const OUTSIDE = 0;
/** The event belongs to the open response. */
export const INSIDE = 1;
/** The event opens a new response. */
export const BEGIN = 2;
/** The event opens a new response while the previous one never finished. */
export const RESTART = 3;
export type ResponseStep = typeof OUTSIDE | typeof INSIDE | typeof BEGIN | typeof RESTART;

/** True for the `done` that ends a whole response (not the stop of one choice k > 0 of several). */
export function isFinalDone(ev: DoneEvent): boolean {
  return ev.choice === undefined || ev.choice === 0;
}

export class ResponseTracker {
  /** A response has begun and its final `done` has not come yet. */
  open = false;
  private started = false;

  /** Classifies one event and advances the state (call once per event, in order). */
  step(ev: UnifiedEvent): ResponseStep {
    switch (ev.type) {
      case 'raw':
      case 'session':
      case 'tool_call_cancel':
      case 'steer':
      case 'error':
      case 'usage':
      case 'input_transcript':
        return this.open ? INSIDE : OUTSIDE;
      case 'start':
        if (this.open) {
          if (this.started) return RESTART;
          this.started = true;
          return INSIDE;
        }
        this.open = true;
        this.started = true;
        return BEGIN;
      case 'done': {
        const wasOpen = this.open;
        if (isFinalDone(ev)) {
          this.open = false;
          this.started = false;
        } else {
          this.open = true;
        }
        return wasOpen ? INSIDE : BEGIN;
      }
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_call_start':
      case 'tool_call_delta':
      case 'tool_call_done':
      case 'tool_result':
      case 'citation':
      case 'file':
      case 'signature':
      case 'audio_delta':
      case 'segment':
      case 'notice':
        if (this.open) return INSIDE;
        this.open = true;
        return BEGIN;
      default:
        return assertNever(ev);
    }
  }

  reset(): void {
    this.open = false;
    this.started = false;
  }
}
