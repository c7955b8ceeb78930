/**
 * read(): the live events and the final result from one reading of a source,
 * as the SDKs' `stream.finalMessage()` gives them, without an accumulator
 * written by hand.
 */
import { makeFinalAccumulator } from '../accumulate/final.js';
import type { FinalResult } from '../accumulate/types.js';
import { AbortError, StreamError } from '../errors.js';
import type { UnifiedEvent } from '../events.js';
import type { Emit } from '../stage.js';
import { iterateOptions, run, type ByteSource, type IterateOptions } from './iterate.js';

/** One reading of a source: iterate it for the events as they come, await `final()` for the result. */
export interface Reading extends AsyncIterable<UnifiedEvent> {
  /**
   * The last response's final result (for a single response, its result),
   * once the input has been read to its end. Reads the input itself when
   * nobody iterates (a loop must start in the same tick as the call). Rejects as the iteration would throw (the source failed,
   * an abort, strict mode), with `no_response` when the input held no
   * response, and with an AbortError when the loop was left early.
   */
  final(): Promise<FinalResult>;
  /** Every response's final result, in order (the same conditions as `final()`, but an empty input gives `[]`). */
  finals(): Promise<FinalResult[]>;
}

type State = 'idle' | 'iterating' | 'draining' | 'done';

/** The events of every response in `source`, with their final results: see Reading. */
export function read(source: ByteSource, options?: IterateOptions): Reading {
  const resolved = iterateOptions(source, options, 'read()', 'events');
  const gen = run(source, resolved) as AsyncGenerator<UnifiedEvent>;
  const accumulator = makeFinalAccumulator(resolved.limits);
  const results: FinalResult[] = [];
  const collect: Emit<FinalResult> = (f) => {
    results.push(f);
  };
  let state: State = 'idle';
  let failure: { error: unknown } | null = null;
  let settle: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });

  function finish(error: unknown): void {
    if (state === 'done') return;
    state = 'done';
    if (error === null) {
      try {
        accumulator.end(collect);
      } catch (err) {
        error = err;
      }
    }
    if (error !== null) failure = { error };
    settle();
  }

  /** The next event, also fed to the accumulator; a failure ends the reading. */
  async function pull(): Promise<IteratorResult<UnifiedEvent, undefined>> {
    if (state === 'done') return { done: true, value: undefined };
    let step: IteratorResult<UnifiedEvent>;
    try {
      step = await gen.next();
    } catch (err) {
      finish(err);
      throw err;
    }
    if (step.done === true) {
      finish(null);
      // An accumulator limit (maxTextBytes) hit at the end fails the loop as it fails final().
      if (failure !== null) throw failure.error;
      return { done: true, value: undefined };
    }
    try {
      accumulator.push(step.value, collect);
    } catch (err) {
      finish(err);
      await gen.return(undefined); // let go of the source
      throw err;
    }
    return step;
  }

  async function finals(): Promise<FinalResult[]> {
    // Lets `const p = reading.final(); for await (const ev of reading) …` start its loop first.
    await undefined;
    if (state === 'idle') {
      state = 'draining';
      try {
        while ((await pull()).done !== true);
      } catch {
        // kept in `failure`
      }
    }
    await settled;
    if (failure !== null) throw failure.error;
    return results.slice();
  }

  return {
    [Symbol.asyncIterator](): AsyncIterator<UnifiedEvent, undefined> {
      if (state !== 'idle') throw new TypeError(`read(): the events can be iterated once, before final() or finals() (state: ${state})`);
      state = 'iterating';
      return {
        next: pull,
        async return() {
          if (state !== 'done') {
            await gen.return(undefined); // releases the source
            finish(new AbortError('the loop was left before the end of the input'));
          }
          return { done: true, value: undefined };
        },
      };
    },
    finals,
    async final() {
      const all = await finals();
      const last = all.at(-1);
      if (last === undefined) throw new StreamError('no_response', 'the input held no response');
      return last;
    },
  };
}
