import t from 'tap';
import { PassThrough, Readable } from 'node:stream';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../lib/cli/main.js';
import { repoRoot } from './helpers/corpus.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], stdin = ''): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const code = await main(argv, { stdin: Readable.from([Buffer.from(stdin)]), stdout, stderr });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

const dir = mkdtempSync(join(tmpdir(), 'llmstream-cli-'));
const sse = join(dir, 'a.sse');
writeFileSync(sse, 'event: x\ndata: {"a":1}\n\ndata: [DONE]\n\n');

t.test('--help prints usage and exits 0', async (t) => {
  const r = await run(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /Usage: llmstream/);
  t.match(r.stdout, /--out <mode>/);
});

t.test('--out frames writes one JSON object per frame per line', async (t) => {
  const r = await run(['--out', 'frames', sse]);
  t.equal(r.code, 0);
  t.same(
    r.stdout.trim().split('\n').map((l) => JSON.parse(l)),
    [
      { event: 'x', data: '{"a":1}', id: '' },
      { event: 'message', data: '[DONE]', id: '' },
    ],
  );
});

t.test('reads standard input when no file is given, and for -', async (t) => {
  const input = '[{"a":1},\n{"b":2}]';
  for (const argv of [['--out', 'frames'], ['--out', 'frames', '-']]) {
    const r = await run(argv, input);
    t.equal(r.code, 0);
    t.same(r.stdout.trim().split('\n').map((l) => JSON.parse(l).data), ['{"a":1}', '{"b":2}']);
  }
});

t.test('--framing forces a framing; --positions adds offsets', async (t) => {
  const r = await run(['--out', 'frames', '--framing', 'ndjson', '--positions'], '{"a":1}\n{"b":2}\n');
  t.same(
    r.stdout.trim().split('\n').map((l) => JSON.parse(l).at),
    [
      { frame: 0, offset: 0 },
      { frame: 1, offset: 8 },
    ],
  );
});

t.test('an unknown option exits 2 with a one-line message, no stack trace', async (t) => {
  const r = await run(['--bogus']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^llmstream: Unknown option '--bogus'/);
  t.notMatch(r.stderr, /\n\s+at /);
  const bad = await run(['--out', 'nope']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /unknown --out 'nope'/);
});

t.test('an unreadable file exits 2 with a one-line message', async (t) => {
  const r = await run([join(dir, 'missing.sse')]);
  t.equal(r.code, 2);
  t.match(r.stderr, /^llmstream: cannot read .*missing\.sse: no such file\n$/);
  const d = await run([dir]);
  t.equal(d.code, 2);
  t.match(d.stderr, /is a directory/);
});

t.test('a fatal framing error in frames mode: frames first, then a one-line message, exit 1', async (t) => {
  const r = await run(['--out', 'frames'], '[{"a":1} junk');
  t.equal(r.code, 1);
  t.equal(r.stdout.trim(), JSON.stringify({ event: 'message', data: '{"a":1}', id: '' }));
  t.match(r.stderr, /^llmstream: stdin: invalid JSON array at byte 9: expected ',' or '\]', found "j"\n$/);
});

t.test('the bin runs as a real process (built dist)', async (t) => {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'llmstream.js'), '--out', 'frames', sse]);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => chunks.push(b));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0);
  t.equal(Buffer.concat(chunks).toString().split('\n').length, 3);
});
