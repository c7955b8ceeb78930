/**
 * The wirefold command: the same fused pipeline as createStream, for Unix
 * pipes and log reprocessing. `main` takes its streams as arguments so tests
 * can run it in-process; bin/wirefold.js only calls it.
 */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { StreamError } from '../errors.js';
import type { ErrorEvent, Frame, UnifiedEvent } from '../events.js';
import type { FinalResult } from '../accumulate/types.js';
import { makeAutoFramer, makeFramer } from '../framing/detect.js';
import { resolveFramerOptions } from '../framing/options.js';
import type { Chunk } from '../framing/bytes.js';
import type { SseHooks } from '../framing/sse.js';
import { createGuardedEventsStage, createTextStage, errorFromEvent, fuseText, type TextTakingStage } from '../pipeline/create-stream.js';
import { createFusableFinalAccumulator } from '../accumulate/final.js';
import { chain, type Stage } from '../stage.js';
import { createAudioWriter } from './audio-out.js';
import { createProgress, PROGRESS_MIN_BYTES, type Progress } from './progress.js';
import { basename } from 'node:path';
import { DOCTOR_USAGE, EXIT_FAILED, EXIT_OK, EXIT_USAGE, parseCli, USAGE, UsageError, worse, type CliOptions } from './args.js';
import { InputError, inputName, openInput, reason, type Input } from './input.js';
import { Output } from './output.js';
import { TERMINAL_HINT, type CliIO } from './io.js';
import { records } from '../records/transform.js';
import { finalToRow, recordToRows } from '../records/row.js';
import type { RecordOutput } from '../records/types.js';

export type { CliIO } from './io.js';
export { TERMINAL_HINT } from './io.js';

