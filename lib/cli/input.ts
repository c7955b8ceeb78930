/**
 * Opening the command's inputs: a file (or standard input for `-`) as a
 * stream, or the reason it cannot be read, worded as cat, jq and rg word it
 * (`no such file or directory`), for a one-line `wirefold: <name>: <reason>`.
 */
import { systemReason as reason } from '../records/read.js';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

export interface Input {
  /** How messages name it: the file as given, or `stdin`. */
  name: string;
  stream: Readable;
  /** Its size in bytes (files only). */
  size: number | null;
  /** Releases the file (not standard input): for when the reading stops early. */
  close(): void;
}

/** An input that cannot be read: `message` is its one-line reason. */
export class InputError extends Error {
  override name = 'InputError';
}

/** The name of `file` in messages. */
export function inputName(file: string): string {
  return file === '-' ? 'stdin' : file;
}

/**
 * Opens `file` for reading (`-`: `stdin`, which only the main thread has:
 * null in a --jobs worker); throws an InputError when it cannot be read: it
 * does not exist, is not readable, or is a directory (which `open` accepts
 * on Linux and only the first read refuses).
 */
export async function openInput(file: string, stdin: Readable | null): Promise<Input> {
  if (file === '-') {
    if (stdin === null) throw new Error('standard input is read in the main thread only');
    return { name: 'stdin', stream: stdin, size: null, close: () => {} };
  }
  if (stdin === null) return openInWorker(file);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new InputError(reason(err));
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new InputError(reason({ code: 'EISDIR' }));
    const stream = handle.createReadStream({ highWaterMark: 64 * 1024 });
    return { name: file, stream, size: st.size, close: () => stream.destroy() };
  } catch (err) {
    await handle.close();
    throw err instanceof InputError ? err : new InputError(reason(err));
  }
}

/** The one-line reason of a failed open or read (`EIO` → `i/o error`), worded as records mode words it. */
export { reason };

/** The size of a read, in a worker as in the main thread's stream (the chunks the stages see are the same). */
const CHUNK = 64 * 1024;

/**
 * openInput in a --jobs worker: the file read with blocking reads on the
 * worker's own thread. A worker does nothing else meanwhile, and the main
 * thread's way (a read stream: each 64 KiB read a round trip through libuv's
 * thread pool, shared by the workers) took 10 % more of the process's CPU
 * time on 800 files of 1 MB (benchmarks/RESULTS.md, issue 32).
 */
function openInWorker(file: string): Input {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new InputError(reason(err));
  }
  let size: number;
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new InputError(reason({ code: 'EISDIR' }));
    size = st.size;
  } catch (err) {
    closeSync(fd);
    throw err instanceof InputError ? err : new InputError(reason(err));
  }
  let held = true;
  const stream = new Readable({
    highWaterMark: CHUNK,
    read() {
      try {
        const buf = Buffer.allocUnsafeSlow(CHUNK);
        const n = readSync(fd, buf, 0, CHUNK, null);
        this.push(n === 0 ? null : n === CHUNK ? buf : buf.subarray(0, n));
      } catch (err) {
        this.destroy(err as Error);
      }
    },
    destroy(err, callback) {
      if (held) closeSync(fd);
      held = false;
      callback(err);
    },
  });
  return { name: file, stream, size, close: () => stream.destroy() };
}
