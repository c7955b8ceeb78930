/**
 * Splits a byte stream into record lines at `\n` (a `\r` before it is
 * dropped: `\r\n` is tolerated). A line past `maxBytes` is not held: its
 * bytes are counted and dropped up to its end, and it comes out as an
 * Oversized marker, so that one huge line costs neither memory nor the
 * line count.
 */

/** A line longer than the limit, in place of its bytes. */
export class Oversized {
  constructor(readonly bytes: number) {}
}

export type Line = Buffer | Oversized;

export interface LineSplitter {
  push(chunk: Buffer, out: (line: Line) => void): void;
  /** The unterminated last line, if any (an empty one is no line: the input ended with its newline). */
  end(out: (line: Line) => void): void;
}

const LF = 0x0a;
const CR = 0x0d;

/** `line` without one trailing `\r`. */
export function dropCR(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
}

export function createLineSplitter(maxBytes: number): LineSplitter {
  /** The current line's pieces so far (none while skipping an oversized one). */
  let parts: Buffer[] = [];
  let size = 0;
  /** Whether the current line's last byte so far is a `\r` (maybe the first byte of its `\r\n` ending). */
  let lastCR = false;
  let skipping = false;

  const take = (piece: Buffer): void => {
    if (piece.length === 0) return;
    size += piece.length;
    lastCR = piece[piece.length - 1] === CR;
    if (skipping) return;
    // the limit is on the line without its `\r\n` ending
    if (size - (lastCR ? 1 : 0) > maxBytes) {
      skipping = true;
      parts = [];
      return;
    }
    parts.push(piece);
  };

  const finish = (out: (line: Line) => void): void => {
    if (skipping) out(new Oversized(size - (lastCR ? 1 : 0)));
    else out(dropCR(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)));
    parts = [];
    size = 0;
    lastCR = false;
    skipping = false;
  };

  return {
    push(chunk, out) {
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(LF, from);
        if (nl === -1) break;
        take(chunk.subarray(from, nl));
        finish(out);
        from = nl + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
    },
    end(out) {
      if (size > 0) finish(out);
    },
  };
}
