/**
 * wirefold --records: one JSON line out per line in, in order, whatever the
 * lines hold; stderr and the exit status only for the run itself. Run
 * in-process, then as a real process the way Hadoop Streaming, Spark's
 * RDD.pipe() and Redpanda Connect's subprocess processor run a mapper.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { finals, finalToRow, type FinalResult } from '../lib/index.js';
import { runCli } from './helpers/cli.js';
import { corpusFiles, fixture, repoRoot } from './helpers/corpus.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
const toolPath = join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse');
const dir = mkdtempSync(join(tmpdir(), 'wirefold-cli-records-'));
const line = (o: unknown): string => JSON.stringify(o) + '\n';
const bin = join(repoRoot, 'bin', 'wirefold.js');

async function finalsOf(bytes: Buffer): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  for await (const f of finals([bytes])) out.push(f);
  return out;
}

/** The output lines (the text ends with a newline: no empty last line). */
function lines(stdout: string): string[] {
  if (stdout !== '' && !stdout.endsWith('\n')) throw new Error(`the output does not end its last line: ...${stdout.slice(-80)}`);
  return stdout === '' ? [] : stdout.slice(0, -1).split('\n');
}

/** Every kind of bad input among good records: one line each. */
const mixed = [
  line({ id: 1, body: tool.toString() }),
  '\n',
  'not json\n',
  '[{"body":"x"}]\n',
  line({ id: 5 }),
  line({ id: 6, path: join(dir, 'missing.sse') }),
  line({ id: 7, body_base64: '%%%' }),
  '  \r\n',
  line({ id: 9, body_base64: tool.toString('base64') }),
  line({ id: 10, path: relative(process.cwd(), toolPath) }),
  line({ id: 11, body: '<html>not a stream</html>' }),
].join('');
const mixedCodes = ['ok', 'invalid_record', 'invalid_record', 'invalid_record', 'missing_body', 'unreadable_path', 'invalid_base64', 'invalid_record', 'ok', 'ok', 'ok'];

