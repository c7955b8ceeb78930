/**
 * openInput reads a regular file with blocking reads on the calling thread
 * (the main one or a --jobs worker) instead of a read stream: the same chunks
 * as a 64 KiB read stream, the reasons cat gives for a file it cannot read,
 * the file released when the reading stops early or ends; a FIFO is still
 * read through libuv, in the main thread as in a worker (stdin null).
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

t.test('a regular file: the chunks a 64 KiB read stream gives, in the main thread as in a worker', async (t) => {
  for (const file of [big, empty]) {
    const stream: Buffer[] = [];
    for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) stream.push(chunk);
    for (const [who, stdin] of [['main thread', new PassThrough()], ['worker', null]] as const) {
      const got = await chunks(file, stdin);
      t.same(
        got.map((c) => c.length),
        stream.map((c) => c.length),
        `${file}, ${who}: chunk sizes ${stream.map((c) => c.length).join(', ') || 'none'}`,
      );
      t.ok(Buffer.concat(got).equals(readFileSync(file)), `${file}, ${who}: the file's bytes`);
    }
  }
  const input = await openInput(big, null);
  t.equal(input.size, 200_001, 'its size');
  t.equal(input.name, big, 'its name');
  input.close();
});

t.test("a file that cannot be read: cat's reasons, in the main thread as in a worker", async (t) => {
  const cases: [string, string][] = [
    [join(dir, 'missing.sse'), 'no such file or directory'],
    [aDirectory, 'is a directory'],
  ];
  for (const [file, why] of cases) {
    for (const stdin of [new PassThrough(), null]) {
      const err = await openInput(file, stdin).catch((e: unknown) => e);
      t.ok(err instanceof InputError, `${file}: an InputError`);
      t.equal((err as Error).message, why, `${file}: ${why}`);
    }
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

t.test('a FIFO is read through libuv: opening it waits for its writer without blocking the thread', { skip: process.platform === 'win32' && 'no mkfifo' }, async (t) => {
  for (const [who, stdin] of [['main thread', new PassThrough()], ['worker', null]] as const) {
    const fifo = join(dir, `fifo-${who.replace(' ', '-')}.sse`);
    execFileSync('mkfifo', [fifo]);
    const opening = openInput(fifo, stdin);
    // a blocking open would hold the thread until a writer came: this timer would not fire first
    const first = await Promise.race([opening.then(() => 'opened'), new Promise((resolve) => setTimeout(resolve, 50, 'timer'))]);
    t.equal(first, 'timer', `${who}: the thread is free while the FIFO waits for its writer`);
    const writer = createWriteStream(fifo);
    writer.end('data: {"a":1}\n\n');
    const input = await opening;
    const out: Buffer[] = [];
    for await (const chunk of input.stream as AsyncIterable<Buffer>) out.push(chunk);
    t.equal(Buffer.concat(out).toString(), 'data: {"a":1}\n\n', `${who}: its bytes`);
    t.equal(input.size, 0, `${who}: a FIFO's size is 0, as fstat gives it`);
  }
});
