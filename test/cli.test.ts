import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { PassThrough, Readable, Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { main, TERMINAL_HINT } from '../lib/cli/main.js';
import { repoRoot } from './helpers/corpus.js';

const run = runCli;

const dir = mkdtempSync(join(tmpdir(), 'wirefold-cli-'));
const sse = join(dir, 'a.sse');
writeFileSync(sse, 'event: x\ndata: {"a":1}\n\ndata: [DONE]\n\n');
const fx = (name: string): string => join(repoRoot, 'fixtures', name);

t.test('--help prints usage and exits 0', async (t) => {
  const r = await run(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /Usage: wirefold/);
  t.match(r.stdout, /--out <mode>/);
});

t.test('--help and doctor --help fit in 80 columns, and name the command wirefold', async (t) => {
  for (const argv of [['--help'], ['-h'], ['doctor', '--help']]) {
    const r = await run(argv);
    t.equal(r.code, 0);
    const long = r.stdout.split('\n').filter((l) => l.length > 80);
    t.same(long, [], `${argv.join(' ')}: no line over 80 columns`);
    t.notMatch(r.stdout, /\t/, 'no tabs');
    t.notMatch(r.stdout, /llmstream/i);
  }
  const help = (await run(['--help'])).stdout;
  t.match(help, /--dialect <name>    auto \| xai-chat \| openai-chat \|/);
  t.match(help, 'xai-realtime', 'every dialect is still listed');
});

t.test('every message on stderr names the command wirefold', async (t) => {
  const overloaded = fx('anthropic-messages/overloaded-error.sse');
  const runs: [string[], string][] = [
    [['--bogus'], ''],
    [['--out', 'nope'], ''],
    [['doctor', '--strict'], ''],
    [[join(dir, 'nope.sse')], ''],
    [['doctor', join(dir, 'nope.sse')], ''],
    [['--strict', overloaded], ''],
    [['--out', 'text', overloaded], ''],
    [['--out', 'frames'], '<html>\n'],
  ];
  for (const [argv, input] of runs) {
    const r = await run(argv, input);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    t.ok(lines.length > 0, argv.join(' '));
    for (const line of lines) t.match(line, /^(wirefold: |Try 'wirefold (doctor )?--help'\.$)/, argv.join(' '));
    t.notMatch(r.stderr, /llmstream/i);
  }
  t.match(TERMINAL_HINT, /^wirefold: .*'wirefold --help'/);
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

t.test('reading a terminal starts with a one-line hint on stderr (not with --quiet, a file, or a pipe)', async (t) => {
  const input = 'data: {"a":1}\n\n';
  const piped = await run(['--out', 'frames'], input);
  for (const argv of [['--out', 'frames'], ['--out', 'frames', '-'], ['--out', 'frames', sse, '-']]) {
    const r = await run(argv, input, false, true);
    t.equal(r.code, 0);
    t.equal(r.stderr, TERMINAL_HINT, argv.join(' '));
    t.match(r.stdout, piped.stdout, 'the input is read as usual');
  }
  t.equal(piped.stderr, '', 'stdin not a terminal: no hint');
  const doctor = await run(['doctor'], input, false, true);
  t.equal(doctor.stderr, TERMINAL_HINT, 'doctor too');
  t.match(doctor.stdout, /1 frame/);
  t.equal((await run(['--quiet', '--out', 'frames'], input, false, true)).stderr, '', '--quiet: no hint');
  t.equal((await run(['--out', 'frames', sse], input, false, true)).stderr, '', 'a file only: stdin is not read, no hint');
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
  t.match(r.stderr, /^wirefold: Unknown option '--bogus'/);
  t.notMatch(r.stderr, /\n\s+at /);
  const bad = await run(['--out', 'nope']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /unknown --out 'nope'/);
});

t.test('an unreadable input among several: the others are read in order, one line names it, exit 2 at the end', async (t) => {
  const b = join(dir, 'b.sse');
  writeFileSync(b, 'event: y\ndata: {"b":2}\n\n');
  const nope = join(dir, 'nope.sse');
  const r = await run(['--out', 'frames', sse, nope, dir, b]);
  t.equal(r.code, 2);
  t.same(
    r.stdout.trim().split('\n').map((l) => JSON.parse(l).data),
    ['{"a":1}', '[DONE]', '{"b":2}'],
    'every readable input, in order',
  );
  t.equal(r.stderr, `wirefold: ${nope}: no such file or directory\nwirefold: ${dir}: is a directory\n`, 'one line each, no stack trace');
  const alone = await run([nope]);
  t.equal(alone.code, 2);
  t.equal(alone.stdout, '');
  t.equal(alone.stderr, `wirefold: ${nope}: no such file or directory\n`);
  const strict = await run(['--strict', nope, fx('anthropic-messages/overloaded-error.sse')]);
  t.equal(strict.code, 2, 'an unreadable input (2) wins over a --strict stop (1)');
  t.match(strict.stderr, /no such file or directory\n.*overloaded_error/);
});

t.test('a fatal framing error in frames mode: frames first, then a one-line message, exit 1', async (t) => {
  const r = await run(['--out', 'frames'], '[{"a":1} junk');
  t.equal(r.code, 1);
  t.equal(r.stdout.trim(), JSON.stringify({ event: 'message', data: '{"a":1}', id: '' }));
  t.match(r.stderr, /^wirefold: stdin: invalid_json_array at byte 9 \(frame 1\): invalid JSON array: expected ',' or '\]', found "j"\n$/);
});

t.test('the bin runs as a real process (built dist)', async (t) => {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'wirefold.js'), '--out', 'frames', sse]);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => chunks.push(b));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0);
  t.equal(Buffer.concat(chunks).toString().split('\n').length, 3);
});

