/**
 * --jobs on one large SSE log (lib/cli/sse-cut.ts, sse-split.ts): the log
 * cut into parts at response ends, read by worker threads from the middle,
 * gives --jobs 1's stdout bytes, stderr and exit status, in every output
 * mode, with --positions and --strict, on logs of real captures (the
 * corpus, concatenated: every response boundary a possible cut), CRLF line
 * ends and a BOM, mixed dialects, errors in later parts, and a log without
 * terminal events (not cut). The part sizes are made small so that these
 * logs of a few hundred KiB are cut in many places.
 */
import t from 'tap';
import type { Test } from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { corpusFiles } from '../helpers/corpus.js';
import { runCli } from '../helpers/cli.js';
import { countFrames, cutIn, findCut, planSseRanges, sseCutSizes } from '../../lib/cli/sse-cut.js';
import { lastSplitStats } from '../../lib/cli/sse-split.js';
import { createSseFramer } from '../../lib/framing/sse.js';
import type { Frame } from '../../lib/events.js';

// every run starts two worker threads (loading the library through tsx): slow on a loaded host
t.setTimeout(600_000);

const dir = mkdtempSync(join(tmpdir(), 'wirefold-sse-split-'));

/** The corpus's SSE captures of `dirs`, one after another (each ended by a blank line), as one log. */
function logOf(dirs: string[], pick: (name: string) => boolean = () => true): Buffer {
  const parts: Buffer[] = [];
  for (const f of corpusFiles(dirs)) {
    if (!f.name.endsWith('.sse') || !pick(f.name)) continue;
    let b = f.bytes;
    // a capture that does not end its last event would run into the next one
    while (!b.subarray(-2).equals(Buffer.from('\n\n'))) b = Buffer.concat([b, Buffer.from('\n')]);
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** `times` copies of `log`. */
function repeat(log: Buffer, times: number): Buffer {
  return Buffer.concat(Array.from({ length: times }, () => log));
}

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const anthropic = logOf(['anthropic-messages']);
const chat = logOf(['openai-chat']);
const responses = logOf(['openai-responses']);
const interactions = logOf(['gemini-interactions']);
const xai = logOf(['xai-chat', 'xai-responses']);
const mixed = Buffer.concat([anthropic, chat, responses, anthropic, xai, chat]);
const crlf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(mixed.toString('latin1').replace(/\n/g, '\r\n'), 'latin1')]);

/** The Anthropic log twice, with a payload that is not JSON and a response cut off (then another) in its second half. */
function withErrors(): Buffer {
  const text = repeat(anthropic, 2).toString('utf8');
  const half = Math.floor(text.length / 2);
  const delta = text.indexOf('event: content_block_delta\n', half);
  const broken = text.slice(0, delta) + 'event: content_block_delta\ndata: {not json\n\n' + text.slice(delta);
  const later = broken.indexOf('event: message_stop\n', Math.floor(broken.length * 0.75));
  // the response's end (its message_delta and message_stop) never comes: the next message_start follows
  const delta2 = broken.lastIndexOf('event: message_delta\n', later);
  const next = broken.indexOf('event: message_start\n', later);
  return Buffer.from(broken.slice(0, delta2) + broken.slice(next));
}

const logs = {
  anthropic: file('anthropic.sse', repeat(anthropic, 2)),
  chat: file('chat.sse', repeat(chat, 3)),
  responses: file('responses.sse', repeat(responses, 2)),
  interactions: file('interactions.sse', repeat(interactions, 2)),
  xai: file('xai.sse', repeat(xai, 3)),
  mixed: file('mixed.sse', mixed),
  crlf: file('crlf.sse', crlf),
  errors: file('errors.sse', withErrors()),
  gemini: file('gemini.sse', repeat(logOf(['gemini-sse']), 2)),
};

function terminal(f: Frame): boolean {
  return f.data === '[DONE]' || ['message_stop', 'response.completed', 'response.failed', 'response.incomplete'].includes(f.event);
}

/** bytes[0, at) ends with a blank line (its line end, after another line end). */
function endsWithBlankLine(bytes: Buffer, at: number): boolean {
  let e = at;
  if (bytes[e - 1] === 0x0a && bytes[e - 2] === 0x0d) e -= 2;
  else if (bytes[e - 1] === 0x0a || bytes[e - 1] === 0x0d) e -= 1;
  else return false;
  return bytes[e - 1] === 0x0a || bytes[e - 1] === 0x0d;
}

