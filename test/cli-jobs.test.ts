/**
 * wirefold --jobs N: many inputs (or many records) on worker threads, the
 * output in input order and the same bytes as --jobs 1, in every mode; an
 * unreadable input in its place; --strict stopping where --jobs 1 stops; a
 * reader that closes stdout ending the run (and its workers); a worker that
 * runs out of memory costing its input only. The built bin runs as a child
 * process (npm test builds first).
 */
import t from 'tap';
import type { Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../lib/cli/main.js';
import { lastJobsStats } from '../lib/cli/jobs.js';
import { planRanges, rangeSize, readHead } from '../lib/cli/range.js';
import { runCli } from './helpers/cli.js';
import { corpusFiles, fixture, repoRoot } from './helpers/corpus.js';

const bin = join(repoRoot, 'bin', 'wirefold.js');
const dir = mkdtempSync(join(tmpdir(), 'wirefold-cli-jobs-'));
const corpus = corpusFiles();
const paths = corpus.map((f) => relative(repoRoot, f.path));
const missing = join(dir, 'missing.sse');
const aDirectory = join(dir, 'a-directory');
mkdirSync(aDirectory);
const half = Math.floor(paths.length / 2);
/** Every corpus file, with a missing file and a directory among them. */
const inputs = [...paths.slice(0, half), missing, ...paths.slice(half, half + 10), aDirectory, ...paths.slice(half + 10)];
const tool = fixture('quickstart/anthropic-tool-use.sse');
const toolPath = join('fixtures', 'quickstart', 'anthropic-tool-use.sse');

// Some 50 runs of the bin, each starting worker threads: on a loaded 2-core host this file can take
// more than the 120 s tap gives a file (about 70 s on an idle one; 356 s at a load average of 22).
t.setTimeout(480_000);

/**
 * The environment of the bin's runs: without NODE_V8_COVERAGE (c8's), which would have every run and
 * every worker thread write its coverage (20-30 % slower, 3 MB a run); the same code is covered by
 * this file's in-process runs and by the other CLI tests.
 */
function binEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_V8_COVERAGE'];
  return env;
}

interface BinRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs the built bin as a child process to its end. */
function runBin(args: string[], stdin: string | Buffer | null = null, env: NodeJS.ProcessEnv = {}): Promise<BinRun> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: binEnv(env) });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.on('error', () => {});
  if (stdin !== null) child.stdin.end(stdin);
  else child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() })));
}

/** Runs `args` with --jobs 1, 2 and 3 (or those given): the same exit status, stdout bytes and stderr in each. */
async function sameInEveryJobs(t: Test, args: string[], stdin: string | Buffer | null = null, others = ['2', '3']): Promise<BinRun> {
  const one = await runBin(['--jobs', '1', ...args], stdin);
  for (const jobs of others) {
    const r = await runBin(['--jobs', jobs, ...args], stdin);
    t.equal(r.code, one.code, `--jobs ${jobs} ${args.slice(0, 3).join(' ')}: exit status`);
    t.ok(r.stdout.equals(one.stdout), `--jobs ${jobs} ${args.slice(0, 3).join(' ')}: the same stdout bytes (${one.stdout.length})`);
    t.equal(r.stderr, one.stderr, `--jobs ${jobs} ${args.slice(0, 3).join(' ')}: the same stderr`);
  }
  return one;
}