t.test('--records: one line out per line in, in order; bad records are lines, not failures', async (t) => {
  const want = await finalsOf(tool);
  const r = await runCli(['--records'], mixed);
  t.equal(r.code, 0, 'exit 0 with bad records inside');
  t.equal(r.stderr, '', 'nothing on stderr');
  const out = lines(r.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
  t.equal(out.length, mixed.split('\n').length - 1);
  t.same(
    out.map((o) => (o.error === undefined ? 'ok' : (o.error as { code: string }).code)),
    mixedCodes,
  );
  t.same(out[0], { id: 1, finals: want });
  t.same(out[8], { id: 9, finals: want });
  t.same(out[9], { id: 10, finals: want }, 'a path relative to the current directory');
  t.same((out[10]!.finals as FinalResult[])[0]!.errors.map((e) => e.code), ['not_a_stream'], "a capture's errors stay in its finals");
  t.match((out[5]!.error as { message: string }).message, /missing\.sse: no such file or directory$/);
});

t.test('--records: an unterminated last line is a record; CRLF input; blank lines only', async (t) => {
  const r = await runCli(['--records'], '{"id":1}\r\n{"id":2}');
  t.same(
    lines(r.stdout).map((l) => JSON.parse(l).id),
    [1, 2],
  );
  const blanks = await runCli(['--records'], '\n\n\n');
  t.equal(lines(blanks.stdout).length, 3, 'three blank lines, three error lines');
  t.equal(blanks.code, 0);
  const empty = await runCli(['--records'], '');
  t.equal(empty.stdout, '', 'no input, no output');
  t.equal(empty.code, 0);
});

t.test('--records: files in order, each line a record; an unreadable input file is named on stderr, exit 2, the others still read', async (t) => {
  const a = join(dir, 'a.jsonl');
  const b = join(dir, 'b.jsonl');
  writeFileSync(a, line({ f: 'a', n: 1, path: toolPath }) + line({ f: 'a', n: 2 }));
  writeFileSync(b, line({ f: 'b', n: 1, body: tool.toString() }));
  const r = await runCli(['--records', a, join(dir, 'nope.jsonl'), b]);
  t.equal(r.code, 2);
  t.equal(r.stderr, `wirefold: ${join(dir, 'nope.jsonl')}: no such file or directory\n`);
  t.same(
    lines(r.stdout).map((l) => `${JSON.parse(l).f}${JSON.parse(l).n}`),
    ['a1', 'a2', 'b1'],
  );
  const stdinToo = await runCli(['--records', a, '-'], line({ f: 's', n: 1 }));
  t.same(
    lines(stdinToo.stdout).map((l) => JSON.parse(l).f),
    ['a', 'a', 's'],
  );
});

t.test('--records: --body-field, --base64-field and --path-field name the capture fields', async (t) => {
  const want = await finalsOf(tool);
  const input = line({ id: 1, raw: tool.toString() }) + line({ id: 2, b64: tool.toString('base64') }) + line({ id: 3, file: toolPath }) + line({ id: 4, body: 'x' });
  const r = await runCli(['--records', '--body-field', 'raw', '--base64-field', 'b64', '--path-field', 'file'], input);
  const out = lines(r.stdout).map((l) => JSON.parse(l));
  t.same(out.slice(0, 3), [
    { id: 1, finals: want },
    { id: 2, finals: want },
    { id: 3, finals: want },
  ]);
  t.same(out[3], { id: 4, body: 'x', error: { code: 'missing_body', message: 'the record has none of the fields "raw", "b64" or "file"' } });
});

t.test('--records with --dialect, --framing and --strict: the options apply to every capture; --strict errors are record errors', async (t) => {
  const input = line({ id: 1, body: '<html>x</html>' }) + line({ id: 2, body: tool.toString() });
  const strict = await runCli(['--records', '--strict'], input);
  t.equal(strict.code, 0, 'a strict stop is the record error, not the run');
  t.equal(strict.stderr, '');
  const out = lines(strict.stdout).map((l) => JSON.parse(l));
  t.equal(out[0].error.code, 'not_a_stream');
  t.same(out[1].finals, await finalsOf(tool));
  const forced = await runCli(['--records', '--dialect', 'openai-chat'], line({ body: tool.toString() }));
  t.equal(JSON.parse(forced.stdout).finals[0].dialect, 'openai-chat');
});

t.test('--records: a huge body is one line in, one line out', async (t) => {
  const big = Buffer.concat(Array.from({ length: 30 }, () => corpusFiles(['anthropic-messages']).find((f) => f.name.endsWith('pause-turn.sse'))!.bytes));
  const input = line({ id: 'big', body: big.toString() }) + line({ id: 'after', body: tool.toString() });
  t.ok(input.length > 5_000_000, `${input.length} bytes of input`);
  const r = await runCli(['--records'], [Buffer.from(input)]);
  const out = lines(r.stdout).map((l) => JSON.parse(l));
  t.equal(out.length, 2);
  t.same(out[0].finals, await finalsOf(big));
  t.equal(out[1].id, 'after');
});

const COLUMNS = Object.keys(finalToRow((await finalsOf(tool))[0]!));

t.test('--out rows: one flat row per final, the same columns for every dialect', async (t) => {
  const files = corpusFiles();
  const r = await runCli(['--out', 'rows', ...files.map((f) => f.path)]);
  t.equal(r.code, 0);
  const rows = lines(r.stdout).map((l) => JSON.parse(l));
  let want = 0;
  for (const f of files) want += (await finalsOf(f.bytes)).length;
  t.equal(rows.length, want, 'a row per final');
  for (const row of rows) if (!t.same(Object.keys(row), COLUMNS)) break;
  t.ok(new Set(rows.map((r) => r.dialect)).size >= 8);
  const single = await runCli(['--out', 'rows', toolPath]);
  t.same(JSON.parse(single.stdout), finalToRow((await finalsOf(tool))[0]!));
});

t.test('--records --out rows: the record fields as record_<name>, a row per final; a record with no final has one row', async (t) => {
  const two = Buffer.concat([tool, tool]).toString();
  const r = await runCli(['--records', '--out', 'rows'], line({ id: 'x', body: two }) + 'junk\n' + line({ id: 'y', body: '' }));
  t.equal(r.code, 0);
  const rows = lines(r.stdout).map((l) => JSON.parse(l));
  t.same(
    rows.map((row) => [row.record_id, row.finalIndex, row.recordErrorCode]),
    [
      ['x', 0, null],
      ['x', 1, null],
      [undefined, null, 'invalid_record'],
      ['y', null, null],
    ],
  );
  t.same(Object.keys(rows[0]), ['record_id', 'recordErrorCode', 'recordErrorMessage', 'finalIndex', ...COLUMNS]);
  t.same(Object.keys(rows[2]), ['recordErrorCode', 'recordErrorMessage', 'finalIndex', ...COLUMNS]);
});

t.test('usage: the record options need --records, --records takes final or rows, doctor takes none', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--body-field', 'x'], /--body-field is an option of --records/],
    [['--path-field', 'x'], /--path-field is an option of --records/],
    [['--records', '--out', 'events'], /--records writes .* not --out events/],
    [['--records', '--out', 'text'], /not --out text/],
    [['--records', '--audio-out', dir], /--audio-out is not an option of --records/],
    [['--records', '--body-field', ''], /--body-field needs a field name/],
    [['--records', '--body-field', 'path'], /name the same field/],
    [['doctor', '--records'], /--records is not an option of doctor/],
  ];
  for (const [argv, message] of cases) {
    const r = await runCli(argv, '');
    t.equal(r.code, 2, argv.join(' '));
    t.match(r.stderr, message);
    t.match(r.stderr, /^wirefold: /);
    t.equal(r.stdout, '');
  }
  const help = await runCli(['--help']);
  t.match(help.stdout, /--records /);
  t.match(help.stdout, /--out <mode>        frames \| events \| final \| text \| rows/);
  for (const o of ['--body-field <f>', '--base64-field <f>', '--path-field <f>']) t.match(help.stdout, o);
  t.same(
    help.stdout.split('\n').filter((l) => l.length > 80),
    [],
    'within 80 columns',
  );
});

