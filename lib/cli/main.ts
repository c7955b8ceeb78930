/**
 * The wirefold command: the same fused pipeline as createStream, for Unix
 * pipes and log reprocessing. `main` takes its streams as arguments so tests
 * can run it in-process; bin/wirefold.js only calls it. What is done per
 * input is run-input.ts's (and doctor.ts's); with --jobs > 1 and several
 * inputs (or --records) jobs.ts runs it on worker threads.
 */
import { readFileSync } from 'node:fs';
import { DOCTOR_USAGE, EXIT_OK, EXIT_USAGE, parseCli, USAGE, UsageError, worse, type CliOptions } from './args.js';
import { Output } from './output.js';
import { TERMINAL_HINT, type CliIO } from './io.js';
import { runInMainThread, runRecords } from './run-input.js';
import { doctor } from './doctor.js';
import { cuttable, sseRangesOf } from './sse-cut.js';

export type { CliIO } from './io.js';
export { TERMINAL_HINT } from './io.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usageError(err: UsageError, io: CliIO): number {
  io.stderr.write(`wirefold: ${err.message}\nTry '${err.help}'.\n`);
  return EXIT_USAGE;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err, io);
    throw err;
  }
  if (opts.command === 'help' || opts.command === 'doctor-help') {
    io.stdout.write((opts.command === 'help' ? USAGE : DOCTOR_USAGE) + '\n');
    return EXIT_OK;
  }
  if (opts.command === 'version') {
    io.stdout.write(version() + '\n');
    return EXIT_OK;
  }
  if (io.stdinIsTTY === true && !opts.quiet && opts.files.includes('-')) io.stderr.write(TERMINAL_HINT);
  if (opts.out === 'parquet') {
    // --out rows into a file DuckDB then writes as Parquet: DuckDB is loaded only for this
    const parquet = await import('./parquet.js');
    return parquet.runParquet(opts, io, runCommand);
  }
  return runCommand(opts, io);
}

/** The command itself, once its options are known (--out parquet runs it with --out rows, stdout a file). */
async function runCommand(opts: CliOptions, io: CliIO): Promise<number> {
  const output = new Output(io);
  // one large SSE log: cut into parts at response ends (sse-cut.ts)
  const parts = opts.jobs > 1 && opts.files.length === 1 && cuttable(opts) ? await sseRangesOf(opts.files[0]!) : null;
  // worker threads when there is more than one input to share out (records: many records)
  if (opts.jobs > 1 && (opts.records || opts.files.filter((f) => f !== '-').length > 1 || parts !== null)) {
    const jobs = await import('./jobs.js'); // piscina is loaded only for this
    let heapMb: number | null;
    try {
      heapMb = jobs.workerHeapLimit();
    } catch (err) {
      if (err instanceof UsageError) return usageError(err, io);
      throw err;
    }
    if (opts.command === 'doctor') return jobs.doctorInPool(opts, io, output, heapMb);
    if (parts !== null) return jobs.runLogInPool(opts, io, output, heapMb, parts);
    return opts.records ? jobs.recordsInPool(opts, io, output, heapMb) : jobs.runFilesInPool(opts, io, output, heapMb);
  }

  if (opts.command === 'doctor') return doctor(opts, io, output);
  let code = EXIT_OK;
  for (const [index, file] of opts.files.entries()) {
    const outcome = opts.records ? await runRecords(file, opts, io, output) : await runInMainThread(file, index, opts, io, output);
    code = worse(code, outcome.code);
    if (outcome.stop) break;
  }
  return code;
}
