/**
 * Opening the command's inputs: a file (or standard input for `-`) as a
 * stream, or the reason it cannot be read, worded as cat, jq and rg word it
 * (`no such file or directory`), for a one-line `wirefold: <name>: <reason>`.
 */
import { systemReason as reason } from '../records/read.js';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';

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
