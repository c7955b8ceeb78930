/** Runs a pure stage over chunks, capturing outputs and a fatal error (if any) instead of throwing. */
import type { Stage } from '../../lib/stage.js';

export interface RunResult<O> {
  items: O[];
  error: (Error & { code?: string; offset?: number }) | null;
}

export function runChunks<I, O>(stage: Stage<I, O>, chunks: Iterable<I>): RunResult<O> {
  const items: O[] = [];
  const emit = (o: O): void => {
    items.push(o);
  };
  try {
    for (const c of chunks) stage.push(c, emit);
    stage.end(emit);
  } catch (err) {
    return { items, error: err as Error };
  }
  return { items, error: null };
}

/** Same, with a comparable summary of the error (class name, code, offset, message). */
export function summary<O>(r: RunResult<O>): { items: O[]; error: null | { name: string; code?: string; offset?: number; message: string } } {
  if (r.error === null) return { items: r.items, error: null };
  const e = r.error;
  return {
    items: r.items,
    error: { name: e.name, ...(e.code === undefined ? {} : { code: e.code }), ...(e.offset === undefined ? {} : { offset: e.offset }), message: e.message },
  };
}
