/**
 * The one adapter from a pure Stage to a Node Transform (node:stream).
 * Every public stage factory goes through here.
 */
import { Transform } from 'node:stream';
import type { Stage } from '../stage.js';
import { optionsObject } from '../options.js';

export interface TransformOptions {
  /** Readable-side high-water mark in objects. @defaultValue 16 */
  highWaterMark?: number;
  /** Writable-side high-water mark (bytes for byte stages, objects otherwise). @defaultValue 16 KiB / 16 */
  writableHighWaterMark?: number;
}

/** The listener type of Node's own `on` (events other than 'data' keep their Node typing). */
type NodeListener = Parameters<Transform['on']>[1];

/**
 * A Transform running one stage. Fatal errors thrown by the stage do not
 * destroy the stream at once: items the stage emitted before failing are
 * delivered first, and the stream is destroyed with the error once its
 * readable buffer has been read.
 *
 * A plain adapter: it takes its input from its writable side only and emits
 * its stage's items through its readable side only, whatever reads it. Fusing
 * stages is explicit: createStream() and compose() of the package's own
 * stages build one stage for the whole chain (see compose.ts).
 */
export class StageTransform<I, O> extends Transform {
  readonly stage: Stage<I, O>;
  private readonly emitItem: (item: O) => void;
  private pendingError: Error | null = null;

  constructor(stage: Stage<I, O>, objectInput: boolean, options: TransformOptions = {}, objectOutput = true) {
    options = optionsObject(options);
    super({
      readableObjectMode: objectOutput,
      writableObjectMode: objectInput,
      ...(objectOutput ? { readableHighWaterMark: options.highWaterMark ?? 16 } : {}),
      ...(options.writableHighWaterMark === undefined ? {} : { writableHighWaterMark: options.writableHighWaterMark }),
    });
    this.stage = stage;
    this.emitItem = (item) => {
      this.push(item);
    };
  }

  // Typed for what this stage emits: a 'data' listener gets O, not Node's `any`. (Not `for await`: a typed
  // async iterator would make the Transform unfit for stream.pipeline's types, which expect Buffers.)
  override on(event: 'data', listener: (item: O) => void): this;
  override on(event: string | symbol, listener: NodeListener): this;
  override on(event: string | symbol, listener: NodeListener): this {
    return super.on(event, listener);
  }

  override once(event: 'data', listener: (item: O) => void): this;
  override once(event: string | symbol, listener: NodeListener): this;
  override once(event: string | symbol, listener: NodeListener): this {
    return super.once(event, listener);
  }

  override _transform(chunk: I, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.runInput(chunk);
    callback();
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (this.pendingError === null) {
      try {
        this.stage.end(this.emitItem);
      } catch (err) {
        this.fail(err);
      }
    }
    if (this.pendingError !== null) return; // destroyed once drained; never end normally
    callback();
  }

  /** Runs the stage on one input. */
  private runInput(input: I): void {
    if (this.pendingError !== null) return;
    try {
      this.stage.push(input, this.emitItem);
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Stops the stream from outside (an AbortSignal): `flush` may emit what the
   * stage can still say (a terminal error, a partial final), then input is
   * ignored and the stream is destroyed with `err` once that has been read.
   */
  stop(err: Error, flush?: (emit: (item: O) => void) => void): void {
    if (this.pendingError !== null || this.destroyed) return;
    if (flush !== undefined) {
      try {
        flush(this.emitItem);
      } catch (e) {
        this.fail(e);
        return;
      }
    }
    this.fail(err);
  }

  override read(size?: number): ReturnType<Transform['read']> {
    const item: ReturnType<Transform['read']> = super.read(size);
    if (this.pendingError !== null && this.readableLength === 0) this.destroySoon();
    return item;
  }

  private fail(err: unknown): void {
    this.pendingError = err instanceof Error ? err : new Error(String(err));
    if (this.readableLength === 0) this.destroySoon();
  }

  private destroySoon(): void {
    const err = this.pendingError;
    if (err === null || this.destroyed) return;
    process.nextTick(() => {
      if (!this.destroyed) this.destroy(err);
    });
  }
}

/** Wraps a stage whose input is bytes or strings. */
export function byteStageTransform<I, O>(stage: Stage<I, O>, options?: TransformOptions): StageTransform<I, O> {
  return new StageTransform(stage, false, options);
}

/** Wraps a stage whose input is objects. */
export function objectStageTransform<I, O>(stage: Stage<I, O>, options?: TransformOptions): StageTransform<I, O> {
  return new StageTransform(stage, true, options);
}