t.test('every mode: --jobs 2 and 3 write what --jobs 1 writes, an unreadable input named in its place', async (t) => {
  const modes: string[][] = [[], ['--out', 'final'], ['--out', 'text'], ['--out', 'rows'], ['doctor']];
  for (const mode of modes) {
    const one = await sameInEveryJobs(t, [...mode, ...inputs]);
    t.equal(one.code, 2, `${mode.join(' ') || 'events'}: exit 2 (two unreadable inputs)`);
    t.match(one.stderr, `wirefold: ${missing}: no such file or directory\n`);
    t.match(one.stderr, `wirefold: ${aDirectory}: is a directory\n`);
    if (mode[0] !== 'doctor') t.ok(one.stdout.length > 10_000, 'output was written');
    if (mode[1] === 'text') {
      // the error events' diagnostics and the unreadable inputs, in input order
      const lines = one.stderr.split('\n').filter((l) => l !== '');
      const missingAt = lines.findIndex((l) => l.includes(missing));
      const directoryAt = lines.findIndex((l) => l.includes(aDirectory));
      t.ok(lines.length > 5 && missingAt > 0 && directoryAt > missingAt && directoryAt < lines.length - 1, `--out text: ${lines.length} diagnostics in order`);
    }
  }
});

/** A records file of the corpus: paths, bodies and base64 bodies, with bad records among them. */
function recordsText(): string {
  const out: string[] = [];
  corpus.forEach((f, i) => {
    const kind = i % 3;
    if (kind === 0) out.push(JSON.stringify({ id: i, path: paths[i] }));
    else if (kind === 1) out.push(JSON.stringify({ id: i, body: f.bytes.toString() }));
    else out.push(JSON.stringify({ id: i, body_base64: f.bytes.toString('base64') }));
    if (i % 25 === 3) out.push('', 'not json', JSON.stringify({ id: `missing-${i}`, path: 'no/such/file.sse' }), JSON.stringify({ id: `none-${i}` }));
    if (i % 40 === 7) out.push(JSON.stringify({ id: `crlf-${i}`, body: tool.toString() }) + '\r');
  });
  return out.join('\n'); // the last line without its newline
}

t.test('--records: a records file, and the same on stdin, in every --jobs: one line per line, in order, the same bytes', async (t) => {
  const text = recordsText();
  const file = join(dir, 'records.jsonl');
  writeFileSync(file, text);
  const lineCount = text.split('\n').length;
  for (const mode of [[], ['--out', 'rows'], ['--strict']]) {
    const one = await sameInEveryJobs(t, ['--records', ...mode, file, missing, file], null, mode.length === 0 ? ['2', '3'] : ['2']);
    t.equal(one.code, 2, 'exit 2: an unreadable input');
    t.equal(one.stderr, `wirefold: ${missing}: no such file or directory\n`);
    if (mode.length === 0) {
      const lines = one.stdout.toString().split('\n');
      t.equal(lines.pop(), '', 'the output ends its last line');
      t.equal(lines.length, 2 * lineCount, 'one line out per line in');
      const ids = lines.map((l) => (JSON.parse(l) as { id?: unknown }).id);
      t.same(ids.slice(0, lineCount), ids.slice(lineCount), 'the two copies alike');
    }
  }
  const stdin = await sameInEveryJobs(t, ['--records'], text);
  t.equal(stdin.code, 0);
  t.equal(stdin.stderr, '');
});

/** recordsText() repeated to `bytes` or more: a file large enough to be cut into byte ranges (lib/cli/range.ts). */
function bigRecordsText(bytes: number): string {
  const one = recordsText();
  return Array.from({ length: Math.ceil(bytes / one.length) }, () => one).join('\n');
}

t.test('--records on one large file: cut into byte ranges the workers read, the same bytes as --jobs 1', async (t) => {
  const text = bigRecordsText(4.2 * 1024 * 1024); // just over MIN_SPLIT_BYTES
  const file = join(dir, 'big-records.jsonl');
  writeFileSync(file, text);
  const size = Buffer.byteLength(text);
  const ranges = planRanges(size, rangeSize(size, await readHead(file)) ?? 0).length;
  t.ok(ranges >= 2, `${ranges} ranges`);
  for (const mode of [[], ['--out', 'rows']]) {
    const one = await runCli(['--jobs', '1', '--records', ...mode, file]);
    const two = await runCli(['--jobs', '2', '--records', ...mode, file]);
    t.equal(lastJobsStats().tasks, ranges, `--jobs 2 ${mode.join(' ')}: one task per range (${ranges})`);
    t.equal(two.code, one.code);
    t.ok(two.stdout === one.stdout, `--jobs 2 ${mode.join(' ')}: the same output (${one.stdout.length} characters)`);
    t.equal(two.stderr, one.stderr);
  }
  t.equal((await runCli(['--jobs', '1', '--records', file])).stdout.split('\n').length - 1, text.split('\n').length, 'one line out per line in');
});

