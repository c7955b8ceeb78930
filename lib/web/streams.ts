/**
 * Every stage as a WHATWG TransformStream (the web counterparts of the Node
 * Transforms in pipeline/framers.ts, stages.ts and accumulators.ts), and the
 * fused stage as WirefoldStream.
 */
import { createFinalAccumulator, type FinalAccumulator } from '../accumulate/final.js';
import { createSignatureAccumulator, type SignatureAccumulator } from '../accumulate/signatures.js';
import { createTextAccumulator, type TextAccumulator } from '../accumulate/text.js';
import { createToolArgsAccumulator, type ToolArgsAccumulator } from '../accumulate/tool-args.js';
import type { FinalAccumulatorOptions, FinalResult, TextAccumulatorOptions, ToolArgsAccumulatorOptions } from '../accumulate/types.js';
import { createUsageAccumulator, type UsageAccumulator } from '../accumulate/usage.js';
import { createMessageDecoder, type CaptureOptions, type MessageInput } from '../dialects/capture.js';
import { createDecoder, type DecoderOptions } from '../dialects/decoder.js';
import { createNormalizer, type NormalizerOptions } from '../dialects/normalizer.js';
import { createEncoder } from '../encode/encoder.js';
import type { EncoderOptions } from '../encode/types.js';
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { createAutoFramer, type AnyFramerOptions } from '../framing/detect.js';
import { createJsonArrayFramer, type JsonArrayFramerOptions } from '../framing/json-array.js';
import { createJsonValuesFramer, type JsonValuesFramerOptions } from '../framing/json-values.js';
import { createNdjsonFramer, type NdjsonFramerOptions } from '../framing/ndjson.js';
import { createSseFramer, type SseFramerOptions } from '../framing/sse.js';
import { checkOptions } from '../options.js';
import type { Stage } from '../stage.js';
import {
  CREATE_STREAM_OPTIONS,
  DECODER_OPTIONS,
  FINAL_ACCUMULATOR_OPTIONS,
  FRAMER_OPTIONS,
  NORMALIZER_OPTIONS,
  PLAIN_ACCUMULATOR_OPTIONS,
  SSE_FRAMER_OPTIONS,
  TEXT_ACCUMULATOR_OPTIONS,
  TOOL_ARGS_ACCUMULATOR_OPTIONS,
} from '../pipeline/option-keys.js';
import { makeFusedStage, type GuardedStage } from '../pipeline/output-stage.js';
import { resolveStreamOptions, type CreateStreamOptions, type OutputMode, type StreamOutput } from '../pipeline/stream-options.js';
import { StageTransformStream, WEB_STREAM_OPTIONS, type WebStreamOptions } from './stage-stream.js';

/** The option names of a stage factory, with `signal` (the Node Transforms take none). */
const web = (known: readonly string[]): readonly string[] => [...new Set([...known, ...WEB_STREAM_OPTIONS])];

/** WirefoldStream's option names: createStream's but `to` and `onLoss` (TranscodeStream's). */
const FUSED_OPTIONS = web(CREATE_STREAM_OPTIONS.filter((k) => k !== 'to' && k !== 'onLoss'));

/** A byte stage's stream: its options checked for `where`, the stage made from them. */
function byteStream<O, T>(options: T & WebStreamOptions, known: readonly string[], where: string, make: (o: T) => Stage<Chunk, O>): [Stage<Chunk, O>, T & WebStreamOptions] {
  const o = checkOptions(options, web(known), where);
  return [make(o), o];
}

export class SseFramerStream extends StageTransformStream<Chunk, Frame> {
  constructor(options: SseFramerOptions & WebStreamOptions = {}) {
    const [stage, o] = byteStream(options, SSE_FRAMER_OPTIONS, 'SseFramerStream', createSseFramer);
    super(stage, true, o);
  }
}

export class JsonArrayFramerStream extends StageTransformStream<Chunk, Frame> {
  constructor(options: JsonArrayFramerOptions & WebStreamOptions = {}) {
    const [stage, o] = byteStream(options, FRAMER_OPTIONS, 'JsonArrayFramerStream', createJsonArrayFramer);
    super(stage, true, o);
  }
}

export class JsonValuesFramerStream extends StageTransformStream<Chunk, Frame> {
  constructor(options: JsonValuesFramerOptions & WebStreamOptions = {}) {
    const [stage, o] = byteStream(options, FRAMER_OPTIONS, 'JsonValuesFramerStream', createJsonValuesFramer);
    super(stage, true, o);
  }
}

/** One frame per non-empty line (the byte scanner the fused pipeline uses). */
export class NdjsonFramerStream extends StageTransformStream<Chunk, Frame> {
  constructor(options: NdjsonFramerOptions & WebStreamOptions = {}) {
    const [stage, o] = byteStream(options, FRAMER_OPTIONS, 'NdjsonFramerStream', createNdjsonFramer);
    super(stage, true, o);
  }
}

/** Picks SSE, JSON array, JSON values or NDJSON from the first non-blank bytes. */
export class AutoFramerStream extends StageTransformStream<Chunk, Frame> {
  constructor(options: AnyFramerOptions & WebStreamOptions = {}) {
    const [stage, o] = byteStream(options, SSE_FRAMER_OPTIONS, 'AutoFramerStream', (x) => createAutoFramer(x));
    super(stage, true, o);
  }
}

