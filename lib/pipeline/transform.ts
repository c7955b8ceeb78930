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
 * The items one input chunk produced, handed as one stream object to the
 * StageTransform piped after the one that produced them (see StageTransform).
 */
class Batch<T> {
  constructor(readonly items: T[]) {}
}

/**
 * A stage that wants to know when it has one StageTransform as its only
 * consumer (piped straight into it), e.g. to hand it unparsed input.
 */
export interface ConsumerAwareStage {
  /** Called with the sole consumer's stage when piped, and with null when that ends. */
  consumedBy(consumer: object | null): void;
}

function isConsumerAware(stage: object): stage is ConsumerAwareStage {
  return typeof (stage as Partial<ConsumerAwareStage>).consumedBy === 'function';
}

/**
 * A Transform running one stage. Fatal errors thrown by the stage do not
 * destroy the stream at once: items the stage emitted before failing are
 * delivered first, and the stream is destroyed with the error once its
 * readable buffer has been read.
 *
 * Piped straight into another StageTransform that is its only consumer, it
 * hands on the items of each input chunk as one batch instead of one stream
 * object per item: a frame or an event then pays no stream hop of its own
 * between llmstream's stages, and backpressure still works per chunk. A
 * 'data' or 'readable' listener added later (another consumer) ends the
 * batching; anything else reading the stream gets single items. A stage that
 * is a ConsumerAwareStage is told when such a sole consumer starts and ends.
 */
export class StageTransform<I, O> extends Transform {
  readonly stage: Stage<I, O>;
  private readonly emitItem: (item: O) => void;
  private pendingError: Error | null = null;
  /** Items of the current input chunk, while batching into the next stage (else null). */
  private batch: O[] | null = null;

  constructor(stage: Stage<I, O>, objectInput: boolean, options: TransformOptions = {}, objectOutput = true) {
    super({
      readableObjectMode: objectOutput,
      writableObjectMode: objectInput,
      ...(objectOutput ? { readableHighWaterMark: options.highWaterMark ?? 16 } : {}),
      ...(options.writableHighWaterMark === undefined ? {} : { writableHighWaterMark: options.writableHighWaterMark }),
    });
    this.stage = stage;
    this.emitItem = (item) => {
      const batch = this.batch;
      if (batch !== null) batch.push(item);
      else this.push(item);
    };
    if (objectInput) {
      this.on('pipe', (src: unknown) => {
        if (src instanceof StageTransform && src.readableObjectMode) src.batchInto(this, stage);
      });
    }
  }

  /** True while this stage hands its items to the StageTransform piped after it in batches. */
  get batching(): boolean {
    return this.batch !== null;
  }

  override _transform(chunk: I | Batch<I>, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.pendingError === null) {
      let failure: unknown = null;
      try {
        if (chunk instanceof Batch) {
          const items = chunk.items;
          for (let i = 0; i < items.length; i++) this.stage.push(items[i] as I, this.emitItem);
        } else this.stage.push(chunk, this.emitItem);
      } catch (err) {
        failure = err;
      }
      // items emitted before a failure go out first (fail() waits for them to be read)
      this.pushBatch();
      if (failure !== null) this.fail(failure);
    }
    callback();
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (this.pendingError === null) {
      let failure: unknown = null;
      try {
        this.stage.end(this.emitItem);
      } catch (err) {
        failure = err;
      }
      this.pushBatch();
      if (failure !== null) this.fail(failure);
    }
    if (this.pendingError !== null) return; // destroyed once drained; never end normally
    callback();
  }

  /** `dest` was piped after this stream: batch into it (and tell the stage) while it is the only consumer. */
  private batchInto(dest: Transform, consumer: object): void {
    // pipe() has added its own 'data' listener by the time 'pipe' is emitted.
    if (this.listenerCount('data') !== 1 || this.listenerCount('readable') !== 0) return;
    const aware = isConsumerAware(this.stage) ? this.stage : null;
    this.batch = [];
    aware?.consumedBy(consumer);
    const end = (): void => {
      if (this.batch === null) return;
      this.batch = null;
      aware?.consumedBy(null);
    };
    const stop = (event: string | symbol): void => {
      if (event === 'data' || event === 'readable') end();
    };
    this.on('newListener', stop);
    dest.once('unpipe', () => {
      end();
      this.off('newListener', stop);
    });
  }

  private pushBatch(): void {
    const batch = this.batch;
    if (batch === null || batch.length === 0) return;
    this.batch = [];
    this.push(new Batch(batch));
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