t.test('--strict stops where --jobs 1 stops: the output before it the same, the tasks after it dropped', async (t) => {
  // where it must stop: the first input that stops alone
  let stopAt = -1;
  for (const [i, path] of paths.entries()) {
    if ((await runCli(['--strict', '--jobs', '1', join(repoRoot, path)])).code === 1) {
      stopAt = i;
      break;
    }
  }
  t.ok(stopAt >= 0 && stopAt < paths.length - 10, `the corpus has an input that stops it (${paths[stopAt]}), with more after it`);
  for (const mode of [[], ['--out', 'text']]) {
    const one = await sameInEveryJobs(t, ['--strict', ...mode, ...paths]);
    t.equal(one.code, 1);
    t.match(one.stderr, new RegExp(`^wirefold: ${paths[stopAt]!.replace(/[.]/g, '\\.')}: \\S+ at byte \\d+ \\(frame \\d+\\): .*\\n$`), 'one line, naming the input that stops');
  }
  // an unreadable input before the stop: exit 2, the highest
  const both = await sameInEveryJobs(t, ['--strict', ...paths.slice(0, stopAt), missing, ...paths.slice(stopAt)], null, ['2']);
  t.equal(both.code, 2);
  t.equal(both.stderr.split('\n').length, 3, 'the unreadable input, then the stop');
});

t.test('input order is kept when the first input is by far the largest', async (t) => {
  // a log of many responses back to back, ~200 times the rest's largest file
  const big = join(dir, 'big.log');
  writeFileSync(big, Buffer.concat(Array.from({ length: 1500 }, () => tool)));
  for (const mode of [[], ['doctor', '--json']]) {
    const one = await sameInEveryJobs(t, [...mode, big, ...paths.slice(0, 40)]);
    t.equal(one.code, mode[0] === 'doctor' ? 1 : 0);
  }
});

t.test('standard input among files is read in its turn', async (t) => {
  const one = await sameInEveryJobs(t, ['--out', 'final', ...paths.slice(0, 20), '-', ...paths.slice(20, 40)], tool);
  t.equal(one.code, 0);
  t.ok(one.stdout.includes(Buffer.from('msg_01QuickStart')), 'the stdin capture is in the output');
});

/** Spawns the bin, reads its first stdout line, closes its stdout: the run must end (exit 0), not go on or hang. */
async function closeAfterFirstLine(t: Test, args: string[], stdin: string | null = null): Promise<void> {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: binEnv() });
  const err: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.on('error', () => {});
  if (stdin !== null) child.stdin.end(stdin);
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  t.equal(first.done, false, `${args.slice(0, 3).join(' ')}: a first line`);
  child.stdout.destroy();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  t.equal(signal, null, 'the process ended by itself (not killed after 30 s)');
  t.equal(code, 0, 'exit 0');
  t.equal(Buffer.concat(err).toString(), '', 'nothing on stderr');
  t.ok(Date.now() - started < 30_000, `ended in ${Date.now() - started} ms`);
}

t.test('stdout closed early (| head -1): exit 0, the workers gone with the process', async (t) => {
  const many = Array.from({ length: 10 }, () => paths).flat();
  await closeAfterFirstLine(t, ['--jobs', '2', '--raw', ...many]);
  await closeAfterFirstLine(t, ['--jobs', '3', 'doctor', '--json', ...many]);
  const records = Array.from({ length: 3000 }, (_, n) => JSON.stringify({ n, body: tool.toString() }) + '\n').join('');
  await closeAfterFirstLine(t, ['--jobs', '2', '--records'], records);
});

