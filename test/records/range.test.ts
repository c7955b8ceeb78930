/**
 * lib/cli/range.ts: a records file cut into byte ranges at line boundaries.
 * Whatever the cut points and read sizes, the ranges' bytes put back
 * together are the file, each line in exactly one range, and the ranges'
 * line counts add up to the file's (an unended last line counted).
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countRangeLines, MAX_RANGE_BYTES, MIN_AVERAGE_LINE, MIN_SPLIT_BYTES, planRanges, RANGE_BYTES, rangeBytes, rangeSize } from '../../lib/cli/range.js';

const dir = mkdtempSync(join(tmpdir(), 'wirefold-range-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A small deterministic generator (the cases are the same on every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Lines of 0 to `longest` bytes (empty ones, `\r\n` endings), the last one unended half of the time. */
function content(rand: () => number, lines: number, longest: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    const n = Math.floor(rand() * rand() * longest);
    parts.push('x'.repeat(n) + (rand() < 0.2 ? '\r\n' : '\n'));
  }
  if (rand() < 0.5) parts.push('tail-without-newline');
  return Buffer.from(parts.join(''));
}

function linesOf(b: Buffer): number {
  let n = 0;
  for (const byte of b) if (byte === 0x0a) n++;
  return n + (b.length > 0 && b[b.length - 1] !== 0x0a ? 1 : 0);
}

t.test('the ranges put back together are the file, and their line counts add up', async (t) => {
  let cases = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const rand = random(seed);
    const bytes = content(rand, 1 + Math.floor(rand() * 30), seed % 4 === 0 ? 300 : 30);
    const file = join(dir, `f${seed}.jsonl`);
    writeFileSync(file, bytes);
    // tiny ranges only over small files: one open and read per range
    const sizes = bytes.length <= 300 ? [1, 2, 7, 64] : [23, 64, 1000, Math.ceil(bytes.length / 3)];
    for (const rangeSize of sizes) {
      for (const chunk of [1, 5, 65536]) {
        const parts: Buffer[] = [];
        let lines = 0;
        for (const range of planRanges(bytes.length, rangeSize)) {
          const count = { lines: 0 };
          for await (const piece of rangeBytes(file, range, count, chunk)) parts.push(piece);
          lines += count.lines;
        }
        const joined = Buffer.concat(parts);
        cases++;
        if (!joined.equals(bytes) || lines !== linesOf(bytes)) {
          t.fail(`seed ${seed}, ranges of ${rangeSize}, reads of ${chunk}: ${joined.length} of ${bytes.length} bytes, ${lines} of ${linesOf(bytes)} lines`);
          return;
        }
      }
    }
  }
  t.pass(`${cases} cuts`);
});

t.test('a line longer than several ranges belongs to the range it starts in; the others own nothing', async (t) => {
  const file = join(dir, 'long.jsonl');
  writeFileSync(file, 'a\n' + 'b'.repeat(100) + '\nc');
  const ranges = planRanges(103 + 1, 10);
  const owned: string[] = [];
  for (const r of ranges) {
    let s = '';
    for await (const piece of rangeBytes(file, r)) s += piece.toString();
    owned.push(s);
  }
  t.same(owned.filter((s) => s !== ''), ['a\n' + 'b'.repeat(100) + '\n', 'c']);
  t.equal(await countRangeLines(file, ranges[0]!), 2);
  t.equal(await countRangeLines(file, ranges[1]!), 0);
  t.equal(await countRangeLines(file, ranges.at(-1)!), 1);
});

t.test('planRanges: ranges of the size given, the last open-ended (between one and two sizes)', (t) => {
  t.same(planRanges(0, 10), [{ start: 0, end: null }]);
  t.same(planRanges(19, 10), [{ start: 0, end: null }]);
  t.same(planRanges(25, 10), [
    { start: 0, end: 10 },
    { start: 10, end: null },
  ]);
  t.end();
});

t.test('rangeSize: large files of long lines only, ranges of some 16 lines', (t) => {
  const long = Buffer.from(('x'.repeat(MIN_AVERAGE_LINE) + '\n').repeat(8));
  const short = Buffer.from('{"path":"a.sse"}\n'.repeat(500));
  t.equal(rangeSize(MIN_SPLIT_BYTES, long), RANGE_BYTES, 'lines of 1 KiB: the smallest ranges');
  t.equal(rangeSize(MIN_SPLIT_BYTES - 1, long), null, 'a smaller file: line batches');
  t.equal(rangeSize(MIN_SPLIT_BYTES, short), null, 'short lines (path records): line batches');
  const mega = Buffer.from(('x'.repeat(1024 * 1024 - 1) + '\n').repeat(3));
  t.equal(rangeSize(100 * 1024 * 1024, mega), 16 * 1024 * 1024, 'lines of 1 MiB: 16 MiB ranges');
  t.equal(rangeSize(MIN_SPLIT_BYTES, Buffer.alloc(4 * 1024 * 1024, 0x78)), MAX_RANGE_BYTES, 'no newline in the sample: the largest ranges');
  t.end();
});
