/**
 * The sandboxed processor: one job, one capture decoded with wirefold's
 * finals(), its result written to RESULTS_DIR/<job id>.json.
 *
 * The result is written before the job completes, and atomically (a
 * temporary file renamed over the final name), so that:
 * - a worker killed after writing but before BullMQ marks the job completed
 *   leaves a whole file, and the job's second run writes the same bytes
 *   over it (a rename replaces, never appends): one file per job, whatever
 *   the number of runs;
 * - a worker killed while writing leaves only a temporary file, which
 *   collect.js ignores.
 * Writing in the worker's 'completed' handler instead would lose the result
 * of a job completed just before its worker died.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finals } from 'wirefold';
import { resultFile, resultsDir } from './config.js';

export default async function decode(job) {
  const { path } = job.data;
  const results = [];
  // a capture's stream errors (cut off, not JSON…) are in each final's `errors`, not thrown;
  // an unreadable file throws, and the job fails (and is retried)
  for await (const final of finals(createReadStream(path))) results.push(final);
  const line = JSON.stringify({ job: job.id, path, finals: results }) + '\n';
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, resultFile(job.id));
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, line);
  await rename(tmp, file);
  // what Redis keeps with the job: a summary, not the finals (they can be large)
  return { finals: results.length };
}
