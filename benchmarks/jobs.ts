/**
 * `npm run bench:jobs`: the CLI's --jobs 1 against --jobs N (2 by default),
 * and against --jobs left at its default (the number of cores, after the
 * main thread's own share: lib/cli/jobs.ts), on (a) many capture files and (b) a records
 * file holding the same captures (given as a file: cut into byte ranges the
 * workers read, lib/cli/range.ts; and on standard input: line batches the
 * main thread splits), each run in a child process of its own
 * running the built bin's main() (dist/: `npm run build` first).
 *
 *   tsx benchmarks/jobs.ts [--files 200] [--size 200KB] [--jobs 2] [--rounds 3]
 *                          [--scenarios files-final,files-events,records,records-stdin]
 *                          [--log-size 100MB] (scenarios sse-log-anthropic, sse-log-chat)
 *
 * The captures are generated once (benchmarks/generate.ts: `--files` seeded
 * single-response fixtures of `--size`, the dialects in turn) into
 * benchmarks/.fixtures/jobs/; the sse-log scenarios read one generated log
 * of `--log-size` (many responses in one SSE file, --out final: cut at
 * response ends, lib/cli/sse-cut.ts). Each round runs every scenario with --jobs 1,
 * --jobs N and the default (in a rotating order), stdout into a file whose
 * SHA-1 must be the same for all. Reported per scenario, medians over the rounds:
 * - MB/s: MiB of input per second of main() (pool start and stop included;
 *   node's own start is not), and the speed-up of --jobs N over --jobs 1;
 * - CPU: the process's user + system time (every thread), and the CPU time
 *   other processes took from the machine meanwhile (/proc/stat): on a
 *   shared 2-core machine that is what --jobs N competes with;
 * - where the CPU time went: the main thread's, each worker's and the other
 *   threads' (lib/cli/thread-cpu.ts), and the speed-up that allows;
 * - memory: the process's peak RSS (`process.resourceUsage().maxRSS`: worker
 *   threads share the process, so there is no RSS per worker: the column
 *   "RSS per worker" is what --jobs N's peak adds to --jobs 1's, over N), and per worker
 *   its largest V8 heap (`v8.getHeapStatistics()` taken in the worker at the
 *   end of each task: total_heap_size, the heap committed; used_heap_size).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchmarksDir, defaultFixtureDir, FIXTURE_DIALECTS, formatSize, parseSize, writeFixture } from './generate.js';

const repoRoot = resolve(benchmarksDir, '..');
const dir = join(defaultFixtureDir, 'jobs');

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

interface ChildStats {
  code: number;
  /** main()'s wall time. */
  ms: number;
  /** Process CPU time, all threads. */
  cpuMs: number;
  /** The main thread's own CPU time (null off Linux). */
  mainCpuMs: number | null;
  maxRssKiB: number;
  jobs: { threads: number; tasks: number; heaps: { threadId: number; heapTotal: number; heapUsed: number; peakMalloced: number; cpuMs: number | null }[] };
}

interface Run extends ChildStats {
  jobs: ChildStats['jobs'];
  /** The --jobs given, or 0 for none (the default). */
  jobsArg: number;
  /** Spawn to exit. */
  processMs: number;
  /** CPU time the rest of the machine used while the child ran (busy time from /proc/stat minus the child's). */
  othersCpuMs: number | null;
  sha1: string;
}

/** Busy CPU time of the whole machine so far, ms (/proc/stat: all but idle and iowait), or null off Linux. */
function machineBusyMs(): number | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return ((user! + nice! + system! + irq! + softirq! + steal!) / 100) * 1000; // USER_HZ ticks
  } catch {
    return null;
  }
}

const CHILD = `import { writeFileSync } from 'node:fs';
import { main } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'cli', 'main.js')).href)};
import { lastJobsStats } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'cli', 'jobs.js')).href)};
import { threadCpuMs } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'cli', 'thread-cpu.js')).href)};
const [statsPath, ...argv] = process.argv.slice(2);
const cpu0 = process.cpuUsage();
const main0 = threadCpuMs();
const t0 = performance.now();
const code = await main(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const main1 = threadCpuMs();
writeFileSync(statsPath, JSON.stringify({ code, ms, cpuMs: (cpu.user + cpu.system) / 1000, mainCpuMs: main0 === null || main1 === null ? null : main1 - main0, maxRssKiB: process.resourceUsage().maxRSS, jobs: lastJobsStats() }));
process.exitCode = code;
`;

