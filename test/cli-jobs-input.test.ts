/**
 * openInput in a --jobs worker (stdin null) reads the file with blocking
 * reads on its own thread instead of a read stream: the same chunks as the
 * main thread's stream, the same reasons for a file it cannot read, and the
 * file released when the reading stops early or ends.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { InputError, openInput } from '../lib/cli/input.js';

const dir = mkdtempSync(join(tmpdir(), 'wirefold-jobs-input-'));
// 200,001 bytes: three whole 64 KiB chunks and a short last one
const big = join(dir, 'big.sse');
writeFileSync(big, Buffer.from(Array.from({ length: 200_001 }, (_, i) => 32 + (i % 90))));
const empty = join(dir, 'empty.sse');
writeFileSync(empty, '');
const aDirectory = join(dir, 'a-directory');
mkdirSync(aDirectory);

async function chunks(file: string, stdin: PassThrough | null): Promise<Buffer[]> {
  const input = await openInput(file, stdin);
  const out: Buffer[] = [];
  for await (const chunk of input.stream as AsyncIterable<Buffer>) out.push(chunk);
  return out;
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

t.test('a worker reads the chunks the main thread reads', async (t) => {
  for (const file of [big, empty]) {
    const main = await chunks(file, new PassThrough());
    const worker = await chunks(file, null);
    t.same(
      worker.map((c) => c.length),
      main.map((c) => c.length),
      `${file}: chunk sizes ${main.map((c) => c.length).join(', ') || 'none'}`,
    );
    t.ok(Buffer.concat(worker).equals(readFileSync(file)), `${file}: the file's bytes`);
  }
  const input = await openInput(big, null);
  t.equal(input.size, 200_001, 'its size');
  t.equal(input.name, big, 'its name');
  input.close();
});

t.test('a file a worker cannot read: the reasons the main thread gives', async (t) => {
  for (const file of [join(dir, 'missing.sse'), aDirectory]) {
    const main = await openInput(file, new PassThrough()).catch((err: unknown) => err);
    const worker = await openInput(file, null).catch((err: unknown) => err);
    t.ok(worker instanceof InputError, `${file}: an InputError`);
    t.equal((worker as Error).message, (main as Error).message, `${file}: ${(main as Error).message}`);
  }
});

t.test('the file is released when the reading ends or stops early', { skip: process.platform !== 'linux' && 'reads /proc/self/fd' }, async (t) => {
  const before = openFds();
  await chunks(big, null);
  t.equal(openFds(), before, 'read to its end');
  const unread = await openInput(big, null);
  t.equal(openFds(), before + 1, 'open');
  unread.close();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(openFds(), before, 'closed before a read');
  const part = await openInput(big, null);
  const it = (part.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  await it.next();
  await it.return?.();
  t.equal(openFds(), before, 'stopped after one chunk');
});

t.test('a FIFO in a worker is read as the main thread reads it: opening it waits for its writer without blocking the thread', { skip: process.platform === 'win32' && 'no mkfifo' }, async (t) => {
  const fifo = join(dir, 'fifo.sse');
  execFileSync('mkfifo', [fifo]);
  const opening = openInput(fifo, null);
  // a blocking open would hold the thread until a writer came: this timer would not fire first
  const first = await Promise.race([opening.then(() => 'opened'), new Promise((resolve) => setTimeout(resolve, 50, 'timer'))]);
  t.equal(first, 'timer', 'the thread is free while the FIFO waits for its writer');
  const writer = createWriteStream(fifo);
  writer.end('data: {"a":1}\n\n');
  const input = await opening;
  const out: Buffer[] = [];
  for await (const chunk of input.stream as AsyncIterable<Buffer>) out.push(chunk);
  t.equal(Buffer.concat(out).toString(), 'data: {"a":1}\n\n', 'its bytes');
  t.equal(input.size, 0, "a FIFO's size is 0 as the main thread reports it");
});
