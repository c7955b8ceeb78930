/**
 * Where the output of one input goes. In the main thread it is the command's
 * Output (stdout, and stderr for diagnostics). In a --jobs worker it is a
 * BufferSink: the same calls, recorded as the output's UTF-8 bytes plus the
 * diagnostics and where they fell in them; the main thread replays the
 * record through its Output in input order, so the bytes on stdout, the
 * messages on stderr and their order are those of --jobs 1.
 */
import type { Output } from './output.js';

export interface Sink {
  /** Data for stdout; false (or a promise of false) when stdout is gone (its reader closed it). */
  text(text: string): Promise<boolean> | boolean;
  /** A one-line message for stderr (without the `wirefold: ` prefix; `bare`: written as it is, e.g. a JSON line), after the text so far. */
  diagnostic(message: string, bare?: boolean): Promise<void>;
}

/** A diagnostic in a recorded output: its message, after the first `at` bytes. */
export interface Note {
  at: number;
  message: string;
  bare?: true;
}

/** One input's output as a worker recorded it. */
export interface Recorded {
  bytes: Uint8Array;
  notes: Note[];
}

export class BufferSink implements Sink {
  /** Its own ArrayBuffer (not the shared pool's), so that it can be transferred to the main thread. */
  private buf: Buffer;
  private length = 0;
  private readonly notes: Note[] = [];

  constructor(initial = 16 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(initial);
  }

  text(text: string): boolean {
    if (text.length === 0) return true;
    // Written without measuring its UTF-8 length first (Buffer.byteLength is a pass over the whole string): when it may
    // not have fit (a partial write stops within 3 bytes of the end), it is written again into a larger buffer.
    for (;;) {
      const room = this.buf.length - this.length;
      if (room >= text.length * 3) {
        this.length += this.buf.write(text, this.length, 'utf8');
        return true;
      }
      if (room >= 4) {
        const written = this.buf.write(text, this.length, room, 'utf8');
        if (written < room - 3) {
          this.length += written;
          return true;
        }
      }
      this.grow(this.length + text.length + (text.length >> 2) + 4);
    }
  }

  /** A buffer of at least `need` bytes (twice the size at least), the bytes so far copied. */
  private grow(need: number): void {
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const bigger = Buffer.allocUnsafeSlow(size);
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  diagnostic(message: string, bare = false): Promise<void> {
    this.notes.push(bare ? { at: this.length, message, bare } : { at: this.length, message });
    return Promise.resolve();
  }

  /** What was written; the sink is not to be used after this. */
  take(): Recorded {
    return { bytes: this.buf.subarray(0, this.length), notes: this.notes };
  }
}

/**
 * Writes a recorded output through `output`: the text up to each diagnostic,
 * the diagnostic (after `beforeNote`, which clears a progress line), the
 * rest. False when stdout is gone (the diagnostics after that are not told,
 * as in the main thread).
 */
export async function replay(recorded: Recorded, output: Output, beforeNote: () => void = () => {}): Promise<boolean> {
  const { bytes, notes } = recorded;
  let from = 0;
  for (const note of notes) {
    if (note.at > from) {
      if (!(await output.text(bytes.subarray(from, note.at)))) return false;
      from = note.at;
    }
    beforeNote();
    await output.diagnostic(note.message, note.bare === true);
  }
  return from < bytes.length ? await output.text(bytes.subarray(from)) : true;
}
