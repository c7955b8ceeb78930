import { OptionError } from '../errors.js';
import { booleanOption, optionsObject } from '../options.js';
import { DEFAULT_MAX_FRAME_BYTES } from './bytes.js';

/** Options shared by every framer. */
export interface FramerOptions {
  /**
   * Largest line, frame or array element, in bytes. Past it the stream is
   * destroyed with a FrameTooLargeError.
   * @defaultValue 8 MiB
   */
  maxFrameBytes?: number;
  /**
   * Put `at: { frame, offset }` on every frame (and so on every event built from it).
   * @defaultValue false
   */
  positions?: boolean;
}

export interface ResolvedFramerOptions {
  maxFrameBytes: number;
  positions: boolean;
}

export function resolveFramerOptions(options: FramerOptions = {}): ResolvedFramerOptions {
  options = optionsObject(options);
  const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw new OptionError('maxFrameBytes', max, 'a positive integer');
  }
  return { maxFrameBytes: max, positions: booleanOption('positions', options.positions, false) };
}
