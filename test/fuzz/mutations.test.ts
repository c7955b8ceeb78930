/**
 * Bounded fuzz run: every fixture and corpus file, mutated (random bytes,
 * truncations, byte flips, inserted CR/LF/[/{/"/\ and other tokens,
 * duplicated and deleted spans, splices of other inputs), fed at random
 * chunkings with small limits through the events and final pipelines, lenient
 * and strict (test/helpers/fuzz.ts has the oracle). Seeded: FUZZ_SEED varies
 * the run, FUZZ_CASES its size; a failure prints the case and its replay
 * command. Failures that are instances of a known library bug are reported as
 * todo (see test/fuzz/found.test.ts for their minimal reproductions).
 */
import t from 'tap';
import { describeCase, KNOWN_BUGS, runBatch, seedInputs } from '../helpers/fuzz.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 424242);
const CASES = Number(process.env['FUZZ_CASES'] ?? 2000);
/**
 * A case slower than this is a hang or a blow-up (measured per case, not left
 * to the test timeout). Far above the slowest case's own time on a slow
 * machine (≈1 s: a 420 KB input producing 7,000 error events, run through
 * every pipeline the oracle compares), which coverage and a second test job
 * can double; a superlinear case on inputs of this size takes minutes.
 */
const MAX_CASE_MS = 10_000;
/** Generous: the inputs are at most a few hundred KiB, the run keeps nothing between cases. */
const MAX_HEAP_BYTES = 512 * 2 ** 20;

const inputs = seedInputs();

t.test('seed inputs: every fixture and every corpus file', async (tt) => {
  tt.ok(inputs.some((i) => i.name.startsWith('fixtures/')), 'fixtures found');
  tt.ok(inputs.some((i) => i.name.startsWith('corpus/')), 'corpus found (fixtures/corpus)');
  tt.comment(`${inputs.length} inputs, each the seed of every ${inputs.length}th case`);
});

t.test(`${CASES} fuzz cases (seed ${SEED})`, async (tt) => {
  const stats = runBatch(inputs, { seed: SEED, cases: CASES, maxCaseMs: MAX_CASE_MS, maxHeapBytes: MAX_HEAP_BYTES, maxFailures: 5 });
  tt.comment(
    `${stats.cases} cases, ${(stats.bytes / 2 ** 20).toFixed(1)} MiB, ${stats.withErrors} with error events, ` +
      `${Math.round(stats.ms)} ms, slowest case ${stats.maxCaseMs.toFixed(0)} ms (#${stats.slowestCase}), ` +
      `max heapUsed ${(stats.maxHeapBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  tt.equal(stats.cases, CASES, 'every case ran');
  for (const f of stats.failures) tt.fail(`${f.problem}\n${describeCase(f.case)}`);
  tt.equal(stats.failures.length, 0, 'no failure outside the known bugs');
  tt.ok(stats.maxCaseMs <= MAX_CASE_MS, `every case within ${MAX_CASE_MS} ms`);
  tt.ok(stats.maxHeapBytes <= MAX_HEAP_BYTES, `heapUsed stayed under ${MAX_HEAP_BYTES / 2 ** 20} MiB`);
  for (const bug of KNOWN_BUGS) {
    const hit = stats.known.get(bug.id);
    tt.ok(
      hit === undefined,
      hit === undefined ? `known bug ${bug.id}: not hit` : `known bug ${bug.id}: ${hit.count} case(s), first ${describeCase(hit.first.case)}`,
      hit === undefined ? {} : { todo: bug.todo },
    );
  }
});