t.test('--out events by default, raw events only with --raw', async (t) => {
  const plain = await run([fx('quickstart/anthropic-tool-use.sse')]);
  const types = plain.stdout.trim().split('\n').map((l) => JSON.parse(l).type as string);
  t.notOk(types.includes('raw'));
  t.equal(types[0], 'start');
  t.equal(types.at(-1), 'done');
  const raw = await run(['--raw', fx('quickstart/anthropic-tool-use.sse')]);
  t.ok(raw.stdout.includes('"type":"raw"'));
});

t.test('--out final: one final per response, in input order, across files', async (t) => {
  const r = await run(['--out', 'final', fx('quickstart/anthropic-tool-use.sse'), fx('openai-chat/text-usage.sse')]);
  t.equal(r.code, 0);
  const finals = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.same(
    finals.map((f) => f.dialect),
    ['anthropic-messages', 'openai-chat'],
  );
  t.equal(finals[0].toolCalls[0].arguments.city, 'Paris');
});

t.test('--strict: the first error event ends the run with exit 1 and a one-line message naming code and place', async (t) => {
  const file = fx('anthropic-messages/overloaded-error.sse');
  const lenient = await run([file]);
  t.equal(lenient.code, 0, 'without --strict errors are in the output');
  t.match(lenient.stdout, /"code":"overloaded_error"/);
  const strict = await run(['--strict', file]);
  t.equal(strict.code, 1);
  t.match(strict.stderr, /^wirefold: .*overloaded-error\.sse: overloaded_error at byte \d+ \(frame \d+\): .+\n$/);
  t.notMatch(strict.stdout, /"at":/, 'positions stay out of the output unless asked for');
});

