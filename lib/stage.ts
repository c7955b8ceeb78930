/**
 * The pure core every stage is written against: feed an input, get outputs
 * through `emit`; `end` flushes. No node:stream here, so stages can be fused
 * into one Transform (see pipeline/fuse.ts) or wrapped one by one.
 */

export type Emit<T> = (item: T) => void;

export interface Stage<I, O> {
  /** Feed one input; outputs are passed to `emit` synchronously. May throw a StreamError (fatal). */
  push(input: I, emit: Emit<O>): void;
  /** End of input: emit whatever is pending, then check terminal state. */
  end(emit: Emit<O>): void;
}

/** Chain two stages into one: a's outputs feed b directly, no stream hop. */
export function chain<A, B, C>(a: Stage<A, B>, b: Stage<B, C>): Stage<A, C> {
  let out: Emit<C> = () => {};
  const toB: Emit<B> = (item) => b.push(item, out);
  return {
    push(input, emit) {
      out = emit;
      a.push(input, toB);
    },
    end(emit) {
      out = emit;
      a.end(toB);
      b.end(emit);
    },
  };
}

/** Run a stage over a whole array of inputs synchronously (handy for tests and small inputs). */
export function runStage<I, O>(stage: Stage<I, O>, inputs: Iterable<I>): O[] {
  const out: O[] = [];
  const emit: Emit<O> = (item) => {
    out.push(item);
  };
  for (const input of inputs) stage.push(input, emit);
  stage.end(emit);
  return out;
}