/** The framer's frames of `bytes`, with positions. */
function frames(bytes: Buffer): Frame[] {
  const framer = createSseFramer({ positions: true, maxFrameBytes: 64 * 1024 * 1024 });
  const out: Frame[] = [];
  framer.push(bytes, (f) => out.push(f));
  framer.end((f) => out.push(f));
  return out;
}

t.test('s(b) is the end of an event holding a terminal line, the start of the next frame, wherever b falls', async (t) => {
  for (const name of ['anthropic', 'chat', 'responses', 'interactions', 'crlf'] as const) {
    const path = logs[name];
    const handle = await open(path, 'r');
    const bytes = (await handle.readFile()) as Buffer;
    const all = frames(bytes);
    const starts = all.map((f) => f.at!.offset);
    /** The index of the first frame at or after `offset`. */
    const firstFrom = (offset: number): number => {
      let lo = 0;
      let hi = starts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid]! < offset) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    let cuts = 0;
    let bad = 0;
    // every 53rd byte: inside lines, at line ends, between a CR and its LF
    for (let b = 1; b < bytes.length; b += 53) {
      const cut = await findCut(handle, b, bytes.length, 32 * 1024);
      if (cut === null) continue;
      cuts++;
      const end = firstFrom(cut);
      // the cut is past b, right after a terminal frame, and the first one: no terminal frame wholly after b before it
      if (cut <= b || !terminal(all[end - 1]!)) bad++;
      for (let i = firstFrom(b); i < end - 1; i++) if (terminal(all[i]!)) bad++;
      if (!endsWithBlankLine(bytes, cut)) bad++;
    }
    await handle.close();
    t.ok(cuts > 10, `${name}: cuts found (${cuts})`);
    t.equal(bad, 0, `${name}: every cut after a terminal event's blank line`);
  }
});

t.test('cutIn: a line only counts from a line start; no cut without the blank line ending the event', (t) => {
  const log = Buffer.from('xdata: [DONE]\n\ndata: {"a":1}\n\ndata: [DONE]\n\n');
  // b = 1: byte 0 ('x') starts a line that b is inside; its `data: [DONE]` is not a line of its own
  t.equal(cutIn(log, 1, true), log.length);
  t.equal(cutIn(Buffer.from('\ndata: [DONE]\n\n'), 1, true), 15);
  t.equal(cutIn(Buffer.from('\ndata: [DONE]\n'), 1, true), null, 'the event never ends');
  t.equal(cutIn(Buffer.from('\ndata: [DONE]\r'), 1, false), null, 'a CR at the window end: an LF may follow');
  t.equal(cutIn(Buffer.from('\rdata: [DONE]\r\r'), 1, true), 15, 'CR line ends');
  const crlf = Buffer.from('\revent: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\nx');
  t.equal(cutIn(crlf, 1, true), crlf.length - 1, 'CRLF line ends: the cut after the blank line');
  t.equal(cutIn(Buffer.from('\r\ndata: [DONE]\n\n'), 1, true), 16, 'b between a CR and its LF: the next line starts after the LF');
  t.equal(cutIn(Buffer.from('\ndata: [DONE] \n\ndata: {}\n\n'), 1, true), null, 'only the whole line: `[DONE] ` is not it');
  t.end();
});

t.test('findCut: no cut when the next terminal event ends past the window, or nowhere', async (t) => {
  const body = 'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'.repeat(100);
  const path = file('late-terminal.sse', Buffer.from(body + 'data: [DONE]\n\n' + body));
  const handle = await open(path, 'r');
  const size = (await handle.stat()).size;
  t.equal(await findCut(handle, 10, size, body.length + 100), body.length + 14, 'within the window: after the [DONE] event');
  t.equal(await findCut(handle, 10, size, body.length - 100), null, 'past the window: none');
  t.equal(await findCut(handle, body.length + 20, size, size), null, 'no terminal after b: none');
  await handle.close();
});

t.test('countFrames gives the framer\'s frame count of every part', async (t) => {
  const saved = { ...sseCutSizes };
  sseCutSizes.rangeBytes = 3000;
  sseCutSizes.minBytes = 0;
  try {
    for (const name of ['anthropic', 'mixed', 'crlf', 'errors'] as const) {
      const path = logs[name];
      const handle = await open(path, 'r');
      const bytes = (await handle.readFile()) as Buffer;
      await handle.close();
      const ranges = (await planSseRanges(path, bytes.length, bytes.subarray(0, 4 << 20)))!;
      t.ok(ranges.length > 10, `${name}: ${ranges.length} parts`);
      const all = frames(bytes);
      let wrong = 0;
      for (const r of ranges) {
        const expected = all.filter((f) => f.at!.offset >= r.start && (r.end === null || f.at!.offset < r.end)).length;
        if ((await countFrames(path, r.start, r.end)) !== expected) wrong++;
      }
      t.equal(wrong, 0, `${name}: every part's count`);
    }
  } finally {
    Object.assign(sseCutSizes, saved);
  }
});

