/**
 * Laned events (`streamId`, see docs/lanes.md): several responses open at
 * once in one event stream. Two ways for a stage that assumes responses come
 * one after another (start … done) to take them:
 *
 * - LaneStages: one instance of the stage per lane, fed that lane's events
 *   as they come (the final accumulator: each lane's final at its own done);
 * - serializeLanes: a stage that holds each lane's events back and passes them
 *   on together when the lane's response is done (or the input ends), so the
 *   stage after it sees the responses one after another, in order of
 *   completion (encoders, doctor).
 */
import type { UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { OUTSIDE, ResponseTracker, isFinalDone } from './response.js';

/** One stage instance per lane key; `stamp` marks each output with its lane. */
export class LaneStages<S extends Stage<UnifiedEvent, O>, O> {
  readonly lanes = new Map<string, S>();

  constructor(
    private readonly make: () => S,
    private readonly stamp: (out: O, lane: string) => void,
  ) {}

  /** An event of lane `key` (its `streamId`). */
  push(key: string, ev: UnifiedEvent, emit: Emit<O>): void {
    let stage = this.lanes.get(key);
    if (stage === undefined) {
      stage = this.make();
      this.lanes.set(key, stage);
    }
    stage.push(ev, (out) => {
      this.stamp(out, key);
      emit(out);
    });
    // A lane's response is over: a later one on the same key gets a fresh stage (lanes are reused).
    if (ev.type === 'done' && isFinalDone(ev)) this.lanes.delete(key);
  }

  /** Ends every lane still held, in the order they opened. */
  end(emit: Emit<O>): void {
    for (const [key, stage] of this.lanes) {
      stage.end((out) => {
        this.stamp(out, key);
        emit(out);
      });
    }
    this.lanes.clear();
  }
}

/**
 * Holds each lane's events until its response is done, then passes them on
 * in one run; unlaned events pass at once, except while a lane's run would
 * land inside an unlaned response: runs wait for it to end. Events of a lane
 * outside any response (a steer between responses) pass at once. The input's
 * end passes every lane still held (their responses were cut off by the
 * normalizer, so each run ends with its own done). `unlanedOpen`: the
 * consumer's own knowledge of whether an unlaned response is open (it sees
 * the same events in the same order), which saves tracking it here.
 */
export function serializeLanes(unlanedOpen?: () => boolean): Stage<UnifiedEvent, UnifiedEvent> {
  const held = new Map<string, { events: UnifiedEvent[]; tracker: ResponseTracker }>();
  /** Whether an unlaned response is open: the caller's own view when it has one (`unlanedOpen`), else a tracker here. */
  const unlaned = unlanedOpen === undefined ? new ResponseTracker() : null;
  const open = unlanedOpen ?? ((): boolean => unlaned!.open);
  /** Lanes whose response is done, waiting for the unlaned response to end. */
  const ready: UnifiedEvent[][] = [];

  function flush(emit: Emit<UnifiedEvent>): void {
    if (ready.length === 0) return;
    for (const run of ready.splice(0)) for (const ev of run) emit(ev);
  }

  return {
    push(ev, emit) {
      const key = ev.streamId;
      if (key === undefined) {
        if (unlaned !== null) unlaned.step(ev);
        emit(ev);
        if (ready.length > 0 && !open()) flush(emit);
        return;
      }
      let lane = held.get(key);
      if (lane === undefined) {
        lane = { events: [], tracker: new ResponseTracker() };
        held.set(key, lane);
      }
      const step = lane.tracker.step(ev);
      if (step === OUTSIDE && lane.events.length === 0) {
        held.delete(key);
        if (open()) ready.push([ev]);
        else emit(ev);
        return;
      }
      lane.events.push(ev);
      if (ev.type === 'done' && isFinalDone(ev)) {
        held.delete(key);
        ready.push(lane.events);
        if (!open()) flush(emit);
      }
    },
    end(emit) {
      for (const lane of held.values()) ready.push(lane.events);
      held.clear();
      flush(emit);
    },
  };
}
