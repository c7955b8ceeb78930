/** Runs the CLI's main() in-process with in-memory standard streams. */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../lib/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `stdin` is the input bytes (a string, or the chunks to deliver); `tty` marks stdout as a terminal, `stdinTTY` stdin. */
export async function runCli(argv: string[], stdin: string | Buffer | Buffer[] = '', tty = false, stdinTTY = false): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (tty) (stdout as PassThrough & { isTTY?: boolean }).isTTY = true;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const chunks = Array.isArray(stdin) ? stdin : [typeof stdin === 'string' ? Buffer.from(stdin) : stdin];
  const code = await main(argv, { stdin: Readable.from(chunks), stdout, stderr, ...(stdinTTY ? { stdinIsTTY: true } : {}) });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}
