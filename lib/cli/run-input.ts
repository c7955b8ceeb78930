/**
 * What the command does with one input: read it through the fused pipeline
 * and write what comes out (runFile), or read its lines as records
 * (runRecords). The same code runs in the main thread (--jobs 1, standard
 * input, a single input), writing to stdout as it goes, and in a --jobs
 * worker, writing into a BufferSink the main thread replays in input order.
 */
import type { Readable } from 'node:stream';
import { basename } from 'node:path';
import { StreamError } from '../errors.js';
import type { ErrorEvent, Frame, UnifiedEvent } from '../events.js';
import type { FinalResult } from '../accumulate/types.js';
import { makeAutoFramer, makeFramer } from '../framing/detect.js';
import { resolveFramerOptions } from '../framing/options.js';
import type { Chunk } from '../framing/bytes.js';
import type { SseHooks } from '../framing/sse.js';
import { createGuardedEventsStage, createOutputStage, createTextStage, errorFromEvent, fuseText, type TextTakingStage } from '../pipeline/create-stream.js';
import { makeFinalAccumulator } from '../accumulate/final.js';
import { resolveLimits } from '../limits.js';
import { chain, type Stage } from '../stage.js';
import { records } from '../records/transform.js';
import { finalToRow, recordToRows } from '../records/row.js';
import type { RecordOutput } from '../records/types.js';
import { createAudioWriter, createFileWriter } from './media-out.js';
import { makeEncoder } from '../encode/encoder.js';
import type { LossReport } from '../encode/types.js';
import { createProgress, PROGRESS_MIN_BYTES, type Progress } from './progress.js';
import { EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, type CliOptions } from './args.js';
import { InputError, inputName, openInput, reason, type Input } from './input.js';
import type { CliIO } from './io.js';
import type { Sink } from './sink.js';
import { groupPieces, jsonLine } from './json-line.js';
import { openPart, resumedEventsStage, type FilePart } from './sse-cut.js';

type Item = Frame | UnifiedEvent | FinalResult | string;

