/**
 * The last finished instance of a per-stream stage, kept alive.
 *
 * The reading stages are made anew for each stream: closures over that
 * stream's state. On V8 (Node 20), once the streams whose closures ran a
 * function's optimized code were gone, a full GC dropped that code, and the
 * next stream ran its hot loops unoptimized until they were compiled again:
 * a records job paid that after most full GCs. The framers (SSE, the JSON
 * scanner's two modes) hold their last finished instance here, which keeps
 * their code (benchmarks/RESULTS.md, "Hot code compiled again after full
 * GCs"). Held normalizers saved compiling too, but each held instance lives
 * long enough to reach the old generation, and theirs cost more in garbage
 * collection than they saved.
 *
 * An instance is held only after its end, and must by then have let go of
 * its consumer, of the stages around it (the emit it was last given, hooks
 * into the stage that made it) and of the input's bytes, so that what is held
 * is its own small state: test/pipeline/warm.test.ts reads the corpus and
 * checks that no stream, consumer, output or input chunk outlives its reading.
 */
export class WarmSlot {
  /** By kind: each kind runs code of its own. */
  private readonly last = new Map<string, object>();

  /** Holds `instance` as the last of its kind, releasing the one held before. */
  hold(instance: object, kind = ''): void {
    this.last.set(kind, instance);
  }

  /** The instance held for `kind` (tests). */
  held(kind = ''): object | undefined {
    return this.last.get(kind);
  }
}
