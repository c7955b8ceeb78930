/**
 * `for await` over any byte source: a Node Readable, a web ReadableStream, an
 * async iterable of chunks, or a fetch Response. Pull-based, so backpressure
 * is the consumer's pace; breaking out of the loop releases the source.
 */
import type { FinalResult } from '../accumulate/types.js';
import { byteLength } from '../bytes/index.js';
import { AbortError, OptionError, StreamError } from '../errors.js';
import type { UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { abortError, makeFusedStage } from './output-stage.js';
import { resolveStreamOptions, type CreateStreamOptions, type OutputMode, type ResolvedStreamOptions } from './stream-options.js';
import { ITERATE_OPTIONS } from './option-keys.js';

/**
 * Anything wirefold can read bytes from. A fetch Response is read for its
 * body whatever its status: an error body gives its error events (a JSON
 * error, or not_a_stream for an HTML page). When its status is not 2xx and
 * the body gave no error (an empty 401, say), an `http_error` ends the output.
 */
export type ByteSource =
  /** A whole input in memory: one chunk. */
  | Chunk
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

/** A pull reader over a source's chunks, and a way to let go of the source at once. */
interface SourceReader {
  next(): Promise<IteratorResult<Chunk>>;
  /**
   * Releases the source (destroys a Node stream, cancels a web stream and
   * releases its reader, returns an iterator); never rejects. The promise is
   * for callers with no read pending: an iterator's return() waits for one.
   */
  release(reason: unknown): Promise<void>;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

function isWebStream(s: unknown): s is ReadableStream<Uint8Array> {
  return typeof (s as ReadableStream | null)?.getReader === 'function';
}

/** A Node Readable (or anything with its destroy): destroying it is how it is let go. */
function isDestroyable(s: unknown): s is { destroy(error?: Error): unknown } {
  return typeof (s as { destroy?: unknown } | null)?.destroy === 'function' && typeof (s as { pipe?: unknown }).pipe === 'function';
}

function readerOf(source: ByteSource): SourceReader {
  const body = isResponseLike(source) ? source.body : source;
  if (body === null) return { next: () => Promise.resolve(DONE), release: () => Promise.resolve() };
  if (isWebStream(body)) {
    const reader = body.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Chunk>>,
      release: (reason) =>
        reader.cancel(reason).then(
          () => reader.releaseLock(),
          () => {},
        ),
    };
  }
  // A whole input in memory (a Buffer, a Uint8Array, a string) is one chunk, not an iterable of bytes or characters.
  const iterable: AsyncIterable<Chunk> | Iterable<Chunk> = typeof body === 'string' || ArrayBuffer.isView(body) ? [body as Chunk] : body;
  const it: AsyncIterator<Chunk> | Iterator<Chunk> =
    typeof (iterable as Partial<AsyncIterable<Chunk>>)[Symbol.asyncIterator] === 'function'
      ? (iterable as AsyncIterable<Chunk>)[Symbol.asyncIterator]()
      : (iterable as Iterable<Chunk>)[Symbol.iterator]();
  return {
    next: async () => it.next(),
    release: async () => {
      if (isDestroyable(body)) body.destroy(); // at once, even while a read is pending
      else await Promise.resolve(it.return?.()).catch(() => {});
    },
  };
}

/** Resolves with ABORTED when `signal` aborts (never, without one); `off` removes its listener. */
function abortWaiter(signal: AbortSignal | undefined): { aborted: Promise<typeof ABORTED>; off(): void } {
  if (signal === undefined) return { aborted: new Promise(() => {}), off() {} };
  let off = (): void => {};
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    const on = (): void => resolve(ABORTED);
    signal.addEventListener('abort', on, { once: true });
    off = () => signal.removeEventListener('abort', on);
  });
  return { aborted, off: () => off() };
}

const ABORTED = Symbol('aborted');

/** Read through a call, as the signal can abort while the generator is suspended at a yield (flow narrowing does not know). */
function abortedNow(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

type Output = UnifiedEvent | FinalResult | string;

/** The output items of `source` under options resolved by iterateOptions. */
export async function* run(source: ByteSource, options: ResolvedStreamOptions): AsyncGenerator<Output> {
  const stage = makeFusedStage(options); // (no `to` here: ITERATE_OPTIONS leave it out)
  const strict = options.strict;
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
  const signal = options.signal;
  const reader = readerOf(source);
  const waiter = abortWaiter(signal);
  let finished = false;
  let sourceError: unknown = null;
  let aborted: StreamError | null = null;
  try {
    for (;;) {
      if (abortedNow(signal)) {
        aborted = abortError(signal!);
        break;
      }
      let step: IteratorResult<Chunk> | typeof ABORTED;
      try {
        // Raced with the signal: a read that never answers must not hold up the abort.
        step = signal === undefined ? await reader.next() : await Promise.race([reader.next(), waiter.aborted]);
      } catch (err) {
        sourceError = err;
        break;
      }
      if (step === ABORTED) {
        aborted = abortError(signal!);
        break;
      }
      if (step.done === true) {
        finished = true;
        break;
      }
      const chunk = step.value;
      try {
        stage.push(chunk, emit);
      } catch (err) {
        throw withStatus(err); // strict mode or a stage failure
      }
      // (after push, which reports a chunk that is not bytes)
      bytes += typeof chunk === 'string' ? byteLength(chunk) : ArrayBuffer.isView(chunk) ? chunk.byteLength : 0;
      while (pending.length > 0) {
        yield pending.shift()!;
        // Aborted from inside the consumer's loop: what this chunk still held is not wanted any more.
        if (abortedNow(signal)) pending.length = 0;
      }
    }
  } finally {
    waiter.off();
    // Left early (an abort, a break out of the consumer's loop, a throw): let go of the source now.
    if (!finished && sourceError === null) {
      const released = reader.release(aborted ?? new AbortError('reading was stopped before the end of the input'));
      if (aborted === null) await released; // no read is pending: the source is let go before the loop goes on
    }
  }
  if (aborted !== null) {
    if (strict) throw withStatus(aborted);
    stage.abort(aborted, emit);
    while (pending.length > 0) yield pending.shift()!;
    throw withStatus(aborted);
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

/** Options of events(), finals() and read(): createStream's, but the output mode and the Transform's buffer sizes. */
export type IterateOptions = Omit<CreateStreamOptions, 'output' | 'highWaterMark' | 'writableHighWaterMark'>;

/** Checks the source and resolves the options once, at the call (`where` names it in messages). */
export function iterateOptions(source: unknown, options: IterateOptions | undefined, where: string, output: OutputMode): ResolvedStreamOptions {
  checkSource(source);
  return resolveStreamOptions(options, ITERATE_OPTIONS, where, output);
}

/** Unified events of every response in `source`. */
export function events(source: ByteSource, options?: IterateOptions): AsyncGenerator<UnifiedEvent> {
  return run(source, iterateOptions(source, options, 'events()', 'events')) as AsyncGenerator<UnifiedEvent>;
}

/** One final result per response in `source`. */
export function finals(source: ByteSource, options?: IterateOptions): AsyncGenerator<FinalResult> {
  return run(source, iterateOptions(source, options, 'finals()', 'final')) as AsyncGenerator<FinalResult>;
}