/** frames → provider events (each payload JSON-parsed once; `[DONE]` recognised). */
export class DecoderStream extends StageTransformStream<Frame, ProviderEvent> {
  constructor(options: DecoderOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(DECODER_OPTIONS), 'DecoderStream');
    super(createDecoder(o), false, o);
  }
}

/** Already-received WebSocket messages (strings, bytes or parsed objects) → provider events. */
export class MessageDecoderStream extends StageTransformStream<MessageInput, ProviderEvent> {
  constructor(options: CaptureOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(DECODER_OPTIONS), 'MessageDecoderStream');
    super(createMessageDecoder(o), false, o);
  }
}

/** provider events → unified events. */
export class NormalizerStream extends StageTransformStream<ProviderEvent, UnifiedEvent> {
  constructor(options: NormalizerOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(NORMALIZER_OPTIONS), 'NormalizerStream');
    super(createNormalizer(o), false, o);
  }
}

/** Unified events in, one FinalResult per response out (state on `.stage`). */
export class FinalAccumulatorStream extends StageTransformStream<UnifiedEvent, FinalResult> {
  declare readonly stage: FinalAccumulator;
  constructor(options: FinalAccumulatorOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(FINAL_ACCUMULATOR_OPTIONS), 'FinalAccumulatorStream');
    super(createFinalAccumulator(o), false, o);
  }
}

/** Text and reasoning per block on `.stage`; events pass through unchanged. */
export class TextAccumulatorStream extends StageTransformStream<UnifiedEvent, UnifiedEvent> {
  declare readonly stage: TextAccumulator;
  constructor(options: TextAccumulatorOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(TEXT_ACCUMULATOR_OPTIONS), 'TextAccumulatorStream');
    super(createTextAccumulator(o), false, o);
  }
}

/** Tool-call arguments with partial-JSON previews on `.stage`; events pass through unchanged. */
export class ToolArgsAccumulatorStream extends StageTransformStream<UnifiedEvent, UnifiedEvent> {
  declare readonly stage: ToolArgsAccumulator;
  constructor(options: ToolArgsAccumulatorOptions & WebStreamOptions = {}) {
    const o = checkOptions(options, web(TOOL_ARGS_ACCUMULATOR_OPTIONS), 'ToolArgsAccumulatorStream');
    super(createToolArgsAccumulator(o), false, o);
  }
}

/** The last authoritative usage of the response on `.stage`; events pass through unchanged. */
export class UsageAccumulatorStream extends StageTransformStream<UnifiedEvent, UnifiedEvent> {
  declare readonly stage: UsageAccumulator;
  constructor(options: WebStreamOptions = {}) {
    const o = checkOptions(options, web(PLAIN_ACCUMULATOR_OPTIONS), 'UsageAccumulatorStream');
    super(createUsageAccumulator(), false, o);
  }
}

/** Every reasoning signature in order, and the last, on `.stage`; events pass through unchanged. */
export class SignatureAccumulatorStream extends StageTransformStream<UnifiedEvent, UnifiedEvent> {
  declare readonly stage: SignatureAccumulator;
  constructor(options: WebStreamOptions = {}) {
    const o = checkOptions(options, web(PLAIN_ACCUMULATOR_OPTIONS), 'SignatureAccumulatorStream');
    super(createSignatureAccumulator(), false, o);
  }
}

/** Unified events → another provider's wire, as text (with a loss report per response: `onLoss`). */
export class EncoderStream extends StageTransformStream<UnifiedEvent, string> {
  constructor(options: EncoderOptions & WebStreamOptions) {
    const { highWaterMark, writableHighWaterMark, signal, ...encoder } = options;
    super(createEncoder(encoder), false, { highWaterMark, writableHighWaterMark, signal });
  }
}

/**
 * The fused stage as one TransformStream, bytes (or strings) in: unified
 * events, one final per response (`output: 'final'`) or visible text
 * (`'text'`). createStream's options but `to` (TranscodeStream writes other
 * wires, so that this stage's bundle holds no encoder).
 */
class FusedStream<O> extends StageTransformStream<Chunk, O> {
  constructor(options: WirefoldStreamOptions = {}) {
    const resolved = resolveStreamOptions(options, FUSED_OPTIONS, 'WirefoldStream');
    // The overloads of WirefoldStreamConstructor give each output mode its item type; the stage emits that mode's items.
    const stage = makeFusedStage(resolved) as GuardedStage<O>;
    super(stage, true, { ...resolved.transform, signal: resolved.signal }, (err, emit) => stage.abort(err, emit));
  }
}

/** createStream's options but `to` and `onLoss` (TranscodeStream's). */
export type WirefoldStreamOptions = Omit<CreateStreamOptions, 'to' | 'onLoss'>;

export interface WirefoldStreamConstructor {
  new (options: WirefoldStreamOptions & { output: 'final' }): WirefoldStream<FinalResult>;
  new (options: WirefoldStreamOptions & { output: 'text' }): WirefoldStream<string>;
  new (options?: WirefoldStreamOptions & { output?: 'events' }): WirefoldStream<UnifiedEvent>;
  new (options?: WirefoldStreamOptions): WirefoldStream<StreamOutput<OutputMode>>;
  readonly prototype: WirefoldStream<unknown>;
}

/** `response.body.pipeThrough(new WirefoldStream({ output: 'final' }))`: createStream as a web TransformStream. */
export type WirefoldStream<O> = StageTransformStream<Chunk, O>;
export const WirefoldStream: WirefoldStreamConstructor = FusedStream;
