/**
 * records(): an object-mode Transform from records (lines, bytes or objects)
 * to exactly one output record each, in input order. Up to `concurrency`
 * records are read at once (a path's file, a body's decoding); a record done
 * before an earlier one waits for it. Input is taken only while fewer than
 * `concurrency` records are held and the readable side has room, so a slow
 * reader slows the input down instead of letting records pile up.
 */
import { Transform } from 'node:stream';
import { createLineSplitter, dropCR, Oversized, type Line, type LineSplitter } from './lines.js';
import { resolveRecordsOptions, type ResolvedRecordsOptions } from './options.js';
import { processRecord } from './record.js';
import type { RecordOutput, RecordsOptions } from './types.js';

interface Slot {
  output: RecordOutput | null;
}

export class RecordsTransform extends Transform {
  private readonly options: ResolvedRecordsOptions;
  /** Aborted when the stream is destroyed: the reads under way let go of their files. */
  private readonly controller: AbortController;
  private readonly splitter: LineSplitter;
  /** Records taken from the input and not started yet (the lines of one chunk), from `next` on. */
  private waiting: unknown[] = [];
  private next = 0;
  /** Started records, in input order. */
  private readonly started: Slot[] = [];
  /** The callback of the chunk being taken in (or of the end), held while there is no room. */
  private takeMore: (() => void) | null = null;
  private flushed: (() => void) | null = null;
  private readonly addLine = (line: Line): void => {
    this.waiting.push(line);
  };

  constructor(options?: RecordsOptions) {
    const controller = new AbortController();
    const resolved = resolveRecordsOptions(options, controller.signal);
    super({
      readableObjectMode: true,
      writableObjectMode: true,
      readableHighWaterMark: resolved.highWaterMark ?? 16,
      ...(resolved.writableHighWaterMark === undefined ? {} : { writableHighWaterMark: resolved.writableHighWaterMark }),
    });
    this.options = resolved;
    this.controller = controller;
    this.splitter = createLineSplitter(resolved.maxRecordBytes);
  }

  override _transform(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
      if (this.options.input === 'bytes') {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        this.splitter.push(bytes, this.addLine);
      } else this.waiting.push(this.lineOf(chunk));
    } else {
      // an object after bytes that did not end their line: that line is a record of its own, before it
      if (this.options.input === 'bytes') this.splitter.end(this.addLine);
      this.waiting.push(chunk);
    }
    this.takeMore = () => callback();
    this.pump();
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (this.options.input === 'bytes') this.splitter.end(this.addLine);
    this.flushed = () => callback();
    this.pump();
  }

  override _read(size: number): void {
    super._read(size);
    // read() calls _read before it takes its item out of the buffer: look for room once it has
    process.nextTick(() => this.pump());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.controller.abort();
    this.waiting = [];
    this.next = 0;
    this.started.length = 0;
    this.takeMore = null;
    this.flushed = null;
    callback(error);
  }

  /** `input: 'lines'`: one chunk, one record, its line ending dropped. */
  private lineOf(chunk: string | Uint8Array): unknown {
    const max = this.options.maxRecordBytes;
    if (typeof chunk === 'string') {
      const line = chunk.endsWith('\r\n') ? chunk.slice(0, -2) : chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
      const bytes = line.length > max / 3 ? Buffer.byteLength(line) : 0; // a UTF-16 unit is at most 3 UTF-8 bytes
      return bytes > max ? new Oversized(bytes) : line;
    }
    let line = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (line.length > 0 && line[line.length - 1] === 0x0a) line = dropCR(line.subarray(0, line.length - 1));
    return line.length > max ? new Oversized(line.length) : line;
  }

  private hasRoom(): boolean {
    return this.started.length < this.options.concurrency && this.readableLength < this.readableHighWaterMark;
  }

  /** Starts what there is room for; takes the next chunk (or ends) once all of this one's records are started (or out). */
  private pump(): void {
    if (this.destroyed) return;
    while (this.next < this.waiting.length && this.hasRoom()) this.start(this.waiting[this.next++]);
    if (this.next < this.waiting.length) return;
    if (this.waiting.length > 0) {
      this.waiting = [];
      this.next = 0;
    }
    if (this.takeMore !== null && this.hasRoom()) {
      const takeMore = this.takeMore;
      this.takeMore = null;
      takeMore();
    } else if (this.flushed !== null && this.started.length === 0) {
      const flushed = this.flushed;
      this.flushed = null;
      flushed();
    }
  }

  private start(input: unknown): void {
    const slot: Slot = { output: null };
    this.started.push(slot);
    processRecord(input, this.options).then(
      (output) => {
        slot.output = output;
        this.deliver();
      },
      (err: unknown) => {
        // not a bad record (those have their output): a fault, or the abort of a destroyed stream
        if (!this.destroyed) this.destroy(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  /** Pushes the outputs that are next in input order. */
  private deliver(): void {
    if (this.destroyed) return;
    while (this.started.length > 0 && this.started[0]!.output !== null) this.push(this.started.shift()!.output);
    this.pump();
  }
}

/**
 * An object-mode Transform from records to outputs, one each, in order: each
 * input record (a JSON Lines line, as bytes or a string, or an object) holds
 * one whole capture in its text, base64 or path field; its output is its other
 * fields plus `finals` (the capture's FinalResults, as finals() gives them),
 * or plus `error` ({ code, message }) when the record itself is bad.
 */
export function records(options?: RecordsOptions): RecordsTransform {
  return new RecordsTransform(options);
}
