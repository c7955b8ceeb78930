/**
 * The option names each public entry accepts, so that a misspelt one is an
 * OptionError naming the closest (see knownOptions) instead of being ignored.
 * Each list is checked against its options interface at compile time.
 */
import type { FinalAccumulatorOptions, TextAccumulatorOptions, ToolArgsAccumulatorOptions } from '../accumulate/types.js';
import type { CaptureOptions } from '../dialects/capture.js';
import type { NormalizerOptions } from '../dialects/normalizer.js';
import type { AnyFramerOptions } from '../framing/detect.js';
import type { FramerOptions } from '../framing/options.js';
import { optionKeys } from '../options.js';
import type { CreateStreamOptions } from './stream-options.js';
import type { TransformOptions } from './transform.js';

const TRANSFORM = optionKeys<TransformOptions>()(['highWaterMark', 'writableHighWaterMark']);
const FRAMER = optionKeys<FramerOptions>()(['maxFrameBytes', 'positions']);
const ANY_FRAMER = optionKeys<AnyFramerOptions>()(['maxFrameBytes', 'positions', 'flushIncomplete']);
const CAPTURE = optionKeys<CaptureOptions>()(['captures']);
const NORMALIZER = optionKeys<NormalizerOptions>()(['dialect', 'onDialect', 'maxBlocks', 'maxToolArgumentBytes']);
const TOOL_ARGS = optionKeys<ToolArgsAccumulatorOptions>()(['maxBlocks', 'maxToolArgumentBytes']);
const TEXT = optionKeys<TextAccumulatorOptions>()(['maxBlocks', 'maxTextBytes']);
const FINAL = optionKeys<FinalAccumulatorOptions>()(['maxBlocks', 'maxTextBytes', 'maxToolArgumentBytes']);

/** createStream(): every events-stage, accumulator and Transform option. */
export const CREATE_STREAM_OPTIONS = optionKeys<CreateStreamOptions>()([
  'output',
  'to',
  'onLoss',
  'passThrough',
  'audioFormat',
  'strict',
  'signal',
  'fastPath',
  'dialect',
  'framing',
  'positions',
  'maxFrameBytes',
  'flushIncomplete',
  'captures',
  'onFraming',
  'onDialect',
  'maxBlocks',
  'maxToolArgumentBytes',
  'maxTextBytes',
  'highWaterMark',
  'writableHighWaterMark',
]);

/** events(), finals() and read(): createStream's options but the output mode and the Transform's buffer sizes. */
export const ITERATE_OPTIONS = CREATE_STREAM_OPTIONS.filter(
  (k) => k !== 'output' && k !== 'to' && k !== 'onLoss' && k !== 'highWaterMark' && k !== 'writableHighWaterMark',
);

export const FRAMER_OPTIONS = [...FRAMER, ...TRANSFORM];
export const SSE_FRAMER_OPTIONS = [...ANY_FRAMER, ...TRANSFORM];
export const AUTO_FRAMER_OPTIONS = SSE_FRAMER_OPTIONS;
export const DECODER_OPTIONS = [...CAPTURE, ...TRANSFORM];
export const NORMALIZER_OPTIONS = [...NORMALIZER, ...TRANSFORM];
export const TOOL_ARGS_ACCUMULATOR_OPTIONS = [...TOOL_ARGS, ...TRANSFORM];
export const TEXT_ACCUMULATOR_OPTIONS = [...TEXT, ...TRANSFORM];
export const FINAL_ACCUMULATOR_OPTIONS = [...FINAL, ...TRANSFORM];
export const PLAIN_ACCUMULATOR_OPTIONS = TRANSFORM;
