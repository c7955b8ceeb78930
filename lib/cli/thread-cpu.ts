/**
 * The CPU time (user + system) of the calling thread, for `npm run
 * bench:jobs`'s accounting of a --jobs run: the main thread, each worker, and
 * by difference the process's other threads (V8's compiler and GC threads,
 * libuv's). Worker threads share the process, so process.cpuUsage() cannot
 * tell them apart; Linux's /proc/thread-self/stat can (utime and stime, in
 * clock ticks of 1/100 s). Null elsewhere.
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

export function threadCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    // the fields after the command name (in parentheses, which may hold spaces): state is the 3rd field, utime the 14th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    return Number.isFinite(user) && Number.isFinite(system) ? (user + system) * TICK_MS : null;
  } catch {
    return null;
  }
}