/** What reading one input came to: its exit status, and whether the run stops there. */
export interface Outcome {
  code: number;
  stop: boolean;
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

/** The names of an input's media files begin with its position and its name. */
function mediaPrefix(file: string, index: number): string {
  return `${String(index + 1).padStart(2, '0')}-${file === '-' ? 'stdin' : basename(file).replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/** A loss report as --loss-report writes it: a line of text (raw events left out: pings are no news) or the JSON. */
function lossLine(r: LossReport, mode: 'text' | 'json', file: string): string | null {
  if (mode === 'json') return JSON.stringify({ input: inputName(file), ...r });
  const lost = r.dropped.filter((d) => d.what !== 'raw');
  if (lost.length === 0) return null;
  const id = r.id === null ? '' : ` (response ${r.id})`;
  return `not carried in ${r.to}${id}: ${lost.map((d) => `${d.what} ×${d.count} (${d.detail})`).join('; ')}`;
}

function makeStage(
  opts: CliOptions,
  file: string,
  index: number,
  report: (ev: ErrorEvent) => void,
  reportText: (line: string | null) => void = () => {},
  part: FilePart | null = null,
): Stage<Chunk, Item> {
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
  const read = {
    dialect: opts.dialect,
    framing: opts.framing,
    // --strict names where the error happened, so it always tracks positions.
    positions: opts.positions || opts.strict,
    strict: opts.strict,
    ...(opts.audioFormat === null ? {} : { audioFormat: opts.audioFormat }),
  };
  const media = opts.audioOut !== null || opts.filesOut !== null;
  // transcoding: what a response could not carry is told on stderr where it ends (--strict: it stops the run)
  const onLoss = (r: LossReport): void => reportText(lossLine(r, opts.lossReport, file));
  // createStream({ to })'s stage: a source already in the target wire passes as it came
  if (opts.to !== null && !media) return createOutputStage({ ...read, to: opts.to, onLoss });
  // a part of an SSE log cut by --jobs (sse-cut.ts): read from the state the log is in there
  const guarded = part === null ? createGuardedEventsStage(read) : resumedEventsStage(read, part);
  const finals = opts.out === 'final' || opts.out === 'rows';
  if (!media) {
    // as createStream: text deltas go straight into the final result / text output
    if (finals) return fuseText(guarded, makeFinalAccumulator(resolveLimits({})));
    if (opts.out === 'text') return fuseText(guarded, textReportingErrors(report));
    return guarded;
  }
  let events: Stage<Chunk, UnifiedEvent> = guarded;
  if (opts.audioOut !== null) events = chain(events, createAudioWriter(opts.audioOut, mediaPrefix(file, index)));
  if (opts.filesOut !== null) events = chain(events, createFileWriter(opts.filesOut, mediaPrefix(file, index)));
  if (opts.to !== null) return chain(events, makeEncoder({ to: opts.to, strict: opts.strict, onLoss }));
  if (finals) return chain(events, makeFinalAccumulator(resolveLimits({})));
  if (opts.out === 'text') return chain(events, textReportingErrors(report));
  return events;
}

function formatter(opts: CliOptions): (item: Item) => string | string[] | null {
  if (opts.out === 'text' || opts.to !== null) return (item) => item as string;
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
  // (a final holds the whole text: see json-line.ts)
  return jsonLine;
}

function progressFor(input: Input, opts: CliOptions, io: CliIO | null): Progress | null {
  return progressBar(input.name, input.size, opts, io);
}

/** The progress bar of `size` bytes of `name`: on a terminal (or --progress) past a few MB, never with --quiet; else null. */
export function progressBar(name: string, size: number | null, opts: CliOptions, io: CliIO | null): Progress | null {
  if (io === null || size === null || opts.quiet || opts.progress === false) return null;
  if (opts.progress !== true && io.stderrIsTTY !== true) return null;
  if (opts.progress !== true && size < PROGRESS_MIN_BYTES) return null;
  return createProgress(io.stderr, basename(name), size);
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
  constructor(
    readonly message: string,
    /** Written as it is (a JSON line), not after the input's name. */
    readonly bare = false,
  ) {}
}

/**
 * Reads one input (a file, or standard input for `-`) and writes its output
 * to `sink`. `io` is the command's streams in the main thread (standard
 * input, and stderr for the progress bar); null in a worker. `part`: only
 * that part of the file (sse-cut.ts).
 */
export async function runFile(file: string, index: number, opts: CliOptions, sink: Sink, io: CliIO | null, part: FilePart | null = null): Promise<Outcome> {
  let input: Input;
  try {
    input = part === null ? await openInput(file, io === null ? null : io.stdin) : await openPart(file, part);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    await sink.diagnostic(`${inputName(file)}: ${err.message}`);
    return { code: EXIT_USAGE, stop: false };
  }
  const name = input.name;
  const format = formatter(opts);
  /** What the stage gave for the current chunk: output text, and diagnostics where they fell in it. */
  const queue: (string | Diagnostic)[] = [];
  const stage = makeStage(
    opts,
    file,
    index,
    (ev) => {
      queue.push(new Diagnostic(errorFromEvent(ev).message));
    },
    (line) => {
      if (line !== null) queue.push(new Diagnostic(line, opts.lossReport === 'json'));
    },
    part,
  );
  const progress = progressFor(input, opts, io);
  const emit = (item: Item): void => {
    const s = format(item);
    if (s === null) return;
    if (typeof s === 'string') queue.push(s);
    else for (const piece of s) queue.push(piece);
  };
  const say = async (message: string): Promise<void> => {
    progress?.clear();
    await sink.diagnostic(`${name}: ${message}`);
  };
  const text = (s: string): Promise<boolean> | boolean => sink.text(s);
  /** Writes out the queue, in order (its text joined in groups, json-line.ts); false when stdout is gone. */
  const flush = async (): Promise<boolean> => {
    let from = 0;
    try {
      for (let i = 0; i < queue.length; i++) {
        const piece = queue[i];
        if (!(piece instanceof Diagnostic)) continue;
        if (!(await groupPieces(queue as string[], from, i, text))) return false;
        if (piece.bare) {
          progress?.clear();
          await sink.diagnostic(piece.message, true);
        } else await say(piece.message);
        from = i + 1;
      }
      return await groupPieces(queue as string[], from, queue.length, text);
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

/** An error's message, for `internal error: <message>`. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * runFile in the main thread (--jobs 1, standard input, a single input), an
 * internal error (a bug) told as a worker's is: that input named on stderr,
 * exit status 70, the next inputs still read.
 */
export async function runInMainThread(file: string, index: number, opts: CliOptions, io: CliIO, output: Sink): Promise<Outcome> {
  try {
    return await runFile(file, index, opts, output, io);
  } catch (err) {
    await output.diagnostic(`${inputName(file)}: internal error: ${messageOf(err)}`);
    return { code: EXIT_INTERNAL, stop: false };
  }
}

/** --records: one output record as its line(s): the record, or a row per final with --out rows. */
export function recordFormatter(opts: CliOptions): (r: RecordOutput) => string {
  return opts.out === 'rows' ? (r) => recordToRows(r).map((row) => JSON.stringify(row) + '\n').join('') : (r) => JSON.stringify(r) + '\n';
}

/** --records: writes one output record's line(s) through a sink, as recordFormatter's (a long text in pieces, json-line.ts); false when stdout is gone. */
function recordWriter(opts: CliOptions): (sink: Sink, r: RecordOutput) => Promise<boolean> | boolean {
  if (opts.out === 'rows') {
    const format = recordFormatter(opts);
    return (sink, r) => sink.text(format(r));
  }
  return (sink, r) => {
    const line = jsonLine(r);
    return typeof line === 'string' ? sink.text(line) : groupPieces(line, 0, line.length, (s) => sink.text(s));
  };
}

/**
 * --records: `source`'s records through records(), each output formatted
 * into `sink` as soon as it and all before it are done. `source` is an
 * input's bytes (`lines: false`), or, in a worker, a batch of lines the main
 * thread has split with the same line splitter (`lines: true`: Buffers
 * without their line ending, and Oversized markers for lines too long to
 * hold). `gone`: stdout closed; `inputError`: the source failed part-way
 * (what was read is answered first, an unended last line as a record).
 */
export async function pumpRecords(source: Readable, opts: CliOptions, sink: Sink, lines: boolean): Promise<{ gone: boolean; inputError: unknown }> {
  const stream = records({
    dialect: opts.dialect,
    framing: opts.framing,
    strict: opts.strict,
    ...(opts.audioFormat === null ? {} : { audioFormat: opts.audioFormat }),
    bodyField: opts.bodyField,
    base64Field: opts.base64Field,
    pathField: opts.pathField,
    ...(lines ? { input: 'lines' as const } : {}),
  });
  const write = recordWriter(opts);
  let inputError: unknown = null;
  const onError = (err: unknown): void => {
    inputError = err;
    source.unpipe(stream);
    stream.end();
  };
  source.on('error', onError);
  source.pipe(stream);
  try {
    for await (const record of stream as AsyncIterable<RecordOutput>) {
      if (!(await write(sink, record))) {
        source.unpipe(stream);
        stream.destroy();
        return { gone: true, inputError: null };
      }
    }
  } finally {
    source.off('error', onError);
  }
  return { gone: false, inputError };
}

/**
 * --records: one input's lines as records, one output line each (a row per
 * final with --out rows), written as each is done, in input order. Bad
 * records are output lines; only the input itself failing is told on stderr.
 */
export async function runRecords(file: string, opts: CliOptions, io: CliIO, sink: Sink): Promise<Outcome> {
  let input: Input;
  try {
    // the main thread reads a records file through libuv: its reads then overlap the records' work (blocking reads
    // made --jobs 1 on 200 records of 1 MB 10-15 % slower, where they made files faster; a worker blocks, as for files)
    input = await openInput(file, io.stdin, io.stdin === null);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    await sink.diagnostic(`${inputName(file)}: ${err.message}`);
    return { code: EXIT_USAGE, stop: false };
  }
  const { gone, inputError } = await pumpRecords(input.stream, opts, sink, false);
  if (gone) {
    // stdout gone (its reader closed it): stop quietly, as cat does on SIGPIPE
    input.close();
    return { code: EXIT_OK, stop: true };
  }
  if (inputError !== null) {
    // the next inputs are still read
    await sink.diagnostic(`${input.name}: ${reason(inputError)}`);
    return { code: EXIT_USAGE, stop: false };
  }
  return { code: EXIT_OK, stop: false };
}