/** Runs `args` on `path` with --jobs 1 and --jobs 2 (parts of `rangeBytes`): the same stdout, stderr and exit status; returns the split's stats. */
async function same(t: Test, path: string, args: string[], rangeBytes: number): Promise<ReturnType<typeof lastSplitStats> | null> {
  const saved = { ...sseCutSizes };
  sseCutSizes.rangeBytes = rangeBytes;
  sseCutSizes.minBytes = 0;
  try {
    const one = await runCli(['--jobs', '1', ...args, path]);
    const before = lastSplitStats();
    const two = await runCli(['--jobs', '2', ...args, path]);
    const after = lastSplitStats();
    const what = `${path.replace(/.*\//, '')} ${args.join(' ') || 'events'} (${rangeBytes} B parts)`;
    t.equal(two.code, one.code, `${what}: exit status`);
    t.ok(two.stdout === one.stdout, `${what}: the same stdout (${one.stdout.length} chars)`);
    t.equal(two.stderr, one.stderr, `${what}: the same stderr`);
    return after === before ? null : after;
  } finally {
    Object.assign(sseCutSizes, saved);
  }
}

t.test('every output mode, every dialect: --jobs 2 gives --jobs 1\'s bytes, the log cut in many places, no part read twice', async (t) => {
  const modes = [[], ['--out', 'final'], ['--out', 'rows'], ['--out', 'text'], ['--positions', '--raw']];
  for (const name of ['anthropic', 'chat', 'responses', 'interactions', 'xai', 'mixed', 'crlf'] as const) {
    // every mode on the logs of several dialects; the others in the two that show most (finals, and events with positions)
    for (const args of name === 'anthropic' || name === 'mixed' || name === 'crlf' ? modes : [modes[1]!, modes[4]!]) {
      const split = await same(t, logs[name], args, name === 'crlf' ? 5000 : 2000);
      t.ok(split !== null && split.parts > 10, `${name} ${args.join(' ')}: cut (${split?.parts} parts)`);
      // a guess read again or the cutting given up would be right, but slow: neither happens on logs of one
      // dialect (xAI's chunks without a grok model read as openai-chat on their own: those parts are read again)
      const rereads = name === 'xai' || name === 'mixed' || name === 'crlf';
      t.same(split && { reread: split.reread > 0, rest: split.rest }, { reread: rereads, rest: false }, `${name} ${args.join(' ')}: each part read once`);
    }
  }
});

