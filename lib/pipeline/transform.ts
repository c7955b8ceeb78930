/**
 * The one adapter from a pure Stage to a Node Transform (readable-stream).
 * Every public stage factory goes through here.
 */
import { Transform } from 'readable-stream';
import type { Stage } from '../stage.js';

export interface TransformOptions {
  /** Readable-side high-water mark in objects. @defaultValue 16 */
  highWaterMark?: number;
  /** Writable-side high-water mark (bytes for byte stages, objects otherwise). @defaultValue 16 KiB / 16 */
  writableHighWaterMark?: number;
}

/**
 * A Transform running one stage. Fatal errors thrown by the stage do not
 * destroy the stream at once: items the stage emitted before failing are
 * delivered first, and the stream is destroyed with the error once its
 * readable buffer has been read.
 */
export class StageTransform<I, O> extends Transform {
  readonly stage: Stage<I, O>;
  private readonly emitItem: (item: O) => void;
  private pendingError: Error | null = null;

  constructor(stage: Stage<I, O>, objectInput: boolean, options: TransformOptions = {}, objectOutput = true) {
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

  override _transform(chunk: I, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.pendingError === null) {
      try {
        this.stage.push(chunk, this.emitItem);
      } catch (err) {
        this.fail(err);
      }
    }
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