t.test('--strict and --out text messages state the code, the position and the cause once each', async (t) => {
  const chat = (content: string): string =>
    `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;
  const first = chat('a');
  const array = '[{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]} junk';
  const big = Buffer.concat([Buffer.from(first), Buffer.from('data: "'), Buffer.alloc(9 * 1024 * 1024, 0x61)]);
  const cases: [string[], string | Buffer, string][] = [
    [['--strict'], first + 'data: {"id":"c","obj\n\n', `invalid_json at byte ${first.length} (frame 1): payload is not valid JSON (`],
    [['--strict'], Buffer.concat([Buffer.from('data: "a'), Buffer.from([0xff]), Buffer.from('"\n\n')]), 'invalid_utf8 at byte 0 (frame 0): invalid UTF-8 replaced with U+FFFD\n'],
    [['--strict', '--dialect', 'anthropic-messages'], first, 'dialect_mismatch at byte 0 (frame 0): the payloads look like openai-chat, not anthropic-messages as asked'],
    [['--strict'], array, `invalid_json_array at byte 56 (frame 1): invalid JSON array: expected ',' or ']', found "j"\n`],
    [['--strict', '--out', 'text'], array, `invalid_json_array at byte 56 (frame 1): invalid JSON array: expected ',' or ']', found "j"\n`],
    [['--out', 'text', '--positions'], array, `invalid_json_array at byte 56 (frame 1): invalid JSON array: expected ',' or ']', found "j"\n`],
    [['--out', 'frames'], '[{"a":1} junk', `invalid_json_array at byte 9 (frame 1): invalid JSON array: expected ',' or ']', found "j"\n`],
    [['--strict'], big, `frame_too_large at byte ${first.length} (frame 1): frame exceeds maxFrameBytes (8388608 bytes)\n`],
    [['--strict'], 'x\n<html>\n', 'not_a_stream at byte 0 (frame 0): no stream event in 9 bytes of input: the line is not an SSE field ("x")\n'],
  ];
  for (const [argv, input, want] of cases) {
    const r = await run(argv, typeof input === 'string' ? input : [input]);
    t.match(r.stderr, `wirefold: stdin: ${want}`, argv.join(' '));
    const line = r.stderr.trim();
    t.equal(line.split('\n').length, 1, 'one line');
    t.ok((line.match(/\bbyte \d+/g) ?? []).length <= 1 && (line.match(/\bframe \d+/g) ?? []).length <= 1, `position once: ${line}`);
  }
});

t.test('--strict --out frames: an input that is not a stream stops the run with exit 1, as in the other modes', async (t) => {
  const page = '<html>\n';
  const r = await run(['--strict', '--out', 'frames', '-', sse], page);
  t.equal(r.code, 1);
  t.equal(r.stdout, '', 'the run stops: the next input is not read');
  t.equal(r.stderr, 'wirefold: stdin: not_a_stream: no stream event in 7 bytes of input: the line at byte 0 is not an SSE field ("<html>")\n');
  const lenient = await run(['--out', 'frames', '-', sse], page);
  t.equal(lenient.code, 0, 'without --strict: told on stderr, exit 0');
  t.equal(lenient.stdout.trim().split('\n').length, 2, 'and the next input is read');
});

t.test('an input that is not a stream (an HTML error page) is an error event, not silence; --strict exits 1', async (t) => {
  const page = '<html>\r\n<body>502 Bad Gateway</body>\r\n</html>\r\n';
  const lenient = await run([], page);
  t.equal(lenient.code, 0);
  t.same(
    lenient.stdout.trim().split('\n').map((l) => JSON.parse(l).type),
    ['error', 'done'],
  );
  t.match(lenient.stdout, /"code":"not_a_stream".*the line at byte 0 is not an SSE field \(\\"<html>\\"\)/);
  const final = await run(['--out', 'final'], page);
  t.match(JSON.parse(final.stdout), { stopReason: 'error', errors: [{ code: 'not_a_stream' }] });
  const strict = await run(['--strict'], page);
  t.equal(strict.code, 1);
  t.match(strict.stderr, `wirefold: stdin: not_a_stream at byte 0 (frame 0): no stream event in ${page.length} bytes of input`);
});

t.test('--out text: error events go to stderr, one line each, as they come; the text stays on stdout', async (t) => {
  const file = fx('anthropic-messages/overloaded-error.sse');
  const r = await run(['--out', 'text', file]);
  t.equal(r.code, 0, 'lenient: exit 0');
  t.equal(r.stdout, 'Once upon a\n');
  t.equal(r.stderr, `wirefold: ${file}: overloaded_error: Overloaded\n`);
  const page = await run(['--out', 'text'], '<html>502</html>\n');
  t.equal(page.stdout, '\n', 'the failed response ends with its newline');
  t.match(page.stderr, /^wirefold: stdin: not_a_stream: no stream event in 17 bytes of input/);
  t.equal(page.stderr.split('\n').length, 2, 'one line');
  const strict = await run(['--out', 'text', '--strict', file]);
  t.equal(strict.code, 1);
  t.equal(strict.stderr.split('\n').length, 2, '--strict: its own one message, not two');
  const events = await run([file]);
  t.equal(events.stderr, '', 'in the JSON modes errors are in the output, not on stderr');
  const frames = await run(['--out', 'frames'], '<html>502</html>\n');
  t.equal(frames.stdout, '', '--out frames: no frame');
  t.match(frames.stderr, /^wirefold: stdin: not_a_stream: no stream event in 17 bytes of input: the line at byte 0 is not an SSE field/);
});

/**
 * main() with stdout and stderr recording into one log, in the order their
 * writes reach them (as a terminal shows them). stdout finishes each write
 * late (a busy terminal or pipe); `tty` marks both as terminals (one screen).
 */
async function interleaved(argv: string[], stdin: Buffer[], tty: { out: boolean; err: boolean }): Promise<{ code: number; log: string[] }> {
  const log: string[] = [];
  const sink = (tag: string, slow: boolean): Writable => {
    const w = new Writable({
      write(chunk: Buffer, _e, cb) {
        log.push(`${tag}${chunk.toString()}`);
        if (slow) setTimeout(cb, 5);
        else cb();
      },
    });
    return w;
  };
  const stdout = sink('out:', true);
  const stderr = sink('err:', false);
  if (tty.out) (stdout as Writable & { isTTY?: boolean }).isTTY = true;
  if (tty.err) (stderr as Writable & { isTTY?: boolean }).isTTY = true;
  const code = await main(argv, { stdin: Readable.from(stdin), stdout, stderr, stderrIsTTY: tty.err });
  return { code, log };
}

t.test('--out text: a diagnostic comes after the text before it, and on a shared terminal on a line of its own', async (t) => {
  const file = fx('anthropic-messages/overloaded-error.sse');
  const name = `wirefold: ${file}: overloaded_error: Overloaded\n`;
  const shared = await interleaved(['--out', 'text', file], [], { out: true, err: true });
  t.equal(shared.code, 0);
  t.same(shared.log, ['out:Once upon a', `err:\n${name}`, 'out:\n'], 'in stream order; the message starts a new line');
  t.equal(shared.log.join('').replace(/(out|err):/g, ''), `Once upon a\n${name}\n`);
  const apart = await interleaved(['--out', 'text', file], [], { out: false, err: true });
  t.same(apart.log, ['out:Once upon a', `err:${name}`, 'out:\n'], 'stdout elsewhere (a pipe): stderr is already at column 0');
  const toFile = await interleaved(['--out', 'text', file], [], { out: true, err: false });
  t.same(toFile.log, ['out:Once upon a', `err:${name}`, 'out:\n'], 'stderr elsewhere (a file): nothing added to it');

  // --strict: the text read before the error is out before the message
  const delta = (text: string): string =>
    `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}]}\n\n`;
  const chunks = [Buffer.from(delta('Hello')), Buffer.from(delta(' world') + 'data: {"id":"c","obj\n\n')];
  const strict = await interleaved(['--out', 'text', '--strict'], chunks, { out: true, err: true });
  t.equal(strict.code, 1);
  t.equal(strict.log.length, 3);
  t.same(strict.log.slice(0, 2), ['out:Hello', 'out: world']);
  t.match(strict.log[2], /^err:\nwirefold: stdin: invalid_json at byte \d+ \(frame 2\): .*\n$/);
  t.equal(strict.log[2]!.split('\n').length, 3, 'one line, after the newline that ends the text\'s');

  // text that ends its line: nothing added
  const whole = [Buffer.from(delta('Hi') + 'data: [DONE]\n\n'), Buffer.from('data: {"id":"c","obj\n\n')];
  const after = await interleaved(['--out', 'text'], whole, { out: true, err: true });
  t.same(after.log.map((l) => l.slice(0, 14)), ['out:Hi\n', 'err:wirefold: '], 'the text ended its line: no blank line');
});

t.test('a diagnostic erases the progress bar first', async (t) => {
  const file = fx('anthropic-messages/overloaded-error.sse');
  const r = await run(['--progress', '--out', 'text', file]);
  t.match(r.stderr, /\[#+\] .*\r\u001b\[Kwirefold: .*overloaded_error: Overloaded\n/);
});

t.test('--audio-out writes each response\'s audio to its own file', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'wirefold-audio-'));
  const r = await run(['--out', 'final', '--audio-out', out, fx('gemini-live/audio-transcript.json')]);
  t.equal(r.code, 0);
  const finals = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const withAudio = finals.filter((f) => f.audio !== null);
  t.ok(withAudio.length > 0);
  const { readdirSync, statSync } = await import('node:fs');
  const files = readdirSync(out).sort();
  t.equal(files.length, withAudio.length, 'one file per response with audio');
  t.same(
    files.map((f) => statSync(join(out, f)).size),
    withAudio.map((f) => 44 + f.audio.bytes),
    'file sizes equal the decoded byte counts of the finals, after the 44-byte WAV header (test/cli-audio-out.test.ts)',
  );
  t.match(files[0], /^01-audio-transcript\.json-001.*\.wav$/);
});

t.test('--progress draws a bar on stderr; not by default on a non-TTY', async (t) => {
  const file = fx('quickstart/anthropic-tool-use.sse');
  const forced = await run(['--progress', '--out', 'final', file]);
  t.match(forced.stderr, /anthropic-tool-use\.sse \[#+\] 100% .* MB\/s ETA/);
  const quiet = await run(['--out', 'final', file]);
  t.equal(quiet.stderr, '');
});

t.test('--out text streams: text reaches stdout through a pipe before the input ends', async (t) => {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'wirefold.js'), '--out', 'text']);
  const first =
    'data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\n';
  const rest =
    'data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  let out = '';
  const sawHello = new Promise<void>((resolve) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('Hello')) resolve();
    });
  });
  child.stdin.write(first);
  await sawHello; // stdin is still open here: the delta was written as it arrived
  t.equal(out, 'Hello');
  child.stdin.end(rest);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0);
  t.equal(out, 'Hello world\n');
});

t.test('--version and -v print the package version', async (t) => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const r = await run([flag]);
    t.equal(r.code, 0);
    t.equal(r.stdout, `${pkg.version}\n`, flag);
  }
});

/** main() with its own stdin / stdout streams (the helper's are in-memory and never slow or closed). */
async function mainWith(argv: string[], stdin: Readable, stdout: Writable): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  const err: Buffer[] = [];
  stderr.on('data', (b: Buffer) => err.push(b));
  const code = await main(argv, { stdin, stdout, stderr });
  return { code, stderr: Buffer.concat(err).toString() };
}

t.test('a slow stdout: output waits for it (drain) and comes out whole, in order', async (t) => {
  const file = fx('quickstart/anthropic-tool-use.sse');
  for (const out of ['events', 'final', 'text']) {
    const fast = await run(['--out', out, file]);
    const got: Buffer[] = [];
    let writes = 0;
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _enc, cb) {
        writes++;
        got.push(chunk);
        setImmediate(cb);
      },
    });
    const r = await mainWith(['--out', out, file], Readable.from([]), slow);
    t.equal(r.code, 0);
    t.equal(Buffer.concat(got).toString(), fast.stdout, `--out ${out}`);
    t.ok(writes >= 1);
  }
  // 500 chunks through a 16-byte buffer: main ends only once all of it is written
  const event = (i: number): string => `data: {"choices":[{"index":0,"delta":{"content":"part ${i}"}}]}\n\n`;
  const chunks = Array.from({ length: 500 }, (_, i) => Buffer.from(event(i)));
  const fast = await run([], chunks);
  const got: Buffer[] = [];
  const slow = new Writable({ highWaterMark: 16, write: (c: Buffer, _e, cb) => (got.push(c), setImmediate(cb)) });
  t.equal((await mainWith([], Readable.from(chunks), slow)).code, 0);
  t.equal(Buffer.concat(got).toString(), fast.stdout);
});

t.test('stdout closed by its reader: the run stops quietly with exit 0 and reads no further', async (t) => {
  let pulled = 0;
  const endless = new Readable({
    read() {
      pulled++;
      this.push(`data: {"choices":[{"index":0,"delta":{"content":"x${pulled}"}}]}\n\n`);
    },
  });
  const closing = new Writable({
    highWaterMark: 1,
    write(_c, _e, cb) {
      this.destroy(); // as a closed pipe: the pending write never drains
      cb();
    },
  });
  const r = await mainWith(['--out', 'text'], endless, closing);
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  const at = pulled;
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(pulled, at, 'the input is not read after the output closed');
  endless.destroy();
});

t.test('the bin: a reader that stops early (| head -1) ends it with exit 0 and no message', async (t) => {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'wirefold.js'), '--out', 'frames', '-']);
  const errs: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errs.push(b));
  child.stdout.once('data', () => child.stdout.destroy()); // the reader goes away after its first line
  const frame = Buffer.from('data: {"a":1}\n\n'.repeat(4096));
  const feed = (): void => {
    if (child.stdin.writable) child.stdin.write(frame, () => setImmediate(feed));
  };
  child.stdin.on('error', () => {}); // the child may be gone before the last write
  feed();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0);
  t.equal(Buffer.concat(errs).toString(), '');
});

t.test('a source that fails mid-read: what came before is out, then a one-line message and exit 2', async (t) => {
  const failing = (): Readable => {
    let sent = false;
    return new Readable({
      read() {
        if (!sent) {
          sent = true;
          this.push('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n');
        } else this.destroy(Object.assign(new Error('read failed'), { code: 'EIO' }));
      },
    });
  };
  const got: Buffer[] = [];
  const out = new Writable({ write: (c: Buffer, _e, cb) => (got.push(c), cb()) });
  const r = await mainWith(['--out', 'text'], failing(), out);
  t.equal(r.code, 2);
  t.equal(Buffer.concat(got).toString(), 'Hi');
  t.equal(r.stderr, 'wirefold: stdin: i/o error\n');
  const d = await mainWith(['doctor'], failing(), new Writable({ write: (_c, _e, cb) => cb() }));
  t.equal(d.code, 2, 'doctor too');
  t.equal(d.stderr, 'wirefold: stdin: i/o error\n');
});

t.test('--files-out writes each completed generated file, decoded, in stream order; previews are not written', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'wirefold-files-'));
  const dir = mkdtempSync(join(tmpdir(), 'wirefold-files-in-'));
  const png = Buffer.from('\x89PNG\r\n\x1a\n fake image one', 'latin1');
  const jpg = Buffer.from('\xff\xd8\xff fake image two', 'latin1');
  const chunk = (parts: unknown[], finish?: string) =>
    `data: ${JSON.stringify({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish === undefined ? {} : { finishReason: finish }) }],
      modelVersion: 'gemini-2.5-flash-image',
      responseId: 'img-resp-1',
    })}\r\n\r\n`;
  const file = join(dir, 'image.sse');
  writeFileSync(
    file,
    chunk([{ text: 'Here:' }]) +
      chunk([{ inlineData: { mimeType: 'image/png', data: png.toString('base64') } }]) +
      chunk([{ inlineData: { mimeType: 'image/jpeg', data: jpg.toString('base64') } }], 'STOP'),
  );
  const r = await run(['--out', 'final', '--files-out', out, file]);
  t.equal(r.code, 0, r.stderr);
  const final = JSON.parse(r.stdout);
  t.strictSame(
    final.content.filter((b: { type: string }) => b.type === 'file').map((b: { mimeType: string }) => b.mimeType),
    ['image/png', 'image/jpeg'],
  );
  const { readdirSync } = await import('node:fs');
  const files = readdirSync(out).sort();
  t.strictSame(files, ['01-image.sse-001-img-resp-1-01.png', '01-image.sse-001-img-resp-1-02.jpg']);
  t.ok(readFileSync(join(out, files[0]!)).equals(png), 'the decoded bytes');
  t.ok(readFileSync(join(out, files[1]!)).equals(jpg));
  const bad = await run(['--records', '--files-out', out]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--files-out is not an option of --records/);
});

t.test('--to writes the input as another wire; each lossy response is told on stderr (text or json); --strict stops', async (t) => {
  const file = join(repoRoot, 'fixtures', 'corpus', 'openai-responses', 'pydantic-ai--reasoning-summary.sse');
  const r = await run(['--to', 'anthropic-messages', file]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^event: message_start\ndata: \{"type":"message_start"/);
  t.match(r.stdout, /event: message_stop\ndata: \{"type":"message_stop"\}\n\n$/);
  t.match(r.stderr, /^wirefold: .*pydantic-ai--reasoning-summary\.sse: not carried in anthropic-messages \(response resp_[^)]+\): signature ×1 \(a encrypted_content from another provider family\)\n$/);
  const back = JSON.parse((await run(['--out', 'final', '--dialect', 'anthropic-messages', '-'], r.stdout)).stdout) as { text: string; reasoning: string };
  const original = JSON.parse((await run(['--out', 'final', file])).stdout) as { text: string; reasoning: string };
  t.equal(back.text, original.text, 'the text read back');
  t.equal(back.reasoning, original.reasoning, 'the reasoning read back');

  const json = await run(['--to', 'openai-chat', '--loss-report', 'json', file]);
  t.equal(json.code, 0);
  const reports = json.stderr.trim().split('\n').map((l) => JSON.parse(l) as { input: string; type: string; to: string; dropped: { what: string }[] });
  t.equal(reports.length, 1);
  t.equal(reports[0]!.type, 'loss');
  t.equal(reports[0]!.input, file);
  t.strictSame(reports[0]!.dropped.map((d) => d.what).sort(), ['raw', 'reasoning', 'signature']);

  const strict = await run(['--to', 'openai-chat', '--strict', file]);
  t.equal(strict.code, 1);
  t.match(strict.stderr, /lossy_encoding.*openai-chat cannot carry/);

  for (const [args, message] of [
    [['--to', 'openai-chatt', file], /unknown --to 'openai-chatt' \(expected openai-chat, /],
    [['--to', 'openai-chat', '--out', 'final', file], /--to writes the openai-chat wire: it is not an --out mode/],
    [['--loss-report', 'json', file], /--loss-report is an option of --to/],
    [['--to', 'openai-chat', '--loss-report', 'xml', file], /unknown --loss-report 'xml'/],
  ] as const) {
    const bad = await run([...args]);
    t.equal(bad.code, 2, args.join(' '));
    t.match(bad.stderr, message);
  }
});