t.test('in-process: stdout closed early ends main() with 0 and destroys the pool', async (t) => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let chunks = 0;
  stdout.on('data', () => {
    if (++chunks === 1) stdout.destroy();
  });
  const many = Array.from({ length: 5 }, () => paths.map((p) => join(repoRoot, p))).flat();
  const code = await main(['--jobs', '2', ...many], { stdin: Readable.from([]), stdout, stderr });
  t.equal(code, 0);
  t.equal(chunks, 1);
});

t.test('--records on stdin, line by line: each line is answered before the next is written (--jobs 2)', async (t) => {
  const child = spawn(process.execPath, [bin, '--jobs', '2', '--records'], { cwd: repoRoot, env: binEnv() });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const asks = [JSON.stringify({ id: 1, body: tool.toString() }) + '\n', 'bad\n', '\n', JSON.stringify({ id: 4, path: toolPath }) + '\n', JSON.stringify({ id: 5 }) + '\n'];
  const got: string[] = [];
  for (const ask of asks) {
    child.stdin.write(ask);
    const answer = await answers.next();
    const o = answer.done === true ? null : (JSON.parse(answer.value) as { id?: number; error?: { code: string } });
    got.push(o === null ? '(none)' : (o.error?.code ?? String(o.id)));
  }
  t.same(got, ['1', 'invalid_record', 'invalid_record', '4', 'missing_body']);
  child.stdin.end();
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 0);
});

