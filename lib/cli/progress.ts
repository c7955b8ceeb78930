/**
 * A progress bar on stderr for long files: bytes read of total, MB/s, ETA.
 * Only on a TTY and for files past a few MB (never on a pipe, never with --quiet),
 * redrawn at most ten times a second, erased when done (or for a message:
 * `clear`, and the next `add` draws it again).
 */
import type { Writable } from 'node:stream';

export const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

export interface Progress {
  add(bytes: number): void;
  /** Erases the bar (for a message on stderr); the next `add` draws it again. */
  clear(): void;
  done(): void;
}

export function createProgress(out: Writable, label: string, total: number, now: () => number = Date.now): Progress {
  const started = now();
  let read = 0;
  let last = 0;
  let drawn = false;
  const width = 24;

  function draw(): void {
    const elapsed = Math.max(1, now() - started) / 1000;
    const rate = read / elapsed;
    const frac = total > 0 ? Math.min(1, read / total) : 0;
    const filled = Math.round(frac * width);
    const eta = rate > 0 ? Math.max(0, (total - read) / rate) : 0;
    const line =
      `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ` +
      `${mb(read)}/${mb(total)} MB ${mb(rate)} MB/s ETA ${clock(eta)}`;
    out.write(`\r${line}\x1b[K`);
    drawn = true;
  }

  function clear(): void {
    if (drawn) out.write('\r\x1b[K');
    drawn = false;
    last = 0;
  }

  return {
    add(bytes) {
      read += bytes;
      const t = now();
      if (t - last >= 100) {
        last = t;
        draw();
      }
    },
    clear,
    done: clear,
  };
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * With --jobs: `wirefold: N/M inputs done` on stderr as the inputs are
 * written, redrawn at most ten times a second (and at the last), erased
 * when done or for a message (the next `add` draws it again).
 */
export function createCountProgress(out: Writable, total: number, now: () => number = Date.now): Progress {
  let done = 0;
  let last = 0;
  let drawn = false;
  const clear = (): void => {
    if (drawn) out.write('\r\x1b[K');
    drawn = false;
    last = 0;
  };
  return {
    add(count) {
      done += count;
      const t = now();
      if (t - last >= 100 || done === total) {
        last = t;
        out.write(`\rwirefold: ${done}/${total} inputs done\x1b[K`);
        drawn = true;
      }
    },
    clear,
    done: clear,
  };
}
