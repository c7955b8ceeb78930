/**
 * `for await` over any byte source: a Node Readable, a web ReadableStream, an
 * async iterable of chunks, or a fetch Response. Pull-based, so backpressure
 * is the consumer's pace; breaking out of the loop releases the source.
 */
import type { FinalResult } from '../accumulate/types.js';
import { StreamError } from '../errors.js';
import type { UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { createOutputStage, type CreateStreamOptions } from './create-stream.js';

/**
 * Anything llmstream can read bytes from. A fetch Response is read for its
 * body whatever its status: an error body gives its error events (a JSON
 * error, or not_a_stream for an HTML page); check `res.ok` for the status.
 */
export type ByteSource =
  | AsyncIterable<Chunk>
  | Iterable<Chunk>
  | ReadableStream<Uint8Array>
  | { body: ReadableStream<Uint8Array> | null };

function isResponseLike(s: ByteSource): s is { body: ReadableStream<Uint8Array> | null } {
  return typeof s === 'object' && s !== null && 'body' in s && !(Symbol.asyncIterator in s);
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
  const pending: Output[] = [];
  const emit = (x: Output): void => {
    pending.push(x);
  };
  let sourceError: unknown = null;
  try {
    for await (const chunk of chunksOf(source)) {
      stage.push(chunk, emit);
      while (pending.length > 0) yield pending.shift()!;
    }
  } catch (err) {
    if (err instanceof StreamError) throw err; // strict mode or a stage failure
    sourceError = err;
  }
  if (sourceError !== null) {
    // The source failed mid-stream: deliver what is complete and the partial result, then fail.
    const error = new StreamError('source_error', `source failed: ${(sourceError as Error)?.message ?? String(sourceError)}`, {
      cause: sourceError,
    });
    if (options.strict ?? false) throw error;
    stage.abort(error, emit);
    while (pending.length > 0) yield pending.shift()!;
    throw error;
  }
  stage.end(emit);
  while (pending.length > 0) yield pending.shift()!;
}

/** Unified events of every response in `source`. */
export function events(source: ByteSource, options: Omit<CreateStreamOptions, 'output'> = {}): AsyncGenerator<UnifiedEvent> {
  return run(source, { ...options, output: 'events' }) as AsyncGenerator<UnifiedEvent>;
}

/** One final result per response in `source`. */
export function finals(source: ByteSource, options: Omit<CreateStreamOptions, 'output'> = {}): AsyncGenerator<FinalResult> {
  return run(source, { ...options, output: 'final' }) as AsyncGenerator<FinalResult>;
}
