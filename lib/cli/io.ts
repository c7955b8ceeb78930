/** What the CLI's modules share: its standard streams (so tests can run main() in-process), and the terminal hint. */
import type { Readable, Writable } from 'node:stream';

export interface CliIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Whether stderr is a terminal (enables the progress bar for large files). */
  stderrIsTTY?: boolean;
  /** Whether stdin is a terminal: reading it then starts with a one-line hint on stderr. */
  stdinIsTTY?: boolean;
}

/** Told on stderr before reading a terminal: a bare `wirefold` would otherwise wait in silence. */
export const TERMINAL_HINT = "wirefold: reading standard input from the terminal (end it with Ctrl-D; 'wirefold --help' for usage)\n";
