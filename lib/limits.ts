/**
 * The memory limits of one response, in one place below the dialects (which
 * enforce the tool limits even in events mode) and the accumulators.
 */
import { OptionError } from './errors.js';

export const DEFAULT_MAX_TOOL_ARGUMENT_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_BLOCKS = 10_000;
export const DEFAULT_MAX_TEXT_BYTES = 64 * 1024 * 1024;

export interface LimitOptions {
  /** Tool-argument bytes buffered per call. @defaultValue 8 MiB */
  maxToolArgumentBytes?: number;
  /** Tool calls (events) / content blocks and tool calls (final) per response. @defaultValue 10,000 */
  maxBlocks?: number;
  /** Text and reasoning bytes buffered per response (final). @defaultValue 64 MiB */
  maxTextBytes?: number;
}

export type Limits = Readonly<Required<LimitOptions>>;

/** Reads a limit option: a non-negative integer, or Infinity to disable it. */
export function limitOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0) || (value !== Infinity && !Number.isSafeInteger(value))) {
    throw new OptionError(name, value, 'a non-negative integer or Infinity');
  }
  return value;
}

/** Every limit checked once, defaults filled in. */
export function resolveLimits(options: LimitOptions): Limits {
  return Object.freeze({
    maxToolArgumentBytes: limitOption('maxToolArgumentBytes', options.maxToolArgumentBytes, DEFAULT_MAX_TOOL_ARGUMENT_BYTES),
    maxBlocks: limitOption('maxBlocks', options.maxBlocks, DEFAULT_MAX_BLOCKS),
    maxTextBytes: limitOption('maxTextBytes', options.maxTextBytes, DEFAULT_MAX_TEXT_BYTES),
  });
}
