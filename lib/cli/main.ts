/**
 * The wirefold command: the same fused pipeline as createStream, for Unix
 * pipes and log reprocessing. `main` takes its streams as arguments so tests
 * can run it in-process; bin/wirefold.js only calls it.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { StreamError } from '../errors.js';
import type { ErrorEvent, Frame, UnifiedEvent } from '../events.js';
import type { FinalResult } from '../accumulate/types.js';
import { createAutoFramer, createFramer } from '../framing/detect.js';
import type { Chunk } from '../framing/bytes.js';
import type { InternalSseOptions } from '../framing/sse.js';
import { createGuardedEventsStage, createTextStage, errorFromEvent, fuseText, type TextTakingStage } from '../pipeline/create-stream.js';
import { createFusableFinalAccumulator } from '../accumulate/final.js';
import { chain, type Stage } from '../stage.js';
import { createAudioWriter } from './audio-out.js';
import { createProgress, PROGRESS_MIN_BYTES, type Progress } from './progress.js';
import { basename } from 'node:path';
import { parseCli, USAGE, UsageError, type CliOptions } from './args.js';

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

type Item = Frame | UnifiedEvent | FinalResult | string;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * --out text: the text stage, with each error event reported on stderr as it
 * comes (text has no room for it, and a pipe user must not lose it).
 */
function textReportingErrors(report: (ev: ErrorEvent) => void): TextTakingStage<string> {
  const text = createTextStage();
  return {
    push(ev, emit) {
      if (ev.type === 'error') report(ev);
      text.push(ev, emit);
    },
    takeText: text.takeText,
    end: text.end,
  };
}

function makeStage(opts: CliOptions, file: string, index: number, report: (ev: ErrorEvent) => void): Stage<Chunk, Item> {
  if (opts.out === 'frames') {
    const o: InternalSseOptions & { positions: boolean } = {
      positions: opts.positions,
      // no frame for it: told on stderr, as the other modes' not_a_stream error
      onUnframed: (u) => report(u.errorEvent()),
    };
    return opts.framing === 'auto' ? createAutoFramer(o) : createFramer(opts.framing, o);
  }
  const guarded = createGuardedEventsStage({
    dialect: opts.dialect,
    framing: opts.framing,
    // --strict names where the error happened, so it always tracks positions.
    positions: opts.positions || opts.strict,
    strict: opts.strict,
  });
  if (opts.audioOut === null) {
    // as createStream: text deltas go straight into the final result / text output
    if (opts.out === 'final') return fuseText(guarded, createFusableFinalAccumulator());
    if (opts.out === 'text') return fuseText(guarded, textReportingErrors(report));
    return guarded;
  }
  const prefix = `${String(index + 1).padStart(2, '0')}-${file === '-' ? 'stdin' : basename(file).replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  const events = chain(guarded, createAudioWriter(opts.audioOut, prefix));
  if (opts.out === 'final') return chain(events, createFusableFinalAccumulator());
  if (opts.out === 'text') return chain(events, textReportingErrors(report));
  return events;
}

function formatter(opts: CliOptions): (item: Item) => string | null {
  if (opts.out === 'text') return (item) => item as string;
  const stripAt = opts.strict && !opts.positions && opts.out === 'events';
  if (opts.out === 'events') {
    return (item) => {
      const ev = item as UnifiedEvent;
      if (ev.type === 'raw' && !opts.raw) return null;
      if (stripAt) delete ev.at;
      return JSON.stringify(ev) + '\n';
    };
  }
  return (item) => JSON.stringify(item) + '\n';
}

/** Writes with backpressure; resolves false when stdout is gone (EPIPE). */
function writeOut(out: Writable, text: string): Promise<boolean> | boolean {
  if (text.length === 0) return true;
  if (out.writableEnded || out.destroyed) return false;
  if (out.write(text)) return true;
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onError = (): void => done(false);
    const onClose = (): void => done(false);
    out.on('drain', onDrain);
    out.on('error', onError);
    out.on('close', onClose);
  });
}

function openInput(file: string, io: CliIO): Readable {
  return file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 64 * 1024 });
}

function checkReadable(file: string): string | null {
  if (file === '-') return null;
  try {
    const st = statSync(file);
    if (st.isDirectory()) return `${file}: is a directory`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}`;
  }
  return null;
}

function progressFor(file: string, opts: CliOptions, io: CliIO): Progress | null {
  if (file === '-' || opts.quiet || opts.progress === false) return null;
  if (opts.progress !== true && io.stderrIsTTY !== true) return null;
  const size = statSync(file).size;
  if (opts.progress !== true && size < PROGRESS_MIN_BYTES) return null;
  return createProgress(io.stderr, basename(file), size);
}

async function runFile(file: string, index: number, opts: CliOptions, io: CliIO): Promise<number | null> {
  const name = file === '-' ? 'stdin' : file;
  const stage = makeStage(opts, file, index, (ev) => {
    io.stderr.write(`wirefold: ${name}: ${errorFromEvent(ev).message}\n`);
  });
  const progress = progressFor(file, opts, io);
  const format = formatter(opts);
  const lines: string[] = [];
  const emit = (item: Item): void => {
    const s = format(item);
    if (s !== null) lines.push(s);
  };
  const flush = async (): Promise<boolean> => {
    if (lines.length === 0) return true;
    const text = lines.join('');
    lines.length = 0;
    return await writeOut(io.stdout, text);
  };
  const input = openInput(file, io);
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      progress?.add(chunk.length);
      stage.push(chunk, emit);
      if (!(await flush())) return 0;
    }
    stage.end(emit);
    progress?.done();
    if (!(await flush())) return 0;
  } catch (err) {
    progress?.done();
    await flush();
    if (err instanceof StreamError) {
      io.stderr.write(`wirefold: ${name}: ${err.message}\n`);
      return 1;
    }
    const code = (err as NodeJS.ErrnoException).code;
    io.stderr.write(`wirefold: cannot read ${name}: ${code ?? (err as Error).message}\n`);
    return 2;
  }
  return null;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`wirefold: ${err.message}\nTry 'wirefold --help'.\n`);
      return 2;
    }
    throw err;
  }
  if (opts.command === 'help') {
    io.stdout.write(USAGE + '\n');
    return 0;
  }
  if (opts.command === 'version') {
    io.stdout.write(version() + '\n');
    return 0;
  }
  for (const file of opts.files) {
    const problem = checkReadable(file);
    if (problem !== null) {
      io.stderr.write(`wirefold: ${problem}\n`);
      return 2;
    }
  }
  if (io.stdinIsTTY === true && !opts.quiet && opts.files.includes('-')) io.stderr.write(TERMINAL_HINT);
  if (opts.command === 'doctor') {
    const { doctor } = await import('./doctor.js');
    return doctor(opts, io);
  }
  for (const [index, file] of opts.files.entries()) {
    const code = await runFile(file, index, opts, io);
    if (code !== null) return code;
  }
  return 0;
}
