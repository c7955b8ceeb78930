/**
 * The --jobs pool: N worker processes (node:child_process fork, IPC with
 * the structured-clone serialization), each running one task at a time.
 *
 * Processes, not threads, and not a pool library: on a 2-core machine two
 * processes reading captures finished sooner than two worker threads of one
 * process (which share its compiler and GC helper threads and its
 * allocator; figures in benchmarks/RESULTS.md, "Every core"). piscina runs
 * threads only; tinypool's process mode forwards a worker's stderr to ours
 * and reports a worker that died without its cause, where a worker that
 * runs out of memory must cost its input only, named, with no V8 dump on
 * the user's terminal. So the pool is this file: a queue, a process per
 * slot, a new process for one that died.
 *
 * The run's options reach the workers once, in an environment variable,
 * without the input list.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EXIT_INTERNAL, EXIT_OK, UsageError, type CliOptions } from './args.js';
import type { Output } from './output.js';
import { messageOf } from './run-input.js';
import type { Task, TaskResult } from './worker.js';

/** The environment variable that caps each worker's JavaScript heap, in MiB (V8's --max-old-space-size). */
export const HEAP_ENV = 'WIREFOLD_WORKER_HEAP_MB';
/** Where the workers find the run's options (JSON). */
export const OPTIONS_ENV = 'WIREFOLD_WORKER_OPTIONS';

/** The cap HEAP_ENV sets, or null; a UsageError when it is not a whole number of MiB. */
export function workerHeapLimit(env: NodeJS.ProcessEnv = process.env): number | null {
  const value = env[HEAP_ENV];
  if (value === undefined || value === '') return null;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1) throw new UsageError(`${HEAP_ENV} takes a whole number of MiB, not '${value}'`);
  return Number(value);
}

/** Parent → worker. */
export interface TaskMessage {
  id: number;
  task: Task;
}

/** Worker → parent: `ready` once its module is loaded, then one answer per task. */
export type WorkerMessage = { ready: true } | { id: number; result: TaskResult } | { id: number; error: string };

/** How long a worker has to end on SIGTERM before it is killed. */
const KILL_AFTER_MS = 2000;

/** The last bytes of a worker's stderr kept, to tell why it died. */
const STDERR_TAIL = 16 * 1024;

/** Node flags that take their value as the next argument, among those a worker inherits. */
const FLAGS_WITH_VALUE = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C']);

/**
 * The main process's node flags a worker gets: module loaders (tsx under
 * the tests), conditions, source maps, V8 and experimental switches. Not
 * `-e`/`-p` (a worker would run the main script's code again, and fork),
 * nor --inspect (one port), --watch or --test.
 */
export function workerFlags(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (FLAGS_WITH_VALUE.has(flag)) {
      if (i + 1 < execArgv.length) kept.push(flag, execArgv[++i]!);
      continue;
    }
    const name = flag.split('=', 1)[0]!;
    if (FLAGS_WITH_VALUE.has(name) || name === '--enable-source-maps' || /^--(max|no|experimental|stack)-/.test(name)) kept.push(flag);
  }
  return kept;
}

/** The worker module beside this one: dist/cli/worker.js, or worker.ts when the sources run through tsx (the tests). */
function workerPath(): URL {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? './worker.ts' : './worker.js', here);
}

interface Pending {
  task: Task;
  resolve: (result: TaskResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  busy: (Pending & { id: number }) | null;
  stderr: string;
}

/** Why a worker process ended under a task: out of memory when V8 said so, else its exit status or signal. */
function endedBecause(slot: Slot, code: number | null, signal: NodeJS.Signals | null): string {
  if (/heap out of memory|Reached heap limit|Allocation failed/.test(slot.stderr)) return 'the worker ran out of memory';
  return `the worker process ended (${signal !== null ? `signal ${signal}` : `exit status ${code}`})`;
}

export class Pool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private destroying = false;
  /** Errors outside any task (a worker that could not start, or died idle): exit status 70. */
  private readonly stray: string[] = [];
  private readonly env: NodeJS.ProcessEnv;
  private readonly execArgv: string[];

  constructor(
    opts: CliOptions,
    private readonly workers: number,
    heapMb: number | null,
  ) {
    this.env = { ...process.env, [OPTIONS_ENV]: JSON.stringify({ ...opts, files: [] }) };
    this.execArgv = [...workerFlags(process.execArgv), ...(heapMb === null ? [] : [`--max-old-space-size=${heapMb}`])];
  }

  run(task: Task): Promise<TaskResult> {
    return new Promise<TaskResult>((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      if (this.slots.length < this.workers) this.spawn();
      this.dispatch();
    });
  }

  private spawn(): void {
    const child = fork(workerPath(), [], {
      env: this.env,
      execArgv: this.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, ready: false, busy: null, stderr: '' };
    this.slots.push(slot);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      slot.stderr = (slot.stderr + s).slice(-STDERR_TAIL);
    });
    child.on('message', (m: WorkerMessage) => this.answer(slot, m));
    let ended = false;
    const end = (why: string): void => {
      if (ended) return;
      ended = true;
      this.slots.splice(this.slots.indexOf(slot), 1);
      const busy = slot.busy;
      slot.busy = null;
      if (this.destroying) {
        busy?.reject(new Error('the run stopped'));
        return;
      }
      if (busy !== null) busy.reject(new Error(why));
      else this.stray.push(why);
      // a new worker for the tasks still waiting; one that never got ready fails them (it would fail again)
      if (this.queue.length > 0) {
        if (slot.ready) this.spawn();
        else if (this.slots.length === 0) for (const p of this.queue.splice(0)) p.reject(new Error(why));
      }
      this.dispatch();
    };
    child.on('error', (err) => end(`the worker process failed: ${messageOf(err)}`));
    // 'close': its stderr read to the end, so the cause of its death is known
    child.on('close', (code, signal) => end(endedBecause(slot, code, signal)));
  }

  private answer(slot: Slot, m: WorkerMessage): void {
    if ('ready' in m) slot.ready = true;
    else if (slot.busy !== null && slot.busy.id === m.id) {
      const busy = slot.busy;
      slot.busy = null;
      if ('error' in m) busy.reject(new Error(m.error));
      else busy.resolve(m.result);
    }
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.busy !== null) continue;
      const next = this.queue.shift()!;
      const id = this.nextId++;
      slot.busy = { ...next, id };
      slot.child.send({ id, task: next.task } satisfies TaskMessage);
    }
  }

  /**
   * Stops the workers (a task under way is dropped), then tells an error
   * outside any task, if there was one (exit status 70).
   */
  async destroy(output: Output): Promise<number> {
    this.destroying = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the run stopped'));
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            // SIGKILL for one that does not end on SIGTERM
            const hard = setTimeout(() => slot.child.kill('SIGKILL'), KILL_AFTER_MS);
            slot.child.once('close', () => {
              clearTimeout(hard);
              resolve();
            });
            slot.child.kill();
          }),
      ),
    );
    for (const why of this.stray) await output.diagnostic(`internal error: ${why}`);
    return this.stray.length > 0 ? EXIT_INTERNAL : EXIT_OK;
  }
}