t.test('a worker that runs out of memory fails its input only: named on stderr in its place, exit 70, the rest written', async (t) => {
  // one response whose text (32 MB) does not fit a 16 MiB worker heap
  const delta = JSON.stringify('x'.repeat(65536));
  const parts = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  ];
  for (let i = 0; i < 500; i++) parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${delta}}}\n\n`);
  parts.push('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  const huge = join(dir, 'huge.sse');
  writeFileSync(huge, parts.join(''));
  const env = { WIREFOLD_WORKER_HEAP_MB: '16' };
  const small = paths.slice(0, 6);
  const rest = await runBin(['--jobs', '1', '--out', 'final', ...small]);
  const r = await runBin(['--jobs', '2', '--out', 'final', ...small.slice(0, 3), huge, ...small.slice(3)], null, env);
  t.equal(r.code, 70, 'exit 70');
  t.match(r.stderr, new RegExp(`^wirefold: ${huge.replace(/[.]/g, '\\.')}: internal error: .*memory.*\\n$`), 'the input named, once');
  t.ok(r.stdout.equals(rest.stdout), 'the other inputs written, in order');

  // records: the batch holding it gets one internal_error line per record
  const records = [...small.map((p, i) => JSON.stringify({ id: i, path: p })), JSON.stringify({ id: 'huge', path: huge })].join('\n') + '\n';
  const rr = await runBin(['--jobs', '2', '--records'], records, env);
  t.equal(rr.code, 70);
  t.match(rr.stderr, /^wirefold: stdin: internal error: .*memory.* \(lines 1-7\)\n$/);
  const lines = rr.stdout.toString().trimEnd().split('\n');
  t.equal(lines.length, 7, 'one line per record still');
  t.same(
    lines.map((l) => (JSON.parse(l) as { error?: { code: string } }).error?.code),
    Array.from({ length: 7 }, () => 'internal_error'),
  );

  // a large records file cut into byte ranges: the range holding it gets one internal_error line per line it owns
  const before = bigRecordsText(4.1 * 1024 * 1024);
  const after = recordsText();
  const big = join(dir, 'big-with-huge.jsonl');
  writeFileSync(big, [before, JSON.stringify({ id: 'huge', body: parts.join('') }), after].join('\n') + '\n');
  const inLines = before.split('\n').length + 1 + after.split('\n').length;
  // 32 MiB, not 16: with 16 V8 itself ran out of memory in the worker (a fatal error ending the process) on this input
  const rb = await runBin(['--jobs', '2', '--records', big], null, { WIREFOLD_WORKER_HEAP_MB: '32' });
  t.equal(rb.code, 70, 'a range lost: exit 70');
  const m = /^wirefold: .*big-with-huge\.jsonl: internal error: .*memory.* \(lines? (\d+)(?:-(\d+))?\)\n$/.exec(rb.stderr);
  t.ok(m, 'the file and the range\'s lines named', { stderr: rb.stderr });
  const [first, last] = [Number(m?.[1]), Number(m?.[2] ?? m?.[1])];
  const out = rb.stdout.toString().trimEnd().split('\n');
  t.equal(out.length, inLines, 'one line out per line in still');
  const lost = out.flatMap((l, i) => ((JSON.parse(l) as { error?: { code: string } }).error?.code === 'internal_error' ? [i + 1] : []));
  t.same([lost[0], lost.at(-1), lost.length], [first, last, last - first + 1], 'the lines named are the internal_error lines');
  t.ok(lost.includes(before.split('\n').length + 1), "the huge record's line among them");

  const bad = await runBin(['--jobs', '2', ...small], null, { WIREFOLD_WORKER_HEAP_MB: 'lots' });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^wirefold: WIREFOLD_WORKER_HEAP_MB takes a whole number of MiB, not 'lots'\n/);
});

t.test('--jobs takes a whole number from 1; --help names it', async (t) => {
  for (const value of ['0', 'x', '1.5', '-2', '100000']) {
    const r = await runCli([`--jobs=${value}`, toolPath]);
    t.equal(r.code, 2, `--jobs ${value}`);
    t.match(r.stderr, /^wirefold: --jobs takes a whole number from 1 to \d+, not '.*'\n/);
  }
  t.equal((await runCli(['-j', '2', '--out', 'final', join(repoRoot, toolPath), join(repoRoot, toolPath)])).code, 0, '-j');
  t.equal((await runCli(['doctor', '--jobs', '2', join(repoRoot, toolPath), join(repoRoot, toolPath)])).code, 0, 'doctor --jobs');
  t.match((await runCli(['--help'])).stdout, /-j, --jobs <n>/);
  t.match((await runCli(['doctor', '--help'])).stdout, /-j, --jobs <n>/);
});

t.test('--progress with --jobs: a count of the inputs done, erased at the end; stdout unchanged', async (t) => {
  const one = await runBin(['--jobs', '1', '--out', 'final', ...paths.slice(0, 30)]);
  const r = await runBin(['--jobs', '2', '--progress', '--out', 'final', ...paths.slice(0, 30)]);
  t.ok(r.stdout.equals(one.stdout));
  t.match(r.stderr, /\rwirefold: 30\/30 inputs done\x1b\[K/);
  t.ok(r.stderr.endsWith('\r\x1b[K'), 'erased');
});

t.test('--jobs left at its default: a short run stays in the main thread, a long one shares out the rest; the same output', async (t) => {
  const one = await runBin(['--jobs', '1', '--out', 'final', ...paths]);
  const auto = await runBin(['--out', 'final', ...paths]);
  t.ok(auto.stdout.equals(one.stdout));
  t.equal(auto.code, one.code);
  const big = join(dir, 'big-auto.log');
  writeFileSync(big, Buffer.concat(Array.from({ length: 1500 }, () => tool)));
  const many = [big, ...paths, ...paths];
  const oneMany = await runBin(['--jobs', '1', ...many]);
  const autoMany = await runBin(many);
  t.ok(autoMany.stdout.equals(oneMany.stdout), 'past the main thread share: the same bytes');
  t.equal(autoMany.stderr, oneMany.stderr);
});