type Item = Frame | UnifiedEvent | FinalResult | string;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * --out text: the text stage, with each error event reported on stderr where
 * it falls in the text (text has no room for it, and a pipe user must not
 * lose it): `report` queues it with the text, runFile writes both in order.
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
    const o = resolveFramerOptions({ positions: opts.positions });
    const hooks: SseHooks = {
      // no frame for it: told on stderr, as the other modes' not_a_stream error (--strict: it stops the run)
      onUnframed: (u) => {
        if (opts.strict) throw errorFromEvent(u.errorEvent());
        report(u.errorEvent());
      },
    };
    return opts.framing === 'auto' ? makeAutoFramer(o, undefined, hooks) : makeFramer(opts.framing, o, hooks);
  }
  const guarded = createGuardedEventsStage({
    dialect: opts.dialect,
    framing: opts.framing,
    // --strict names where the error happened, so it always tracks positions.
    positions: opts.positions || opts.strict,
    strict: opts.strict,
  });
  const finals = opts.out === 'final' || opts.out === 'rows';
  if (opts.audioOut === null) {
    // as createStream: text deltas go straight into the final result / text output
    if (finals) return fuseText(guarded, createFusableFinalAccumulator());
    if (opts.out === 'text') return fuseText(guarded, textReportingErrors(report));
    return guarded;
  }
  const prefix = `${String(index + 1).padStart(2, '0')}-${file === '-' ? 'stdin' : basename(file).replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  const events = chain(guarded, createAudioWriter(opts.audioOut, prefix));
  if (finals) return chain(events, createFusableFinalAccumulator());
  if (opts.out === 'text') return chain(events, textReportingErrors(report));
  return events;
}

function formatter(opts: CliOptions): (item: Item) => string | null {
  if (opts.out === 'text') return (item) => item as string;
  if (opts.out === 'rows') return (item) => JSON.stringify(finalToRow(item as FinalResult)) + '\n';
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

function progressFor(input: Input, opts: CliOptions, io: CliIO): Progress | null {
  if (input.size === null || opts.quiet || opts.progress === false) return null;
  if (opts.progress !== true && io.stderrIsTTY !== true) return null;
  if (opts.progress !== true && input.size < PROGRESS_MIN_BYTES) return null;
  return createProgress(io.stderr, basename(input.name), input.size);
}

/** What reading one input came to: its exit status, and whether the run stops there. */
interface Outcome {
  code: number;
  stop: boolean;
}

/**
 * The one-line message of the StreamError that stopped the run, as
 * errorFromEvent words it: `<code> at byte X (frame Y): <cause>`, each once.
 * A --strict error event's error is already that; a framer's own (a fatal
 * framing error, thrown as it is) is put in the same form.
 */
function stopMessage(err: StreamError): string {
  if (err.message.startsWith(`${err.code} `) || err.message.startsWith(`${err.code}:`)) return err.message;
  const ev: ErrorEvent = { type: 'error', code: err.code, message: err.message, terminal: true };
  if (err.offset !== undefined && err.frame !== undefined) ev.at = { frame: err.frame, offset: err.offset };
  return errorFromEvent(ev).message;
}

/** A message for stderr, queued with the output so it comes out in stream order (see output.ts). */
class Diagnostic {
  constructor(readonly message: string) {}
}

async function runFile(file: string, index: number, opts: CliOptions, io: CliIO, output: Output): Promise<Outcome> {
  let input: Input;
  try {
    input = await openInput(file, io);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    await output.diagnostic(`${inputName(file)}: ${err.message}`);
    return { code: EXIT_USAGE, stop: false };
  }
  const name = input.name;
  const format = formatter(opts);
  /** What the stage gave for the current chunk: output text, and diagnostics where they fell in it. */
  const queue: (string | Diagnostic)[] = [];
  const stage = makeStage(opts, file, index, (ev) => {
    queue.push(new Diagnostic(errorFromEvent(ev).message));
  });
  const progress = progressFor(input, opts, io);
  const emit = (item: Item): void => {
    const s = format(item);
    if (s !== null) queue.push(s);
  };
  const say = async (message: string): Promise<void> => {
    progress?.clear();
    await output.diagnostic(`${name}: ${message}`);
  };
  /** Writes out the queue, in order; false when stdout is gone. */
  const flush = async (): Promise<boolean> => {
    let from = 0;
    try {
      for (let i = 0; i < queue.length; i++) {
        const piece = queue[i];
        if (!(piece instanceof Diagnostic)) continue;
        if (!(await output.text(queue.slice(from, i).join('')))) return false;
        await say(piece.message);
        from = i + 1;
      }
      return await output.text(from === 0 ? queue.join('') : queue.slice(from).join(''));
    } finally {
      queue.length = 0;
    }
  };
  // stdout gone (its reader closed it): stop quietly, as cat does on SIGPIPE.
  const gone: Outcome = { code: EXIT_OK, stop: true };
  const chunks = (input.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (err) {
        // the input failed mid-way: what came before is out; the next inputs are still read
        progress?.done();
        if (!(await flush())) return gone;
        await say(reason(err));
        return { code: EXIT_USAGE, stop: false };
      }
      if (next.done === true) break;
      progress?.add(next.value.length);
      stage.push(next.value, emit);
      if (!(await flush())) return gone;
    }
    stage.end(emit);
    progress?.done();
    if (!(await flush())) return gone;
  } catch (err) {
    // --strict met an error (or a fatal framing error): the run stops here
    if (!(err instanceof StreamError)) throw err;
    progress?.done();
    if (!(await flush())) return gone;
    await say(stopMessage(err));
    return { code: EXIT_FAILED, stop: true };
  } finally {
    await chunks.return?.();
  }
  return { code: EXIT_OK, stop: false };
}

/**
 * --records: one input's lines as records, one output line each (a row per
 * final with --out rows), written as each is done, in input order. Bad
 * records are output lines; only the input itself failing is told on stderr.
 */
async function runRecords(file: string, opts: CliOptions, io: CliIO, output: Output): Promise<Outcome> {
  let input: Input;
  try {
    input = await openInput(file, io);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    await output.diagnostic(`${inputName(file)}: ${err.message}`);
    return { code: EXIT_USAGE, stop: false };
  }
  const stream = records({
    dialect: opts.dialect,
    framing: opts.framing,
    strict: opts.strict,
    bodyField: opts.bodyField,
    base64Field: opts.base64Field,
    pathField: opts.pathField,
  });
  const format =
    opts.out === 'rows'
      ? (r: RecordOutput) => recordToRows(r).map((row) => JSON.stringify(row) + '\n').join('')
      : (r: RecordOutput) => JSON.stringify(r) + '\n';
  let inputError: unknown = null;
  const source = input.stream;
  const onError = (err: unknown): void => {
    // the input failed mid-way: what was read is still written (an unended last line as a record), then the failure is told
    inputError = err;
    source.unpipe(stream);
    stream.end();
  };
  source.on('error', onError);
  source.pipe(stream);
  try {
    for await (const record of stream as AsyncIterable<RecordOutput>) {
      if (!(await output.text(format(record)))) {
        // stdout gone (its reader closed it): stop quietly, as cat does on SIGPIPE
        source.unpipe(stream);
        input.close();
        stream.destroy();
        return { code: EXIT_OK, stop: true };
      }
    }
  } finally {
    source.off('error', onError);
  }
  if (inputError !== null) {
    // the next inputs are still read
    await output.diagnostic(`${input.name}: ${reason(inputError)}`);
    return { code: EXIT_USAGE, stop: false };
  }
  return { code: EXIT_OK, stop: false };
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`wirefold: ${err.message}\nTry '${err.help}'.\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
  if (opts.command === 'help' || opts.command === 'doctor-help') {
    io.stdout.write((opts.command === 'help' ? USAGE : DOCTOR_USAGE) + '\n');
    return EXIT_OK;
  }
  if (opts.command === 'version') {
    io.stdout.write(version() + '\n');
    return EXIT_OK;
  }
  if (io.stdinIsTTY === true && !opts.quiet && opts.files.includes('-')) io.stderr.write(TERMINAL_HINT);
  if (opts.command === 'doctor') {
    const { doctor } = await import('./doctor.js');
    return doctor(opts, io, new Output(io));
  }
  const output = new Output(io);
  let code = EXIT_OK;
  for (const [index, file] of opts.files.entries()) {
    const outcome = opts.records ? await runRecords(file, opts, io, output) : await runFile(file, index, opts, io, output);
    code = worse(code, outcome.code);
    if (outcome.stop) break;
  }
  return code;
}
