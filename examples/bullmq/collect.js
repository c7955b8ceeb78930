/**
 * node collect.js [results-dir] > results.ndjson: the result files as one
 * NDJSON file, one line per job, in job id order (numeric ids as numbers).
 * Each job has exactly one file (decode.js), so each has exactly one line,
 * however many times it ran.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { resultsDir } from './config.js';

const dir = process.argv[2] === undefined ? resultsDir : resolve(process.argv[2]);
// `<id>.json`; a `.tmp` file is a write cut short by a dead worker: its job ran (or will run) again
const files = (await readdir(dir)).filter((f) => f.endsWith('.json'));
const id = (f) => decodeURIComponent(f.slice(0, -'.json'.length));
files.sort((a, b) => id(a).localeCompare(id(b), 'en', { numeric: true }));
for (const f of files) {
  const text = await readFile(join(dir, f), 'utf8');
  if (!process.stdout.write(text)) await new Promise((r) => process.stdout.once('drain', r));
}
