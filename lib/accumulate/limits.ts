/**
 * The accumulators' limit meters: a block counter and a UTF-8 byte meter
 * (the limits themselves: ../limits.ts). Exceeding a limit throws LimitExceededError naming it.
 */
import { LimitExceededError } from '../errors.js';
import { byteLength } from '../bytes/index.js';

export { DEFAULT_MAX_BLOCKS, DEFAULT_MAX_TEXT_BYTES, DEFAULT_MAX_TOOL_ARGUMENT_BYTES, limitOption } from '../limits.js';

/** Counts content blocks (text, refusal, reasoning, tool calls) of one response. */
export class BlockCounter {
  count = 0;
  constructor(readonly max: number) {}

  add(): void {
    if (this.count >= this.max) {
      throw new LimitExceededError('maxBlocks', this.max, `a response has more than ${this.max} content blocks and tool calls`);
    }
    this.count++;
  }

  reset(): void {
    this.count = 0;
  }
}

/** Whatever holds the text a meter measures, so the meter can count it exactly once it must. */
export interface Utf8Source {
  /** UTF-8 byte length of everything buffered so far. */
  utf8Bytes(): number;
}

/**
 * Counts buffered text against a byte limit. A UTF-16 code unit is at most 3
 * UTF-8 bytes, so while `3 × units` stays under the limit nothing is measured;
 * past that, the source is measured once and each new piece after it. Call
 * `add` before buffering the piece: the buffer never grows past the limit.
 */
export class ByteMeter {
  private units = 0;
  /** Exact UTF-8 bytes, or -1 while the cheap bound still proves the limit safe. */
  private bytes = -1;

  constructor(
    readonly max: number,
    private readonly limit: string,
    private readonly what: string,
  ) {}

  add(text: string, source: Utf8Source): void {
    if (this.bytes < 0) {
      this.units += text.length;
      if (this.units * 3 <= this.max) return;
      this.bytes = source.utf8Bytes() + byteLength(text);
    } else {
      this.bytes += byteLength(text);
    }
    if (this.bytes > this.max) throw this.error();
  }

  /** Counts text known as `bytes` UTF-8 bytes (not yet in `source`). */
  addBytes(bytes: number, source: Utf8Source): void {
    if (this.bytes < 0) {
      // (bytes bound the text's UTF-16 units from above: the cheap bound stays a bound)
      this.units += bytes;
      if (this.units * 3 <= this.max) return;
      this.bytes = source.utf8Bytes() + bytes;
    } else this.bytes += bytes;
    if (this.bytes > this.max) throw this.error();
  }

  /** Checks a whole text that replaces the buffered one (e.g. authoritative tool arguments). */
  check(text: string): void {
    if (text.length * 3 > this.max && byteLength(text) > this.max) throw this.error();
  }

  reset(): void {
    this.units = 0;
    this.bytes = -1;
  }

  private error(): LimitExceededError {
    return new LimitExceededError(this.limit, this.max, `${this.what} exceeds ${this.max} bytes`);
  }
}