t.test('errors in later parts: their frame numbers, byte offsets and stderr lines as --jobs 1 gives them', async (t) => {
  for (const args of [[], ['--out', 'final'], ['--out', 'text'], ['--positions'], ['--strict'], ['--strict', '--out', 'final']]) {
    const split = await same(t, logs.errors, args, 1500);
    t.ok(split !== null && split.parts > 10, `${args.join(' ')}: cut`);
  }
  const r = await runCli(['--jobs', '1', logs.errors]);
  t.match(r.stdout, /"code":"invalid_json","message":"frame [1-9]\d+: payload is not valid JSON/, 'the fixture has its error in a later part');
});

t.test('a log without terminal events (Gemini SSE) is not cut, and reads the same', async (t) => {
  const split = await same(t, logs.gemini, ['--out', 'final'], 2000);
  t.equal(split, null, 'read whole (no pool)');
});

t.test('a wrong guess is read again from the real start: a log whose dialect needs the previous responses (xAI after catch-all chunks)', async (t) => {
  // xAI chat chunks that name no grok model read as openai-chat on their own; after xAI ones they are xai-chat
  const xaiChat = logOf(['xai-chat']);
  const path = file('xai-then-plain.sse', Buffer.concat([xaiChat, Buffer.from(chat.toString().replace(/"model":"[^"]*"/g, '"model":"m"')), xaiChat]));
  for (const args of [['--out', 'final'], []]) {
    const split = await same(t, path, args, 1000);
    t.ok(split !== null && split.parts > 3, 'cut');
  }
});

t.test('a terminal line that does not end its response: the cutting ends there, the rest of the log is read whole', async (t) => {
  // an Anthropic response with a field line naming a Responses terminal event (its payload a ping): not the response's end
  const text = anthropic.toString('utf8');
  const third = text.indexOf('event: content_block_delta\n', Math.floor(text.length / 3));
  const log = text.slice(0, third) + 'event: response.completed\ndata: {"type":"ping"}\n\n' + text.slice(third);
  const path = file('false-terminal.sse', Buffer.from(log));
  for (const args of [['--out', 'final'], ['--positions']]) {
    const split = await same(t, path, args, 1000);
    t.ok(split !== null && split.rest, `${args.join(' ')}: the rest read in one piece`);
  }
});

t.test('a given dialect: the right one is cut; a wrong one (no response ever ends) stops the cutting, its mismatch told once', async (t) => {
  const split = await same(t, logs.anthropic, ['--dialect', 'anthropic-messages', '--out', 'final'], 2000);
  t.ok(split !== null && split.parts > 10 && split.reread === 0 && !split.rest, 'the right dialect: cut, each part read once');
  // read as OpenAI Chat, an Anthropic response never ends (no [DONE]): the first part shows it, the rest is read whole
  const wrong = await same(t, logs.anthropic, ['--dialect', 'openai-chat', '--out', 'final'], 2000);
  t.ok(wrong !== null && wrong.rest, 'the wrong one: the cutting stops');
  // the fixture: --jobs 1 reports the mismatch once (the parts after the first must not report it again)
  const r = await runCli(['--jobs', '1', '--dialect', 'openai-chat', '--out', 'final', logs.anthropic]);
  t.equal(r.stdout.match(/dialect_mismatch/g)?.length, 1, 'one dialect_mismatch in the whole log');
});

t.test('--progress on a log cut into parts: a bar that moves as the parts are written, erased at the end; diagnostics at column 0', async (t) => {
  const saved = { ...sseCutSizes };
  sseCutSizes.rangeBytes = 2000;
  sseCutSizes.minBytes = 0;
  try {
    for (const name of ['anthropic', 'errors'] as const) {
      // (--out text tells the errors on stderr)
      const one = await runCli(['--jobs', '1', '--out', 'text', logs[name]]);
      const two = await runCli(['--jobs', '2', '--progress', '--out', 'text', logs[name]]);
      if (name === 'errors') t.match(one.stderr, /invalid_json/, 'the errors log has diagnostics');
      t.ok(two.stdout === one.stdout, `${name}: the same stdout`);
      t.equal(two.code, one.code, `${name}: the same exit status`);
      t.match(two.stderr, new RegExp(`\\r${name}\\.sse \\[[#.]+\\] +\\d+% `), `${name}: the bar is drawn`);
      t.ok(two.stderr.endsWith('\r\x1b[K'), `${name}: and erased at the end`);
      // without the bar's drawings, stderr is --jobs 1's: each diagnostic on a line of its own
      t.equal(two.stderr.replace(/\r[^\r\n]*\x1b\[K/g, ''), one.stderr, `${name}: the diagnostics as --jobs 1 writes them`);
      t.notMatch(two.stderr, /(?<!^|\n|\r\x1b\[K)wirefold: /, `${name}: each at a line start or after the bar is erased`);
    }
  } finally {
    Object.assign(sseCutSizes, saved);
  }
});

t.test('a worker lost on a part (out of memory) ends the run there: the parts before it written, the log named once, exit 70', async (t) => {
  // one response whose text (32 MB) does not fit a 16 MiB worker heap, between two logs of real captures
  const delta = JSON.stringify('x'.repeat(65536));
  const huge = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    ...Array.from({ length: 500 }, () => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${delta}}}\n\n`),
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join('');
  const before = file('before-huge.sse', repeat(anthropic, 2));
  const log = file('with-huge.sse', Buffer.concat([repeat(anthropic, 2), Buffer.from(huge), anthropic]));
  const one = await runCli(['--jobs', '1', '--out', 'final', before]);
  // (in a process of its own: a worker out of memory would end this one)
  const helper = fileURLToPath(new URL('../helpers/split-cli.mjs', import.meta.url));
  const two = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [helper, '2000', '--jobs', '2', '--out', 'final', log],
      { env: { ...process.env, WIREFOLD_WORKER_HEAP_MB: '16' }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
    );
  });
  t.equal(two.code, 70, 'exit 70');
  t.match(two.stderr, new RegExp(`^wirefold: ${log.replace(/[.]/g, '\\.')}: internal error: .*memory.*\\n$`), 'the log named, once');
  t.ok(two.stdout === one.stdout, `the parts before it written, in order (${one.stdout.length} chars), nothing after`);
});