async function sha1(path: string): Promise<string> {
  const hash = createHash('sha1');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function runChild(args: string[], jobs: number, stdin?: string): Promise<Run> {
  const statsPath = join(dir, `stats.${jobs}.json`);
  const outPath = join(dir, `out.${jobs}.txt`);
  const out = createWriteStream(outPath);
  await new Promise<void>((r) => out.once('open', () => r()));
  const busy0 = machineBusyMs();
  const t0 = performance.now();
  const jobsArgs = jobs === 0 ? [] : ['--jobs', String(jobs)];
  const input = stdin === undefined ? 'ignore' : openSync(stdin, 'r');
  const child = spawn(process.execPath, [join(dir, 'child.mjs'), statsPath, ...jobsArgs, ...args], { cwd: repoRoot, stdio: [input, out, 'pipe'] });
  if (input !== 'ignore') closeSync(input); // the child has its own copy
  const err: Buffer[] = [];
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const processMs = performance.now() - t0;
  const busy1 = machineBusyMs();
  out.close();
  if (code !== 0) throw new Error(`${label(jobs)} ${args.slice(0, 3).join(' ')}…: exit ${code}\n${Buffer.concat(err).toString()}`);
  const stats = JSON.parse(readFileSync(statsPath, 'utf8')) as ChildStats;
  return { ...stats, jobsArg: jobs, processMs, othersCpuMs: busy0 === null || busy1 === null ? null : busy1 - busy0 - stats.cpuMs, sha1: await sha1(outPath) };
}

function label(jobs: number): string {
  return jobs === 0 ? 'default' : `--jobs ${jobs}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const MiB = 1024 * 1024;

async function main(argv: string[]): Promise<void> {
  const files = Number(arg(argv, '--files') ?? '200');
  const size = parseSize(arg(argv, '--size') ?? '200KB');
  const jobs = Number(arg(argv, '--jobs') ?? '2');
  const rounds = Number(arg(argv, '--rounds') ?? '3');
  const scenarios = (arg(argv, '--scenarios') ?? 'files-final,files-events,records,records-stdin').split(',');
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'jobs.js'))) throw new Error('dist/ is not built: npm run build');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'child.mjs'), CHILD);

  // (a) the captures, (b) a records file of the same captures as bodies
  const t0 = performance.now();
  const paths: string[] = [];
  for (let i = 0; i < files; i++) {
    const dialect = FIXTURE_DIALECTS[i % FIXTURE_DIALECTS.length]!;
    paths.push(writeFixture({ dialect, shape: 'single', size, seed: 1 + Math.floor(i / FIXTURE_DIALECTS.length) }, dir).path);
  }
  const filesBytes = paths.reduce((n, p) => n + statSync(p).size, 0);
  const recordsPath = join(dir, `records.${files}x${formatSize(size)}.jsonl`);
  if (!existsSync(recordsPath)) {
    const out = createWriteStream(recordsPath);
    for (const [id, p] of paths.entries()) {
      if (!out.write(JSON.stringify({ id, body: readFileSync(p, 'utf8') }) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((r) => out.end(() => r()));
  }
  const recordsBytes = statSync(recordsPath).size;
  process.stdout.write(
    `fixtures: ${files} captures of ${formatSize(size)} (${(filesBytes / MiB).toFixed(1)} MiB), records file ${(recordsBytes / MiB).toFixed(1)} MiB (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );

  const defs: Record<string, { args: string[]; bytes: number; stdin?: string }> = {
    'files-final': { args: ['--out', 'final', ...paths], bytes: filesBytes },
    'files-events': { args: ['--out', 'events', ...paths], bytes: filesBytes },
    records: { args: ['--records', recordsPath], bytes: recordsBytes },
    'records-stdin': { args: ['--records'], bytes: recordsBytes, stdin: recordsPath },
  };
  // (c) one large SSE log per dialect asked for, generated only then
  const logSize = parseSize(arg(argv, '--log-size') ?? '100MB');
  for (const [name, dialect] of [['sse-log-anthropic', 'anthropic-messages'], ['sse-log-chat', 'openai-chat']] as const) {
    if (!scenarios.includes(name)) continue;
    const log = writeFixture({ dialect, shape: 'log', size: logSize, seed: 1 }, dir).path;
    defs[name] = { args: ['--out', 'final', log], bytes: statSync(log).size };
  }
  const results: Record<string, Run[]> = {};
  const load0 = loadavg()[0]!;
  for (let round = 0; round < rounds; round++) {
    for (const name of scenarios) {
      const def = defs[name];
      if (def === undefined) throw new Error(`unknown scenario ${name} (${Object.keys(defs).join(', ')})`);
      const configs = [1, jobs, 0];
      const order = configs.map((_, i) => configs[(i + round) % configs.length]!);
      const trio: Run[] = [];
      for (const j of order) trio.push(await runChild(def.args, j, def.stdin));
      if (new Set(trio.map((r) => r.sha1)).size !== 1) throw new Error(`${name}: --jobs 1, --jobs ${jobs} and the default wrote different output`);
      (results[name] ??= []).push(...trio);
      const by = (j: number): Run => trio.find((r) => r.jobsArg === j)!;
      process.stdout.write(
        `round ${round + 1} ${name}: --jobs 1 ${by(1).ms.toFixed(0)} ms, --jobs ${jobs} ${by(jobs).ms.toFixed(0)} ms (${(by(1).ms / by(jobs).ms).toFixed(2)}x), default ${by(0).ms.toFixed(0)} ms (${(by(1).ms / by(0).ms).toFixed(2)}x, ${by(0).jobs.tasks} tasks); others' CPU ${fmtMs(by(1).othersCpuMs)} / ${fmtMs(by(jobs).othersCpuMs)} / ${fmtMs(by(0).othersCpuMs)}\n`,
      );
    }
  }
  const load1 = loadavg()[0]!;

  const lines: string[] = [];
  lines.push(`\n${new Date().toISOString()}, ${files} × ${formatSize(size)}, --jobs 1 vs --jobs ${jobs} vs the default, ${rounds} rounds (medians), 1-min load ${load0.toFixed(1)} → ${load1.toFixed(1)}\n`);
  lines.push(`| scenario | input MiB | --jobs 1 MB/s | --jobs ${jobs} MB/s | speed-up (per round) | default MB/s | CPU s (1 / ${jobs}) | others' CPU s (1 / ${jobs}) | peak RSS MiB (1 / ${jobs}) | RSS per worker MiB | worker heap MiB (committed / used, max per worker) | tasks |`);
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|');
  for (const name of scenarios) {
    const runs = results[name]!;
    const bytes = defs[name]!.bytes;
    const one = runs.filter((r) => r.jobsArg === 1);
    const many = runs.filter((r) => r.jobsArg === jobs);
    const auto = runs.filter((r) => r.jobsArg === 0);
    const perRound = one.map((r, i) => r.ms / many[i]!.ms);
    const heaps = many.flatMap((r) => r.jobs.heaps);
    const heapText = many[0]!.jobs.heaps.length === 0 ? '–' : heaps.length === 0 ? '–' : `${(Math.max(...heaps.map((h) => h.heapTotal)) / MiB).toFixed(0)} / ${(Math.max(...heaps.map((h) => h.heapUsed)) / MiB).toFixed(0)}`;
    const mbps = (rs: Run[]): number => bytes / MiB / (median(rs.map((r) => r.ms)) / 1000);
    const others = (rs: Run[]): string => (rs.some((r) => r.othersCpuMs === null) ? '–' : (median(rs.map((r) => r.othersCpuMs!)) / 1000).toFixed(1));
    lines.push(
      `| ${name} | ${(bytes / MiB).toFixed(1)} | ${mbps(one).toFixed(1)} | ${mbps(many).toFixed(1)} | **${(median(one.map((r) => r.ms)) / median(many.map((r) => r.ms))).toFixed(2)}×** (${perRound.map((x) => x.toFixed(2)).join(', ')}) | ${mbps(auto).toFixed(1)} | ${(median(one.map((r) => r.cpuMs)) / 1000).toFixed(1)} / ${(median(many.map((r) => r.cpuMs)) / 1000).toFixed(1)} | ${others(one)} / ${others(many)} | ${(median(one.map((r) => r.maxRssKiB)) / 1024).toFixed(0)} / ${(median(many.map((r) => r.maxRssKiB)) / 1024).toFixed(0)} | ${((median(many.map((r) => r.maxRssKiB)) - median(one.map((r) => r.maxRssKiB))) / 1024 / jobs).toFixed(0)} | ${heapText} | ${median(many.map((r) => r.jobs.tasks))} |`,
    );
  }
  lines.push(...cpuTable(scenarios, results, jobs));
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * Where the CPU time went (medians, s): --jobs 1's main thread and its other
 * threads (V8's compiler and GC threads, libuv's), which run on the second
 * core for free; --jobs N's main thread, each worker (its thread's CPU time
 * at the end of its last task) and the other threads. The bound is the
 * speed-up the CPU time allows on N cores: --jobs 1 waits for its main
 * thread, --jobs N at best for its total spread over N cores.
 */
function cpuTable(scenarios: string[], results: Record<string, Run[]>, jobs: number): string[] {
  const s = (ms: number): string => (ms / 1000).toFixed(2);
  const lines = ['', `| scenario | --jobs 1: main thread / other threads | --jobs ${jobs}: main thread / workers / other threads | total (1 / ${jobs}) | bound on ${jobs} cores |`, '|---|---|---|---:|---:|'];
  for (const name of scenarios) {
    const runs = results[name]!;
    const one = runs.filter((r) => r.jobsArg === 1);
    const many = runs.filter((r) => r.jobsArg === jobs);
    if ([...one, ...many].some((r) => r.mainCpuMs === null)) {
      lines.push(`| ${name} | – | – | – | – |`);
      continue;
    }
    const main1 = median(one.map((r) => r.mainCpuMs!));
    const total1 = median(one.map((r) => r.cpuMs));
    const mainN = median(many.map((r) => r.mainCpuMs!));
    const totalN = median(many.map((r) => r.cpuMs));
    const workers = many.map((r) => r.jobs.heaps.map((h) => h.cpuMs ?? 0).sort((a, b) => b - a));
    const perWorker = workers[0]!.map((_, i) => median(workers.map((w) => w[i] ?? 0)));
    const workersMs = median(workers.map((w) => w.reduce((a, b) => a + b, 0)));
    lines.push(
      `| ${name} | ${s(main1)} / ${s(total1 - main1)} | ${s(mainN)} / ${perWorker.map(s).join(' + ')} / ${s(totalN - mainN - workersMs)} | ${s(total1)} / ${s(totalN)} | ${(main1 / (totalN / jobs)).toFixed(2)}× |`,
    );
  }
  return lines;
}

function fmtMs(ms: number | null): string {
  return ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
