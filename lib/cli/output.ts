/**
 * The command's two outputs: the data on stdout, diagnostics (one-line
 * `wirefold: …` messages) on stderr.
 *
 * The rule for a diagnostic: it is written once the stdout text before it is
 * out (that write's callback has run), so a terminal shows the two in the
 * order they happened; and when stdout and stderr reach the same place (one
 * terminal, or one pipe or file after `2>&1`) while the text written so far
 * does not end its line (--out text, mid-response), it starts with a newline
 * so that it begins at column 0 instead of trailing the text. That newline
 * goes to stderr, never to stdout: the data a pipe or file gets is never
 * altered. When the two go to different places nothing is added: stderr is
 * already at column 0, since every diagnostic ends its line.
 */
import { fstatSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { CliIO } from './io.js';

function isTTY(stream: unknown): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * Whether stdout and stderr reach the same place: the same file, pipe or
 * terminal by their descriptors (process.stdout and process.stderr have
 * them), else (streams without one) when both are terminals.
 */
function sameDestination(io: CliIO): boolean {
  const out = (io.stdout as { fd?: unknown }).fd;
  const err = (io.stderr as { fd?: unknown }).fd;
  if (typeof out === 'number' && typeof err === 'number') {
    try {
      const a = fstatSync(out);
      const b = fstatSync(err);
      return a.dev === b.dev && a.ino === b.ino && a.rdev === b.rdev;
    } catch {
      // not a descriptor fstat can read: judge by the terminals
    }
  }
  return isTTY(io.stdout) && (io.stderrIsTTY === true || isTTY(io.stderr));
}

/** Resolves once `done` has, or `out` closed or failed (a destroyed stream may never call back). */
function settled(done: Promise<void>, out: Writable): Promise<void> {
  if (out.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = (): void => {
      out.off('close', finish);
      out.off('error', finish);
      resolve();
    };
    out.on('close', finish);
    out.on('error', finish);
    void done.then(finish);
  });
}

export class Output {
  private readonly shared: boolean;
  /** Whether the last byte written to stdout was a newline (or nothing was; or, shared, a diagnostic came since). */
  private atLineStart = true;
  /** The last stdout write's callback. */
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly io: CliIO) {
    this.shared = sameDestination(io);
  }

  /** Writes to stdout with backpressure (text, or its UTF-8 bytes); false when stdout is gone (its reader closed it). */
  text(text: string | Uint8Array): Promise<boolean> | boolean {
    if (text.length === 0) return true;
    const out = this.io.stdout;
    if (out.writableEnded || out.destroyed) return false;
    this.atLineStart = (typeof text === 'string' ? text.charCodeAt(text.length - 1) : text[text.length - 1]) === 0x0a;
    let ok = true;
    this.written = new Promise<void>((resolve) => {
      ok = out.write(text, () => resolve());
    });
    if (ok) return true;
    return new Promise((resolve) => {
      const done = (result: boolean): void => {
        out.off('drain', onDrain);
        out.off('error', onGone);
        out.off('close', onGone);
        resolve(result);
      };
      const onDrain = (): void => done(true);
      const onGone = (): void => done(false);
      out.on('drain', onDrain);
      out.on('error', onGone);
      out.on('close', onGone);
    });
  }

  /** `wirefold: <message>` on stderr, after the text written so far, at column 0 (see above). */
  async diagnostic(message: string, bare = false): Promise<void> {
    await settled(this.written, this.io.stdout);
    const lead = this.shared && !this.atLineStart ? '\n' : '';
    this.io.stderr.write(`${lead}${bare ? '' : 'wirefold: '}${message}\n`);
    if (this.shared) this.atLineStart = true; // the place both reach is at column 0 now
  }
}
