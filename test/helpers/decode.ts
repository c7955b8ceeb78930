/** Decoding test inputs to unified events, whole and under every chunking. */
import type { Test } from 'tap';
import type { DialectName, UnifiedEvent } from '../../lib/events.js';
import { decodeAll, type EventsStageOptions } from '../../lib/pipeline/events-stage.js';
import { chunkings, quickChunkings, type Chunking } from './chunks.js';

/** A test input: bytes, a string (sent as UTF-8) or chunks already cut. */
export type Input = Buffer | string | Buffer[];

export function decodeEvents(input: Input, options: EventsStageOptions = {}): UnifiedEvent[] {
  const chunks = Array.isArray(input) ? input : [typeof input === 'string' ? Buffer.from(input) : input];
  return decodeAll(chunks, options);
}

/** The dialect auto-detection picks for `input` (null when none). */
export function detectedDialect(input: Input): DialectName | null {
  let name: DialectName | null = null;
  decodeEvents(input, { onDialect: (d) => (name = d) });
  return name;
}

export interface ChunkingRun<E> {
  /** The result of the whole input in one chunk. */
  whole: E[];
  /** Names of the chunkings whose result differs from `whole`, in order. */
  differ: string[];
  /** How many chunkings ran. */
  ran: number;
  /** The first differing chunking and its result (for the diff in a failure report). */
  first: { name: string; result: E[] } | null;
}

/** Decodes `input` whole and in every chunking of `gen`, comparing the results as JSON. */
export function differingChunkings<E>(decode: (chunks: Buffer[]) => E[], input: Buffer, gen: Iterable<Chunking>): ChunkingRun<E> {
  const whole = decode([input]);
  const expected = JSON.stringify(whole);
  const differ: string[] = [];
  let ran = 0;
  let first: ChunkingRun<E>['first'] = null;
  for (const { name, chunks } of gen) {
    ran++;
    const result = decode(chunks);
    if (JSON.stringify(result) === expected) continue;
    differ.push(name);
    first ??= { name, result };
  }
  return { whole, differ, ran, first };
}

export interface StableOptions {
  /** The smaller chunking set (`quickChunkings`) for large inputs such as corpus files. */
  quick?: boolean;
  message?: string;
}

/**
 * One assertion that every chunking of `input` decodes (with `options`) to the
 * events of the whole input; returns those events. On a failure the first
 * differing chunking's events are compared too, to show the difference.
 */
export function stable(t: Test, input: Buffer, options: EventsStageOptions = {}, { quick = false, message = 'identical events under every chunking' }: StableOptions = {}): UnifiedEvent[] {
  const run = differingChunkings((chunks) => decodeAll(chunks, options), input, quick ? quickChunkings(input) : chunkings(input));
  t.same(run.differ, [], message);
  if (run.first !== null) t.same(run.first.result, run.whole, `chunking ${run.first.name}`);
  return run.whole;
}

/**
 * The Chat tests' form: with positions stamped, `gen` must give more than five
 * chunkings and every one the events of the whole input (two assertions, named after `name`).
 */
export function checkChunkings(t: Test, name: string, buf: Buffer, gen: (b: Buffer) => Iterable<Chunking>, options: EventsStageOptions): void {
  const opts = { ...options, positions: true };
  const run = differingChunkings((chunks) => decodeAll(chunks, opts), buf, gen(buf));
  t.ok(run.ran > 5, `${name}: ran ${run.ran} chunkings`);
  t.same(run.differ, [], `${name}: identical events under every chunking`);
}
