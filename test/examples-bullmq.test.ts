/**
 * examples/bullmq run as a user runs it, against a real redis-server: the
 * example's files copied into the project test/helpers/packed.ts installed
 * the packed package into (so `import … from 'wirefold'` is the tarball's),
 * bullmq linked from the repository's node_modules. Two worker processes
 * (sandboxed processors: child processes each) share a few hundred jobs; one
 * is killed (SIGKILL, with its children: a machine lost) once part of the
 * jobs are done; BullMQ's stalled-job check gives its jobs to the other.
 * Then every job has exactly one line in collect.js's NDJSON, and its finals
 * are those the same package gives for the capture in this process.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { extname, join } from 'node:path';
import { createReadStream } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { repoRoot } from './helpers/corpus.js';
import { cleanEnv, packed, run, workDir } from './helpers/packed.js';
import { startRedis } from './helpers/redis.js';

t.setTimeout(240_000);

const JOBS = 300;
const CAPTURE_EXTENSIONS = new Set(['.sse', '.json', '.jsonl', '.ndjson', '.har', '.body']);
/** Low enough that the killed worker's jobs come back within seconds (BullMQ's defaults: 30 s each). */
const LOCK_MS = 2_000;
const STALLED_MS = 1_000;

function captures(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...captures(path));
    else if (CAPTURE_EXTENSIONS.has(extname(entry.name))) out.push(path);
  }
  return out.sort();
}

async function until(what: string, ms: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('without redis-server, the test fails saying to install it (it never skips)', async (t) => {
  await t.rejects(startRedis('wirefold-no-such-redis-server'), /is not installed \(not on the PATH\): install it/);
});

t.test('two workers, one killed mid-run: every job once, with the single-process finals', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());

  const p = await packed();
  const dir = workDir(p, 'bullmq');
  const example = join(repoRoot, 'examples', 'bullmq');
  for (const f of readdirSync(example)) if (f.endsWith('.js') || f === 'package.json') copyFileSync(join(example, f), join(dir, f));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(repoRoot, 'node_modules', 'bullmq'), join(dir, 'node_modules', 'bullmq'), 'dir');

  const paths = captures(join(repoRoot, 'fixtures'));
  const jobs = Array.from({ length: JOBS }, (_, i) => paths[i % paths.length]!);
  const results = join(dir, 'results');
  const queueName = 'captures';
  const env = { ...cleanEnv(), REDIS_URL: redis.url, QUEUE: queueName, RESULTS_DIR: results, CONCURRENCY: '2', LOCK_MS: String(LOCK_MS), STALLED_MS: String(STALLED_MS) };

  interface Started {
    child: ChildProcess;
    output: () => string;
  }

  /** A worker process in a process group of its own, so that killing the group takes its sandboxed children too. */
  async function startWorker(): Promise<Started> {
    const child = spawn(process.execPath, ['worker.js'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    t.teardown(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    await until(`worker ${child.pid} to be ready (its output: ${output})`, 30_000, () => {
      if (child.exitCode !== null) throw new Error(`worker.js exited (${child.exitCode}):\n${output}`);
      return output.includes('ready on');
    });
    return { child, output: () => output };
  }

  const [a, b] = await Promise.all([startWorker(), startWorker()]);
  const queue = new Queue(queueName, { connection: { host: '127.0.0.1', port: redis.port } });
  t.teardown(() => queue.close());

  const t0 = Date.now();
  const enqueued = await run(process.execPath, ['enqueue.js', ...jobs], { cwd: dir, env });
  t.equal(enqueued.code, 0, 'enqueue.js exits 0', { stderr: enqueued.stderr });

  /** Fails at once when a job failed, with what the workers said. */
  const noneFailed = async (): Promise<void> => {
    const { failed } = await queue.getJobCounts('failed');
    if ((failed ?? 0) > 0) throw new Error(`${failed} job(s) failed; the workers said:\n${a.output()}\n${b.output()}`);
  };

  // mid-run: a quarter of the results are written, and the worker to kill has jobs under way (they must come back)
  const done = (): number => (existsSync(results) ? readdirSync(results).filter((f) => f.endsWith('.json')).length : 0);
  const ranBy = (job: { processedBy?: string }, s: Started): boolean => job.processedBy?.endsWith(`:${s.child.pid}`) === true;
  await until('a quarter of the jobs to be done, and jobs under way in the first worker', 60_000, async () => {
    await noneFailed();
    return done() >= JOBS / 4 && (await queue.getJobs(['active'])).some((j) => ranBy(j, a));
  });
  const doneAtKill = done();
  process.kill(-a.child.pid!, 'SIGKILL');
  const killedAt = Date.now();
  t.ok(doneAtKill < JOBS, `worker ${a.child.pid} killed (SIGKILL, with its sandboxed processors) with ${doneAtKill} of ${JOBS} results written`);

  await until('every job to complete', 120_000, async () => {
    await noneFailed();
    return (await queue.getJobCounts('completed')).completed === JOBS;
  });
  t.comment(`${JOBS} jobs in ${Date.now() - t0} ms, the last ${Date.now() - killedAt} ms after the kill`);

  const completed = await queue.getJobs(['completed'], 0, JOBS);
  const byA = completed.filter((j) => ranBy(j, a)).length;
  const byB = completed.filter((j) => ranBy(j, b)).length;
  const stalled = completed.filter((j) => j.stalledCounter > 0);
  t.comment(`completed by the killed worker: ${byA}, by the other: ${byB}`);
  t.ok(stalled.length > 0, `the killed worker's jobs came back through the stalled-job check (${stalled.length}), and completed`);
  t.equal(byA + byB, JOBS, 'every job was completed by one of the two');

  // the surviving worker finishes and exits on SIGTERM
  b.child.kill('SIGTERM');
  await until('worker.js to exit on SIGTERM', 20_000, () => b.child.exitCode !== null || b.child.signalCode !== null);
  t.equal(b.child.exitCode, 0, 'the other worker exits 0 on SIGTERM', { output: b.output() });

  const collected = await run(process.execPath, ['collect.js', results], { cwd: dir, env });
  t.equal(collected.code, 0, 'collect.js exits 0', { stderr: collected.stderr });
  const lines = collected.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { job: string; path: string; finals: unknown[] });
  t.equal(lines.length, JOBS, 'one NDJSON line per job');
  const ids = new Map(completed.map((j) => [j.id!, j.data as { path: string }]));
  t.equal(new Set(lines.map((l) => l.job)).size, JOBS, 'no job twice');
  t.same(
    lines.filter((l) => ids.get(l.job)?.path !== l.path).map((l) => l.job),
    [],
    "each line is a job's, with its capture's path",
  );

  // the single-process result: the same package's finals() over each capture
  type Lib = typeof import('../lib/index.js');
  const lib = (await import(pathToFileURL(join(p.pkgDir, 'dist', 'index.js')).href)) as Lib;
  const expected = new Map<string, unknown[]>();
  for (const path of new Set(jobs)) {
    const out: unknown[] = [];
    for await (const f of lib.finals(createReadStream(path))) out.push(f);
    expected.set(path, JSON.parse(JSON.stringify(out)) as unknown[]);
  }
  const differing = lines.filter((l) => JSON.stringify(l.finals) !== JSON.stringify(expected.get(l.path)));
  t.same(
    differing.map((l) => `${l.job} ${l.path}`),
    [],
    `every job's finals are the single-process finals of its capture (${expected.size} captures, ${[...expected.values()].reduce((n, f) => n + f.length, 0)} finals)`,
  );
});
