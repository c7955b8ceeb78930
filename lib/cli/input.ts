/**
 * Opening the command's inputs: a file (or standard input for `-`) as a
 * stream, or the reason it cannot be read, worded as cat, jq and rg word it
 * (`no such file or directory`), for a one-line `wirefold: <name>: <reason>`.
 */
import { systemReason as reason } from '../records/read.js';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
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

/** The size of a read, from a regular file as from a read stream (the chunks the stages see are the same). */
const CHUNK = 64 * 1024;

/**
 * Opens `file` for reading (`-`: `stdin`, which only the main thread has:
 * null in a --jobs worker; `blocking` false: a regular file through libuv
 * too, see runRecords); throws an InputError when it cannot be read: it
 * does not exist, is not readable, or is a directory (which `open` accepts
 * on Linux and only the first read refuses).
 */
export async function openInput(file: string, stdin: Readable | null, blocking = true): Promise<Input> {
  if (file === '-') {
    if (stdin === null) throw new Error('standard input is read in the main thread only');
    return { name: 'stdin', stream: stdin, size: null, close: () => {} };
  }
  // a regular file is read with blocking reads (openFile) unless the caller asks otherwise; a pipe, FIFO or device may
  // never answer (opening a FIFO waits for its writer), and a thread blocked in a read could not be interrupted or
  // terminated: read through libuv
  if (blocking && isRegularFile(file)) return openFile(file);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new InputError(reason(err));
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new InputError(reason({ code: 'EISDIR' }));
    const stream = handle.createReadStream({ highWaterMark: CHUNK });
    return { name: file, stream, size: st.size, close: () => stream.destroy() };
  } catch (err) {
    await handle.close();
    throw err instanceof InputError ? err : new InputError(reason(err));
  }
}

/** Whether `file` is a regular file (stat does not open it: no wait on a FIFO); false when it cannot be stat'ed. */
function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false; // open tells why
  }
}

/** The one-line reason of a failed open or read (`EIO` → `i/o error`), worded as records mode words it. */
export { reason };

/**
 * A regular file read with blocking reads on the calling thread, in 64 KiB
 * chunks as a read stream gives them. The thread (the main one with one job,
 * a --jobs worker otherwise) has nothing else to do meanwhile, and a read
 * stream makes each read a round trip through libuv's thread pool: on 800
 * captures of 1 MB that took more CPU time and more wall time, in one job as
 * in two (benchmarks/RESULTS.md, issue 32). `from`, `to`: only the bytes
 * [from, to) (a part of an SSE log, sse-cut.ts; `to` null: to the end).
 */
export function openFile(file: string, from = 0, to: number | null = null): Input {
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
  let pos = from;
  const stream = new Readable({
    highWaterMark: CHUNK,
    read() {
      try {
        const buf = Buffer.allocUnsafeSlow(CHUNK);
        // (a whole file read on from where it is, as before)
        const n = readSync(fd, buf, 0, to === null ? CHUNK : Math.min(CHUNK, to - pos), from === 0 && to === null ? null : pos);
        pos += n;
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
