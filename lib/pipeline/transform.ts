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
 * runs that one's stage itself: each item goes to the next stage's `push` as
 * it is emitted, with no stream hop between wirefold's stages (one per chunk
 * each when they handed on a batch per chunk: the four separate stages took
 * 5-22 % more instructions a run than they do now), and the chain's
 * backpressure is the last stage's readable side (the first one holds its
 * input back while that is full). A stage that fails is still the one
 * destroyed with its error, and ignores items after it, as unfused. A 'data'
 * or 'readable' listener added later (another consumer) ends it: items then
 * go through the stream. A stage that is a ConsumerAwareStage is told when
 * such a sole consumer starts and ends.
 */
export class StageTransform<I, O> extends Transform {
  readonly stage: Stage<I, O>;
  private readonly emitItem: (item: O) => void;
  private pendingError: Error | null = null;
  /** The StageTransform piped after this one whose stage this one runs (see fuseInto), or null. */
  private next: StageTransform<O, unknown> | null = null;
  /** Last of a fused chain: the first one's callback, held while this one's readable side is full. */
  private held: (() => void) | null = null;

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
      const next = this.next;
      if (next !== null) next.runInput(item);
      else this.push(item);
    };
    if (objectInput) {
      this.on('pipe', (src: unknown) => {
        if (src instanceof StageTransform && src.readableObjectMode) src.fuseInto(this as StageTransform<unknown, unknown>, stage);
      });
    }
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

  /** True while this stage runs the stage of the StageTransform piped after it (see fuseInto). */
  get fused(): boolean {
    return this.next !== null;
  }

  override _transform(chunk: I, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let last: StageTransform<unknown, unknown> = this as StageTransform<unknown, unknown>;
    while (last.next !== null) last = last.next;
    const before = last.readableLength;
    this.runInput(chunk);
    // As Transform does for its own readable side (it waits unfused): only when this input added
    // to a full buffer, as only a push makes the next read call _read, which lets the input go on.
    if (last !== this && last.readableLength > before && last.readableLength >= last.readableHighWaterMark) last.held = callback;
    else callback();
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

  override _read(size: number): void {
    super._read(size);
    const held = this.held;
    if (held !== null) {
      this.held = null;
      held();
    }
  }

  /** Runs the stage on one input: this stream's own, or an item of the fused stage before it. */
  private runInput(input: I): void {
    if (this.pendingError !== null) return;
    try {
      this.stage.push(input, this.emitItem);
    } catch (err) {
      this.fail(err);
    }
  }

  /** `dest` was piped after this stream: run its stage (and tell this one's) while it is the only consumer. */
  private fuseInto(dest: StageTransform<unknown, unknown>, consumer: object): void {
    // pipe() has added its own 'data' listener by the time 'pipe' is emitted.
    if (this.listenerCount('data') !== 1 || this.listenerCount('readable') !== 0) return;
    const aware = isConsumerAware(this.stage) ? this.stage : null;
    this.next = dest as StageTransform<O, unknown>;
    aware?.consumedBy(consumer);
    const end = (): void => {
      if (this.next === null) return;
      this.next = null;
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
