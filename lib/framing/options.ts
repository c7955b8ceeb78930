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

/** The SSE framer's own option (the auto framer takes it too, for when it picks SSE). */
export interface SseOnlyOptions {
  /**
   * At end of input, dispatch an event that has data but no terminating blank
   * line (recorded logs often lack it). `false` gives the strict browser behaviour.
   * @defaultValue true
   */
  flushIncomplete?: boolean;
}

/** Every framer option, checked once, defaults filled in. */
export type ResolvedFramerOptions = Readonly<Required<FramerOptions & SseOnlyOptions>>;

export function resolveFramerOptions(options: FramerOptions & SseOnlyOptions = {}): ResolvedFramerOptions {
  options = optionsObject(options);
  const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw new OptionError('maxFrameBytes', max, 'a positive integer');
  }
  return Object.freeze({
    maxFrameBytes: max,
    positions: booleanOption('positions', options.positions, false),
    flushIncomplete: booleanOption('flushIncomplete', options.flushIncomplete, true),
  });
}