/** Runs the built bin as a child process; resolves with its exit code, stdout and stderr. */
function runBin(args: string[], stdin: string | null, cwd = repoRoot): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  if (stdin !== null) child.stdin.end(stdin);
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() })),
  );
}

t.test('the bin as a Hadoop Streaming mapper: records on stdin, line count in = line count out, in order, exit 0', async (t) => {
  // every corpus file as a record three ways, with bad records among them
  const input: string[] = [];
  const kinds: string[] = [];
  const files = corpusFiles();
  files.forEach((f, i) => {
    input.push(JSON.stringify({ n: input.length, body: f.bytes.toString() }));
    input.push(JSON.stringify({ n: input.length, body_base64: f.bytes.toString('base64') }));
    input.push(JSON.stringify({ n: input.length, path: relative(repoRoot, f.path) }));
    kinds.push('ok', 'ok', 'ok');
    if (i % 20 === 0) {
      input.push('', '{broken', JSON.stringify({ n: input.length + 2, path: 'no/such/file.sse' }));
      kinds.push('invalid_record', 'invalid_record', 'unreadable_path');
    }
  });
  const text = input.join('\n') + '\n';
  const r = await runBin(['--records'], text);
  t.equal(r.code, 0, 'exit 0');
  t.equal(r.stderr, '', 'nothing on stderr');
  const out = lines(r.stdout);
  t.equal(out.length, input.length, `${input.length} lines in, ${out.length} out`);
  const parsed = out.map((l) => JSON.parse(l) as { n?: number; error?: { code: string }; finals?: FinalResult[] });
  t.same(
    parsed.map((o) => o.error?.code ?? 'ok'),
    kinds,
  );
  for (const [i, o] of parsed.entries()) if (o.n !== undefined && !t.equal(o.n, i, 'in order')) break;
  // the finals are finals() of the same bytes
  for (const [i, f] of files.entries()) {
    const o = parsed.find((p) => p.n !== undefined && input[p.n]!.includes(JSON.stringify(relative(repoRoot, f.path))));
    if (!t.same(o?.finals, await finalsOf(f.bytes), f.name) || i > 20) break;
  }
});

t.test('the bin as a subprocess processor: each line is answered before the next is written', async (t) => {
  const child = spawn(process.execPath, [bin, '--records'], { cwd: repoRoot });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const asks = [line({ id: 1, body: tool.toString() }), 'bad\n', '\n', line({ id: 4, path: relative(repoRoot, toolPath) }), line({ id: 5 })];
  const got: string[] = [];
  for (const ask of asks) {
    child.stdin.write(ask);
    const answer = await answers.next();
    got.push(answer.done === true ? '(none)' : ((JSON.parse(answer.value) as { id?: number; error?: { code: string } }).error?.code ?? String(JSON.parse(answer.value).id)));
  }
  t.same(got, ['1', 'invalid_record', 'invalid_record', '4', 'missing_body']);
  child.stdin.end();
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.equal(code, 0);
});

t.test('the bin: an unreadable input file exits 2; bad usage exits 2; a reader that stops early ends it quietly', async (t) => {
  const r = await runBin(['--records', join(dir, 'nope.jsonl')], null);
  t.equal(r.code, 2);
  t.match(r.stderr, /^wirefold: .*nope\.jsonl: no such file or directory\n$/);
  const usage = await runBin(['--records', '--out', 'frames'], '');
  t.equal(usage.code, 2);
  // | head -1
  const many = Array.from({ length: 3000 }, (_, n) => line({ n, body: tool.toString() })).join('');
  const child = spawn(process.execPath, [bin, '--records'], { cwd: repoRoot });
  const err: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.on('error', () => {}); // the child may be gone before all of stdin is written
  child.stdin.end(many);
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  t.equal(JSON.parse(first.value as string).n, 0);
  child.stdout.destroy();
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.equal(code, 0);
  t.equal(Buffer.concat(err).toString(), '');
});

t.test('--records: an input that fails mid-way: the lines read are out, then the failure on stderr, exit 2', async (t) => {
  const { PassThrough, Readable } = await import('node:stream');
  const { main } = await import('../lib/cli/main.js');
  const stdin = new Readable({ read() {} });
  stdin.push(line({ id: 1, body: tool.toString() }) + line({ id: 2 }) + '{"id":3');
  setTimeout(() => stdin.destroy(Object.assign(new Error('read failed'), { code: 'EIO' })), 20);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const code = await main(['--records'], { stdin, stdout, stderr });
  t.equal(code, 2);
  const got = lines(Buffer.concat(out).toString()).map((l) => JSON.parse(l));
  t.same(
    got.map((o) => o.id ?? o.error.code),
    [1, 2, 'invalid_record'],
    'every line read is out, the cut last one too',
  );
  t.equal(Buffer.concat(err).toString(), 'wirefold: stdin: i/o error\n', 'then the failure');
});
