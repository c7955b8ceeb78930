/**
 * records(): output keeps input order when reads finish out of order (a FIFO
 * that answers last, files of very different sizes), and memory stays
 * bounded: with a slow reader, input is taken only as outputs are read.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { finals, records, type FinalResult, type RecordOutput } from '../../lib/index.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
const dir = mkdtempSync(join(tmpdir(), 'wirefold-records-order-'));
const line = (o: unknown): string => JSON.stringify(o) + '\n';

async function finalsOf(bytes: Buffer): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  for await (const f of finals([bytes])) out.push(f);
  return out;
}

t.test('a read that finishes last holds back the records after it, then all come out in order', async (t) => {
  const fifo = join(dir, 'slow.fifo');
  execFileSync('mkfifo', [fifo]);
  const small = join(dir, 'small.sse');
  writeFileSync(small, tool);
  let started = 0;
  const stream = records({ onDialect: () => void started++ });
  const out: RecordOutput[] = [];
  stream.on('data', (r: RecordOutput) => out.push(r));
  const done = new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
  stream.write(line({ n: 0, path: fifo }));
  for (let n = 1; n <= 5; n++) stream.write(line({ n, path: small }));
  stream.write(line({ n: 6, body: tool.toString() }));
  stream.end();
  try {
    // the five small files and the body are decoded while the FIFO has no writer yet
    for (let i = 0; i < 500 && started < 6; i++) await sleep(10);
    t.equal(started, 6, 'the records after the FIFO were read');
    t.equal(out.length, 0, 'none is out before the first');
  } finally {
    writeFileSync(fifo, tool); // opens the FIFO's writing end: its reader goes on
  }
  await done;
  t.same(
    out.map((r) => r.n),
    [0, 1, 2, 3, 4, 5, 6],
  );
  const want = await finalsOf(tool);
  for (const r of out) t.same(r.finals, want);
});

t.test('files of very different sizes: output in input order, finals as finals() gives', async (t) => {
  const biggest = corpusFiles(['xai-responses']).find((f) => f.name.endsWith('x-search.sse'))!.bytes;
  const big = join(dir, 'big.sse');
  writeFileSync(big, Buffer.concat(Array.from({ length: 25 }, () => biggest))); // ~10 MB, 25 responses
  const files = corpusFiles(['openai-chat']).slice(0, 6);
  const input: string[] = [];
  for (let i = 0; i < 4; i++) {
    input.push(line({ n: input.length, path: big }));
    for (const f of files) input.push(line({ n: input.length, path: f.path }));
  }
  const out: RecordOutput[] = [];
  await pipeline(Readable.from([input.join('')]), records({ concurrency: 16 }), async (s: AsyncIterable<RecordOutput>) => {
    for await (const r of s) out.push(r);
  });
  t.same(
    out.map((r) => r.n),
    input.map((_, i) => i),
  );
  const wantBig = await finalsOf(Buffer.concat(Array.from({ length: 25 }, () => biggest)));
  t.equal(wantBig.length, 25);
  for (const r of out) {
    if (r.n === 0 || r.n === 7 || r.n === 14 || r.n === 21) t.same(r.finals, wantBig);
    else t.same(r.finals, await finalsOf(files[((r.n as number) % 7) - 1]!.bytes));
  }
});

t.test('a slow reader: input is taken only as outputs are read (objects, one record a chunk)', async (t) => {
  let pulled = 0;
  const source = Readable.from(
    (function* () {
      for (let n = 0; n < 60; n++) {
        pulled++;
        yield { n, body: tool.toString() };
      }
    })(),
    { highWaterMark: 1 },
  );
  const stream = records({ concurrency: 2, highWaterMark: 2, writableHighWaterMark: 1 });
  let read = 0;
  let most = 0;
  await pipeline(source, stream, async (s: AsyncIterable<RecordOutput>) => {
    for await (const r of s) {
      t.equal(r.n, read, 'in order');
      read++;
      most = Math.max(most, pulled - read);
      await sleep(3);
    }
  });
  t.equal(read, 60);
  // ahead of the reader: the source's buffer (1), the writable side's (1), the records held (2), the readable side's (2), one in hand
  t.ok(most <= 8, `at most ${most} records ahead of the reader`);
});

t.test('a slow reader: one byte chunk of many lines is started a few records at a time', async (t) => {
  let decoded = 0;
  const stream = records({ concurrency: 3, highWaterMark: 2, onDialect: () => void decoded++ });
  const text = Array.from({ length: 200 }, (_, n) => line({ n, body: tool.toString() })).join('');
  let read = 0;
  let most = 0;
  await pipeline(Readable.from([Buffer.from(text)]), stream, async (s: AsyncIterable<RecordOutput>) => {
    for await (const r of s) {
      t.equal(r.n, read);
      read++;
      most = Math.max(most, decoded - read);
      if (read % 20 === 0) await sleep(5);
    }
  });
  t.equal(read, 200);
  t.ok(most <= 3 + 2 + 1, `at most ${most} records decoded ahead of the reader`);
});

t.test('destroying the stream mid-way stops it: no output after, the open reads let go', async (t) => {
  const fifo = join(dir, 'never.fifo');
  execFileSync('mkfifo', [fifo]);
  const stream = records();
  const out: RecordOutput[] = [];
  stream.on('data', (r: RecordOutput) => out.push(r));
  stream.write(line({ n: 0, body: tool.toString() }));
  stream.write(line({ n: 1, path: fifo }));
  await sleep(50);
  stream.destroy();
  writeFileSync(fifo, ''); // lets the open on the FIFO return (it would hold a libuv thread)
  await sleep(50);
  t.same(
    out.map((r) => r.n),
    [0],
  );
  t.ok(stream.destroyed);
});
