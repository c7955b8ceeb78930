/**
 * threadCpuMs (bench:jobs's accounting of a --jobs run): the calling
 * thread's own CPU time, which grows with its work and not with another
 * thread's (process.cpuUsage() counts every thread).
 */
import t from 'tap';
import { Worker } from 'node:worker_threads';
import { threadCpuMs } from '../lib/cli/thread-cpu.js';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

t.test('the calling thread only', { skip: process.platform !== 'linux' && '/proc/thread-self is Linux only' }, async (t) => {
  const a = threadCpuMs();
  t.type(a, 'number');
  spin(300);
  const b = threadCpuMs()!;
  // wall time spun, less what a loaded host took from it: at least some of it
  t.ok(b - a! >= 30, `spinning 300 ms here: ${b - a!} ms of this thread's CPU`);

  const process0 = process.cpuUsage();
  const worker = new Worker('const end = performance.now() + 400; while (performance.now() < end);', { eval: true });
  await new Promise((resolve) => worker.once('exit', resolve));
  const c = threadCpuMs()!;
  const used = process.cpuUsage(process0);
  const processMs = (used.user + used.system) / 1000;
  t.ok(processMs - (c - b) >= 30, `a worker spinning 400 ms: the process ${processMs.toFixed(0)} ms, this thread ${c - b} ms`);
  t.ok(c - b < processMs, 'this thread took less than the process');
});
