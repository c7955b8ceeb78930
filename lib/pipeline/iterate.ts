/**
 * `for await` over any byte source: a Node Readable, a web ReadableStream, an
 * async iterable of chunks, or a fetch Response. Pull-based, so backpressure
 * is the consumer's pace; breaking out of the loop releases the source.
 */
import type { FinalResult } from '../accumulate/types.js';
import { OptionError, StreamError } from '../errors.js';
import { optionsObject } from '../options.js';
import type { UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { createOutputStage, type CreateStreamOptions } from './create-stream.js';

/**
 * Anything wirefold can read bytes from. A fetch Response is read for its
 * body whatever its status: an error body gives its error events (a JSON
 * error, or not_a_stream for an HTML page). When its status is not 2xx and
 * the body gave no error (an empty 401, say), an `http_error` ends the output.
 */
export type ByteSource =
  | AsyncIterable<Chunk>
  | Iterable<Chunk>
  | ReadableStream<Uint8Array>
  | ResponseLike;

/** What wirefold reads of a fetch Response (the status fields are optional: any object with a web stream `body` will do). */
export interface ResponseLike {
  body: ReadableStream<Uint8Array> | null;
  ok?: boolean;
  status?: number;
  statusText?: string;
}

function isResponseLike(s: ByteSource): s is ResponseLike {
  return typeof s === 'object' && s !== null && 'body' in s && !(Symbol.asyncIterator in s);
}

/** A Response that is not ok: its status line (e.g. `HTTP 401 Unauthorized`) and its status code, when it has one. */
interface FailedStatus {
  line: string;
  status: number | undefined;
}

/** The failed status of a Response that is not ok; null for anything else. */
function failedStatus(source: ByteSource): FailedStatus | null {
  if (!isResponseLike(source) || source.ok !== false) return null;
  const code = typeof source.status === 'number' ? source.status : undefined;
  const text = typeof source.statusText === 'string' && source.statusText !== '' ? ` ${source.statusText}` : '';
  return { line: `HTTP${code === undefined ? '' : ` ${code}`}${text}`, status: code };
}

/**
 * Marks an output item's errors with the failed Response's status, so that a
 * caller can tell a 429 from a 500 (to retry or not) from the error alone.
 */
function markStatus(x: Output, status: number): void {
  if (typeof x !== 'object') return;
  if ('errors' in x) for (const e of x.errors) e.status = status;
  else if (x.type === 'error') x.status = status;
}

/** True when an output item reports an error (an error event, or a final holding errors). */
function reportsError(x: Output): boolean {
  if (typeof x !== 'object') return false;
  return 'errors' in x ? x.errors.length > 0 : x.type === 'error';
}

async function* chunksOf(source: ByteSource): AsyncGenerator<Chunk> {
  if (isResponseLike(source)) {
    if (source.body === null) return;
    yield* source.body as unknown as AsyncIterable<Uint8Array>;
    return;
  }
  yield* source as AsyncIterable<Chunk>;
}

type Output = UnifiedEvent | FinalResult | string;

async function* run(source: ByteSource, options: CreateStreamOptions): AsyncGenerator<Output> {
  const stage = createOutputStage(options);
  const strict = options.strict === true; // (a value that is not a boolean was refused by createOutputStage)
  const pending: Output[] = [];
  const failed = failedStatus(source);
  const status = failed?.status;
  let errorSeen = false;
  let bytes = 0;
  const emit = (x: Output): void => {
    if (failed !== null) {
      if (!errorSeen) errorSeen = reportsError(x);
      if (status !== undefined) markStatus(x, status);
    }
    pending.push(x);
  };
  /** A StreamError thrown out of the stage (strict mode, a stage failure), with the failed Response's status. */
  const withStatus = (err: unknown): unknown => {
    if (err instanceof StreamError && status !== undefined) err.status = status;
    return err;
  };
  let sourceError: unknown = null;
  try {
    for await (const chunk of chunksOf(source)) {
      stage.push(chunk, emit);
      // (after push, which reports a chunk that is not bytes)
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : ArrayBuffer.isView(chunk) ? chunk.byteLength : 0;
      while (pending.length > 0) yield pending.shift()!;
    }
  } catch (err) {
    if (err instanceof StreamError) throw withStatus(err); // strict mode or a stage failure
    sourceError = err;
  }
  if (sourceError !== null) {
    // The source failed mid-stream: deliver what is complete and the partial result, then fail.
    const error = new StreamError('source_error', `source failed: ${(sourceError as Error)?.message ?? String(sourceError)}`, {
      cause: sourceError,
      status,
    });
    if (strict) throw error;
    stage.abort(error, emit);
    while (pending.length > 0) yield pending.shift()!;
    throw error;
  }
  try {
    stage.end(emit);
  } catch (err) {
    throw withStatus(err); // strict mode: an error the end of the body gave (an incomplete stream, say)
  }
  while (pending.length > 0) yield pending.shift()!;
  if (failed !== null && !errorSeen) {
    // The status is the only sign of failure: say so rather than end in silence (or in a result that looks fine).
    const why = bytes === 0 ? 'the body is empty' : `the body (${bytes} bytes) held no error`;
    const error = new StreamError('http_error', `${failed.line}: ${why}`, { status });
    if (strict) throw error;
    stage.abort(error, emit);
    while (pending.length > 0) yield pending.shift()!;
  }
}

/** Throws for a source wirefold cannot read, at the call (a generator would only fail at its first read, as a source_error). */
function checkSource(source: unknown): void {
  const s = source as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown; body?: unknown } | null;
  const readable =
    s !== null &&
    (typeof s === 'object' || typeof s === 'string') &&
    (typeof s[Symbol.asyncIterator] === 'function' || typeof s[Symbol.iterator] === 'function' || (typeof s === 'object' && 'body' in s));
  if (!readable) throw new OptionError('source', source, 'an async iterable or iterable of chunks, a web ReadableStream, or a fetch Response', 'the source');
}

/** Unified events of every response in `source`. */
export function events(source: ByteSource, options: Omit<CreateStreamOptions, 'output'> = {}): AsyncGenerator<UnifiedEvent> {
  checkSource(source);
  return run(source, { ...optionsObject(options), output: 'events' }) as AsyncGenerator<UnifiedEvent>;
}

/** One final result per response in `source`. */
export function finals(source: ByteSource, options: Omit<CreateStreamOptions, 'output'> = {}): AsyncGenerator<FinalResult> {
  checkSource(source);
  return run(source, { ...optionsObject(options), output: 'final' }) as AsyncGenerator<FinalResult>;
}
