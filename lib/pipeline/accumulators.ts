/** The accumulators as object-mode Transforms (state stays readable on `.stage`). */
import { createFinalAccumulator, type FinalAccumulator } from '../accumulate/final.js';
import { createSignatureAccumulator, type SignatureAccumulator } from '../accumulate/signatures.js';
import { createTextAccumulator, type TextAccumulator } from '../accumulate/text.js';
import { createToolArgsAccumulator, type ToolArgsAccumulator } from '../accumulate/tool-args.js';
import type {
  FinalAccumulatorOptions,
  FinalResult,
  TextAccumulatorOptions,
  ToolArgsAccumulatorOptions,
} from '../accumulate/types.js';
import { createUsageAccumulator, type UsageAccumulator } from '../accumulate/usage.js';
import type { UnifiedEvent } from '../events.js';
import { checkOptions } from '../options.js';
import {
  FINAL_ACCUMULATOR_OPTIONS,
  PLAIN_ACCUMULATOR_OPTIONS,
  TEXT_ACCUMULATOR_OPTIONS,
  TOOL_ARGS_ACCUMULATOR_OPTIONS,
} from './option-keys.js';
import { StageTransform, type TransformOptions } from './transform.js';
import { recordStage } from './stage-descriptor.js';

/** A pass-through accumulator Transform whose state is `stage`. */
export type AccumulatorTransform<S> = StageTransform<UnifiedEvent, UnifiedEvent> & { readonly stage: S };

function wrap<S extends { push: StageTransform<UnifiedEvent, UnifiedEvent>['stage']['push']; end: StageTransform<UnifiedEvent, UnifiedEvent>['stage']['end'] }>(
  stage: S,
  options: TransformOptions,
): AccumulatorTransform<S> {
  return new StageTransform<UnifiedEvent, UnifiedEvent>(stage, true, options) as AccumulatorTransform<S>;
}

/** Text and reasoning per block; events pass through unchanged. */
export function textAccumulator(options: TextAccumulatorOptions & TransformOptions = {}): AccumulatorTransform<TextAccumulator> {
  checkOptions(options, TEXT_ACCUMULATOR_OPTIONS, 'textAccumulator()');
  return wrap(createTextAccumulator(options), options);
}

/** Tool-call arguments with partial-JSON previews; events pass through unchanged. */
export function toolArgsAccumulator(options: ToolArgsAccumulatorOptions & TransformOptions = {}): AccumulatorTransform<ToolArgsAccumulator> {
  checkOptions(options, TOOL_ARGS_ACCUMULATOR_OPTIONS, 'toolArgsAccumulator()');
  return wrap(createToolArgsAccumulator(options), options);
}

/** The last authoritative usage of the response; events pass through unchanged. */
export function usageAccumulator(options: TransformOptions = {}): AccumulatorTransform<UsageAccumulator> {
  checkOptions(options, PLAIN_ACCUMULATOR_OPTIONS, 'usageAccumulator()');
  return wrap(createUsageAccumulator(), options);
}

/** Every reasoning signature in order, and the last; events pass through unchanged. */
export function signatureAccumulator(options: TransformOptions = {}): AccumulatorTransform<SignatureAccumulator> {
  checkOptions(options, PLAIN_ACCUMULATOR_OPTIONS, 'signatureAccumulator()');
  return wrap(createSignatureAccumulator(), options);
}

/** Unified events in, one FinalResult per response out. */
export function finalAccumulator(
  options: FinalAccumulatorOptions & TransformOptions = {},
): StageTransform<UnifiedEvent, FinalResult> & { readonly stage: FinalAccumulator } {
  checkOptions(options, FINAL_ACCUMULATOR_OPTIONS, 'finalAccumulator()');
  const stream = new StageTransform<UnifiedEvent, FinalResult>(createFinalAccumulator(options), true, options) as StageTransform<UnifiedEvent, FinalResult> & {
    readonly stage: FinalAccumulator;
  };
  return recordStage(stream, { kind: 'finalAccumulator', options });
}
