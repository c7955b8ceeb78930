/**
 * The --jobs pool's worker processes (lib/cli/pool.ts): the node flags a
 * worker inherits (never the main script's -e code, which would fork on
 * and on), a worker killed under a task costing that task only, with the
 * signal named, and a new worker taking the next tasks.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCli } from '../lib/cli/args.js';
import { Output } from '../lib/cli/output.js';
import { Pool, workerFlags } from '../lib/cli/pool.js';
import { PassThrough } from 'node:stream';
import { repoRoot } from './helpers/corpus.js';

t.setTimeout(240_000);

t.test('workerFlags: loaders, conditions and V8 flags kept; -e, -p, --inspect, --watch, --test dropped', async (t) => {
  t.same(workerFlags(['--import=tsx', '-e', 'fork()', '--max-old-space-size=64']), ['--import=tsx', '--max-old-space-size=64']);
  t.same(workerFlags(['-r', 'dotenv/config', '--conditions', 'web', '--enable-source-maps', '--no-warnings']), [
    '-r',
    'dotenv/config',
    '--conditions',
    'web',
    '--enable-source-maps',
    '--no-warnings',
  ]);
  t.same(workerFlags(['--eval=1', '-p', '1+1', '--print', '--inspect=9229', '--watch', '--test', '--input-type=module']), []);
  t.same(workerFlags(['--experimental-strip-types', '--stack-size=2000', '--loader', 'ts-node/esm']), [
    '--experimental-strip-types',
    '--stack-size=2000',
    '--loader',
    'ts-node/esm',
  ]);
});

/** The pool's worker processes: the children of this process running worker.ts. */
function workerPids(): number[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'worker'], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out.split('\n').filter(Boolean).map(Number);
}

t.test('a worker killed under a task fails that task only, with the signal named; a new worker takes the next', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wirefold-pool-'));
  const fifo = join(dir, 'never-written.sse');
  execFileSync('mkfifo', [fifo]); // opening it for reading blocks the worker until it is killed
  const opts = parseCli(['--out', 'final', fifo]);
  const pool = new Pool(opts, 1, null);
  const capture = join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse');
  // a first task done: the worker is up, and the next one is sent to it at once
  const first = await pool.run({ kind: 'file', file: capture, index: 0 });
  const stuck = pool.run({ kind: 'file', file: fifo, index: 1 });
  const after = pool.run({ kind: 'file', file: capture, index: 2 });
  const pids = workerPids();
  t.same(pids, [first.heap.pid], 'one worker process');
  await new Promise((r) => setTimeout(r, 300)); // its task under way
  process.kill(pids[0]!, 'SIGKILL');
  await t.rejects(stuck, /the worker process ended \(signal SIGKILL\)/, 'the task under way fails, the signal named');
  const result = await after;
  t.equal(result.kind, 'file');
  if (result.kind === 'file') {
    t.equal(result.outcome.code, 0, 'the next task ran on a new worker');
    t.match(Buffer.from(result.recorded.bytes).toString(), /"stopReason":"tool_use"/);
    t.not(result.heap.pid, pids[0], 'in another process');
    t.ok(result.heap.maxRss > 0, 'its peak RSS reported');
  }
  const stderr = new PassThrough();
  const code = await pool.destroy(new Output({ stdin: process.stdin, stdout: new PassThrough(), stderr }));
  t.equal(code, 0, 'no error outside a task');
  t.same(workerPids(), [], 'no worker left');
});
