/**
 * The one adapter from a pure Stage to a WHATWG TransformStream: the web
 * counterpart of pipeline/transform.ts, with the same failure rule. Items the
 * stage emitted before failing are read first; the stream errors once its
 * readable queue has drained, never ending normally after a failure.
 */
import { AbortError, OptionError } from '../errors.js';
import { optionsObject, signalOption } from '../options.js';
import type { Emit, Stage } from '../stage.js';

export interface WebStreamOptions {
  /** Readable side: items queued before the stage waits for the reader. @defaultValue 16 */
  highWaterMark?: number;
  /** Writable side: bytes (byte stages) or items queued before a writer waits. @defaultValue 16 KiB / 16 */
  writableHighWaterMark?: number;
  /**
   * Aborting stops the stream: input is ignored, what the stage can still say
   * comes out (the fused stage: an `aborted` error, partial finals), then the
   * stream errors with an AbortError (code `aborted`).
   */
  signal?: AbortSignal;
}

export const WEB_STREAM_OPTIONS: readonly string[] = ['highWaterMark', 'writableHighWaterMark', 'signal'];

const byteSize = (chunk: unknown): number =>
  typeof chunk === 'string' ? chunk.length : ArrayBuffer.isView(chunk) ? chunk.byteLength : 1;

/**
 * Milliseconds between looks at the readable queue while a failure waits for
 * it to drain (a TransformStream tells its transformer nothing of reads):
 * from 1, doubling up to 64 for a reader that is slow or gone.
 */
const DRAIN_POLL_MAX_MS = 64;

/** A TransformStream running one stage; `onAbort` says what the stage still emits when the signal aborts. */
export class StageTransformStream<I, O> extends TransformStream<I, O> {
  readonly stage: Stage<I, O>;

  constructor(stage: Stage<I, O>, byteInput: boolean, options: WebStreamOptions = {}, onAbort?: (err: AbortError, emit: Emit<O>) => void) {
    options = optionsObject(options);
    const readableHwm = sizeOption('highWaterMark', options.highWaterMark, 16);
    const writableHwm = sizeOption('writableHighWaterMark', options.writableHighWaterMark, byteInput ? 16 * 1024 : 16);
    const signal = signalOption(options.signal);
    let controller: TransformStreamDefaultController<O> | null = null;
    /** Set once the stage failed or the signal aborted: input is ignored, the stream errors once drained. */
    let failure: Promise<void> | null = null;
    const emit: Emit<O> = (item) => controller!.enqueue(item);

    /** Errors the stream with `err` once every queued item has been read (or at once if the reader went away). */
    const fail = (err: unknown): Promise<void> => {
      if (failure !== null) return failure;
      const c = controller!;
      failure = new Promise<void>((resolve) => {
        let wait = 1;
        const look = (): void => {
          const size = c.desiredSize;
          if (size === null) return resolve(); // errored or cancelled already
          if (size < readableHwm) {
            // (not unref'd: a reader awaiting the error holds no timer of its own, the process must wait for this one)
            setTimeout(look, wait);
            wait = Math.min(2 * wait, DRAIN_POLL_MAX_MS);
            return;
          }
          c.error(err);
          resolve();
        };
        look();
      });
      return failure;
    };
    const abort = (): void => {
      if (failure !== null || controller === null) return;
      const err = new AbortError('reading was aborted', signal!.reason);
      try {
        onAbort?.(err, emit);
      } catch (e) {
        void fail(e);
        return;
      }
      void fail(err);
    };

    super(
      {
        start(c) {
          controller = c;
          if (signal?.aborted === true) abort();
          else signal?.addEventListener('abort', abort, { once: true });
        },
        transform(chunk) {
          if (failure !== null) return failure;
          try {
            stage.push(chunk, emit);
          } catch (err) {
            return fail(err);
          }
          return undefined;
        },
        flush() {
          signal?.removeEventListener('abort', abort);
          if (failure !== null) return failure;
          try {
            stage.end(emit);
          } catch (err) {
            return fail(err);
          }
          return undefined;
        },
      },
      byteInput ? { highWaterMark: writableHwm, size: byteSize } : { highWaterMark: writableHwm },
      { highWaterMark: readableHwm },
    );
    this.stage = stage;
  }
}

/** A queue size option: a non-negative number. */
function sizeOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0)) throw new OptionError(name, value, 'a number of 0 or more');
  return value;
}
