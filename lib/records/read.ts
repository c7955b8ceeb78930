/**
 * A record's capture → its finals, as finals() gives them for the same
 * bytes: the body's bytes at once, a path's file as a stream (read with
 * backpressure, so a large file is never held whole).
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { getSystemErrorMap } from 'node:util';
import type { FinalResult } from '../accumulate/types.js';
import { StreamError } from '../errors.js';
import { run, type ByteSource } from '../pipeline/iterate.js';
import type { ResolvedStreamOptions } from '../pipeline/stream-options.js';
import type { Capture } from './body.js';
import type { RecordError } from './types.js';

/** `EISDIR` reads `illegal operation on a directory` in libuv's table: cat's wording is plainer. */
const REASONS: Record<string, string> = { EISDIR: 'is a directory' };

/** The one-line reason of a failed open or read: the system's text for its code (`ENOENT` → `no such file or directory`). */
export function systemReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') {
    const mine = REASONS[code];
    if (mine !== undefined) return mine;
    for (const [name, text] of getSystemErrorMap().values()) if (name === code) return text;
    return code;
  }
  return err instanceof Error ? err.message : String(err);
}

function unreadable(path: string, err: unknown): RecordError {
  return { code: 'unreadable_path', message: `${path}: ${systemReason(err)}` };
}

/** A file's read size; bytes held in memory are handed on in pieces of the same size (see inChunks). */
const CHUNK = 64 * 1024;

/** The file at `path` as a byte stream, or why it cannot be read (a directory opens on Linux; only reading it fails). */
async function openFile(path: string, cwd: string): Promise<{ source: ByteSource } | { error: RecordError }> {
  let handle;
  try {
    handle = await open(resolve(cwd, path), 'r');
  } catch (err) {
    return { error: unreadable(path, err) };
  }
  try {
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      return { error: unreadable(path, { code: 'EISDIR' }) };
    }
  } catch (err) {
    await handle.close().catch(() => {});
    return { error: unreadable(path, err) };
  }
  return { source: handle.createReadStream({ highWaterMark: CHUNK }) };
}

/**
 * A capture held in memory as pieces of a file's read size: in one piece its
 * megabyte would go through each hot loop in one call, which V8 then compiles
 * on the stack (OSR) for each record's reader anew (measured: the compiler's
 * threads took about as much CPU as the reading).
 */
function inChunks(bytes: Buffer): Buffer[] {
  if (bytes.length <= CHUNK) return [bytes];
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) chunks.push(bytes.subarray(i, i + CHUNK));
  return chunks;
}

/**
 * Every final of `capture`, or the record's error: a path that cannot be read
 * (even part-way: its partial finals are dropped), or the StreamError
 * finals() throws (strict mode, a limit): its code and message. Throws only
 * for a fault that is no StreamError (a bug), and an abort of `options.signal`.
 */
export async function readCapture(capture: Capture, options: ResolvedStreamOptions, cwd: string): Promise<FinalResult[] | RecordError> {
  let source: ByteSource;
  if (capture.kind === 'bytes') source = inChunks(capture.bytes);
  else {
    const opened = await openFile(capture.path, cwd);
    if ('error' in opened) return opened.error;
    source = opened.source;
  }
  const finals: FinalResult[] = [];
  try {
    for await (const f of run(source, options)) finals.push(f as FinalResult);
  } catch (err) {
    if (!(err instanceof StreamError) || err.code === 'aborted') throw err;
    if (err.code === 'source_error' && capture.kind === 'path') return unreadable(capture.path, err.cause);
    return { code: err.code, message: err.message };
  }
  return finals;
}
