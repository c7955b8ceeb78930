/**
 * compose(...stages): a chain of stream stages as one stream.
 *
 * The fusion rule. When the stages are the package's own, made by its
 * factories and not used yet (nothing written to them, not piped, read,
 * ended or listened to), and they form the chain the fused stage runs:
 *
 *   a framer (sseFramer, autoFramer, jsonArrayFramer, jsonValuesFramer,
 *   ndjsonFramer) → decoder() → normalizer() [→ finalAccumulator()]
 *
 * compose() returns ONE StageTransform running that chain as createStream
 * does (output 'events', or 'final' when it ends in finalAccumulator()),
 * built from the options those stages were made with: the framing from the
 * framer's kind and its maxFrameBytes, positions and flushIncomplete; the
 * decoder's captures; the normalizer's dialect, onDialect and limits; the
 * final accumulator's limits; the last stage's highWaterMark and the first
 * one's writableHighWaterMark. The stages given are then never used.
 *
 * Its output is what the stages piped one into the other give (read by
 * createStream's fast paths, with no stream hop and far fewer objects), but
 * for one thing, createStream's: an SSE input with no event but lines that
 * are not SSE fields (an HTML error page) ends in a terminal `not_a_stream`
 * error (a standalone framer yields no frame there, so the separate stages
 * yield nothing). Errors are the separate stages': a fatal
 * framing error or a limit (the normalizer's or the accumulator's) destroys
 * the stream with that error, after the items before it. (createStream's
 * lenient guard, which makes a fatal framing error or a normalizer limit a
 * terminal `error` event, is not applied.)
 *
 * Anything else (a Transform of the user's anywhere in the chain, the
 * pass-through accumulators, whose `.stage` state only their own stream
 * updates, another order, a stage already used) is composed with Node's own
 * stream.compose: a node:stream Duplex through which errors and backpressure
 * propagate, with a stream hop between each two stages.
 */
import * as nodeStream from 'node:stream';
import type { Duplex, Stream } from 'node:stream';
import { makeFinalAccumulator, type FusableFinalAccumulator } from '../accumulate/final.js';
import { resolveLimits } from '../limits.js';
import type { FinalAccumulatorOptions, FinalResult } from '../accumulate/types.js';
import type { UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import type { Stage } from '../stage.js';
import { fuseText, type GuardedEventsStage, type TextTakingStage } from './create-stream.js';
import { createEventsStage, type EventsStage, type EventsStageOptions } from './events-stage.js';
import { untouchedStage, type StageDescriptor } from './stage-descriptor.js';
import { StageTransform, type TransformOptions } from './transform.js';

/** Node's stream.compose (Node ≥ 16.9), which @types/node 20 does not declare. */
interface NodeStreamCompose {
  compose(...streams: Stream[]): Duplex;
}

const { compose: composeStreams } = nodeStream as typeof nodeStream & NodeStreamCompose;

export function compose(...stages: Stream[]): Duplex {
  if (stages.length < 2) throw new TypeError('compose() needs at least two stages');
  return fusedChain(stages) ?? composeStreams(...stages);
}

/** The one fused stage for `stages`, when they are a chain of the package's own that it can run (see above); else null. */
function fusedChain(stages: Stream[]): StageTransform<Chunk, UnifiedEvent> | StageTransform<Chunk, FinalResult> | null {
  if (stages.length !== 3 && stages.length !== 4) return null;
  const described = stages.map(untouchedStage);
  const [framer, decoder, normalizer] = described;
  const accumulator: StageDescriptor | undefined = described[3];
  if (framer?.kind !== 'framer' || decoder?.kind !== 'decoder' || normalizer?.kind !== 'normalizer') return null;
  if (stages.length === 4 && accumulator?.kind !== 'finalAccumulator') return null;

  const f = framer.options;
  const n = normalizer.options;
  const options: EventsStageOptions = {
    framing: framer.framing,
    ...defined({
      maxFrameBytes: f.maxFrameBytes,
      positions: f.positions,
      flushIncomplete: f.flushIncomplete,
      captures: decoder.options.captures,
      dialect: n.dialect,
      onDialect: n.onDialect,
      maxBlocks: n.maxBlocks,
      maxToolArgumentBytes: n.maxToolArgumentBytes,
    }),
  };
  const last = (accumulator ?? normalizer).options;
  const transform: TransformOptions = defined({ highWaterMark: last.highWaterMark, writableHighWaterMark: f.writableHighWaterMark });
  const events = createEventsStage(options);
  if (accumulator?.kind !== 'finalAccumulator') return new StageTransform<Chunk, UnifiedEvent>(events, false, transform);
  const a = accumulator.options;
  const limits: FinalAccumulatorOptions = defined({ maxBlocks: a.maxBlocks, maxTextBytes: a.maxTextBytes, maxToolArgumentBytes: a.maxToolArgumentBytes });
  return new StageTransform<Chunk, FinalResult>(finalStage(events, makeFinalAccumulator(resolveLimits(limits))), false, transform);
}

/** `o` without its undefined entries. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The events stage with the final accumulator after it, as createStream's
 * final mode runs them (fuseText), but without the lenient guard. What the
 * accumulator throws (a limit) must still come out as its failure: the
 * normalizer, which catches its own limits while it flushes an open response,
 * must not take it for one of them (createStream's guard does the same).
 */
function finalStage(events: EventsStage, accumulator: FusableFinalAccumulator): Stage<Chunk, FinalResult> {
  // (try/catch in each method rather than a helper taking a closure: takeText runs once per text delta)
  const next: TextTakingStage<FinalResult> = {
    push(ev, emit) {
      try {
        accumulator.push(ev, emit);
      } catch (err) {
        throw new Downstream(err);
      }
    },
    takeText(reasoning, index, contentIndex, text, emit) {
      try {
        return accumulator.takeText(reasoning, index, contentIndex, text, emit);
      } catch (err) {
        throw new Downstream(err);
      }
    },
    takeRaw(reasoning, index, contentIndex, raw, emit) {
      try {
        return accumulator.takeRaw(reasoning, index, contentIndex, raw, emit);
      } catch (err) {
        throw new Downstream(err);
      }
    },
    end(emit) {
      accumulator.end(emit);
    },
  };
  const unguarded: GuardedEventsStage = {
    push: (chunk, emit) => events.push(chunk, emit),
    end: (emit) => events.end(emit),
    setTextSink: (sink, raw) => events.setTextSink(sink, raw),
    abort(err) {
      throw err; // (never called: compose() takes no signal)
    },
  };
  const fused = fuseText(unguarded, next);
  return {
    push(chunk, emit) {
      try {
        fused.push(chunk, emit);
      } catch (err) {
        throw err instanceof Downstream ? err.error : err;
      }
    },
    end(emit) {
      try {
        fused.end(emit);
      } catch (err) {
        throw err instanceof Downstream ? err.error : err;
      }
    },
  };
}

/** Carries an exception of the accumulator through the events stage untouched. */
class Downstream {
  constructor(readonly error: unknown) {}
}
