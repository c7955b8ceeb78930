/**
 * createStream({ to }) writes bytes: where every source is encoded (a named source whose wire is not the
 * target's, or passThrough: false), the encoder writes into 64 KiB blocks handed on per input chunk and the Responses
 * target copies each part's kept text instead of encoding it again (lib/encode/byte-out.ts). The bytes
 * and the loss reports must be those of the string-writing stage (createOutputStage, the CLI's and the
 * web's), for every corpus capture and fixture, into every target, at several chunkings.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ByteOut } from '../../lib/encode/byte-out.js';
import type { LossReport, TargetName } from '../../lib/encode/types.js';
import type { DialectName, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage, createStream } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { repoRoot } from '../helpers/corpus.js';

// every capture × every target × three chunkings, twice (about 35 s on a loaded 2-core host; more under heavier load)
t.setTimeout(360_000);

const TARGETS: TargetName[] = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini', 'ai-sdk-ui', 'gemini-interactions'];

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) return f === 'LICENSES' ? [] : files(p);
      return /\.(sse|json|jsonl|ndjson|har)$/.test(f) ? [p] : [];
    });
}

interface Options {
  dialect: DialectName;
  to: TargetName;
  passThrough: boolean;
}

function strings(input: Buffer, o: Options, size: number): { out: Buffer; losses: LossReport[] } {
  const losses: LossReport[] = [];
  const stage = createOutputStage({ ...o, onLoss: (r) => losses.push(r) });
  const parts: string[] = [];
  const emit = (s: unknown): void => {
    if (typeof s !== 'string') throw new Error('the string stage emitted something else');
    parts.push(s);
  };
  try {
    for (let i = 0; i < input.length; i += size) stage.push(input.subarray(i, i + size), emit);
    stage.end(emit);
  } catch (err) {
    parts.push(`<${(err as Error).name}>`);
  }
  return { out: Buffer.from(parts.join('')), losses };
}

async function bytes(input: Buffer, o: Options, size: number): Promise<{ out: Buffer; losses: LossReport[]; items: number }> {
  const losses: LossReport[] = [];
  const stream = createStream({ ...o, onLoss: (r) => losses.push(r) });
  const parts: Buffer[] = [];
  stream.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('error', (err) => {
      parts.push(Buffer.from(`<${err.name}>`));
      resolve();
    });
  });
  for (let i = 0; i < input.length; i += size) stream.write(input.subarray(i, i + size));
  stream.end();
  await done;
  return { out: Buffer.concat(parts), losses, items: parts.length };
}

t.test('the same bytes and loss reports as the string stage: every capture and fixture, every target, whole, 64 KiB, 7 bytes', async (t) => {
  const realNow = Date.now;
  Date.now = () => 1_764_700_000_000; // (Chat and Responses chunks carry the time they are written)
  t.teardown(() => {
    Date.now = realNow;
  });
  let compared = 0;
  for (const path of files(join(repoRoot, 'fixtures'))) {
    const input = readFileSync(path);
    const events = runStage(createOutputStage({ output: 'events' }), [input]) as UnifiedEvent[];
    const start = events.find((e) => e.type === 'start' && e.dialect !== undefined);
    if (start?.type !== 'start' || start.dialect === undefined) continue;
    const name = relative(repoRoot, path);
    for (const to of TARGETS) {
      for (const passThrough of start.dialect === to ? [false] : [true, false]) {
        const o: Options = { dialect: start.dialect, to, passThrough };
        for (const size of [input.length, 65536, 7]) {
          const want = strings(input, o, size);
          const got = await bytes(input, o, size);
          if (!got.out.equals(want.out)) t.fail(`${name} → ${to} (passThrough ${passThrough}) at ${size}: other bytes`);
          if (JSON.stringify(got.losses) !== JSON.stringify(want.losses)) t.fail(`${name} → ${to} at ${size}: other loss reports`);
          compared++;
        }
      }
    }
  }
  t.ok(compared > 3000, `${compared} outputs compared`);
});

t.test('an input chunk\'s output handed on as one buffer per block written, in order, none of them empty', async (t) => {
  const input = readFileSync(join(repoRoot, 'fixtures/corpus/anthropic-messages/llm-anthropic--thinking-then-tool-use.sse'));
  const r = await bytes(input, { dialect: 'anthropic-messages', to: 'openai-responses', passThrough: true }, input.length);
  t.equal(r.items, 1, 'a small input in one chunk: one buffer out');
  t.ok(r.out.toString('utf8').includes('event: response.completed'), 'the response written');
  // a long response: the Responses wire writes its text about four times over, in several blocks
  const delta = (text: string): string => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\n`;
  const head =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
  const tail =
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":900}}\n\n' +
    'event: message_stop\ndata: {"type":"message_stop"}\n\n';
  const long = Buffer.from(head + Array.from({ length: 900 }, (_, i) => delta(`word ${i} ünïcode 東京 `.repeat(10))).join('') + tail);
  const whole = await bytes(long, { dialect: 'anthropic-messages', to: 'openai-responses', passThrough: true }, long.length);
  const stream = createStream({ dialect: 'anthropic-messages', to: 'openai-responses', passThrough: true });
  const sizes: number[] = [];
  stream.on('data', (b: Buffer) => sizes.push(b.length));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  stream.end(long);
  await ended;
  t.ok(sizes.length > 4, `${sizes.length} buffers for ${whole.out.length} bytes`);
  t.ok(sizes.every((n) => n > 0 && n <= 64 * 1024), 'each at most a block, none empty');
  t.equal(sizes.reduce((a, b) => a + b, 0), whole.out.length);
  const text = whole.out.toString('utf8');
  t.equal(text.split('event: response.output_text.delta\n').length - 1, 900, 'every delta written');
  t.ok(text.endsWith('\n\n') && text.includes('event: response.completed'), 'the response completed');
});

t.test('ByteOut: kept texts copied in place of their references; a NUL that is no reference written as it is; flushed views stay', (t) => {
  const out = new ByteOut();
  const got: Uint8Array[] = [];
  const emit = (b: Uint8Array): void => {
    got.push(b);
  };
  const kept = out.keep(
    (s) => JSON.stringify(s).slice(1, -1),
    () => null,
  );
  t.equal(kept.add('é"\n'), 'é\\"\\n', 'add returns the JSON characters it kept');
  kept.add('東京');
  out.write(`{"a":"${kept.ref()}","b":"\0x\0","c":"${kept.ref()}"}`);
  out.flush(emit);
  const first = Buffer.from(got[0]!).toString('utf8');
  t.equal(first, '{"a":"é\\"\\n東京","b":"\0x\0","c":"é\\"\\n東京"}');
  // more than a block, then more: the first view is never written again
  const big = 'x'.repeat(200_000) + 'ü';
  out.write(big);
  out.write('tail');
  out.flush(emit);
  t.equal(Buffer.from(got[0]!).toString('utf8'), first, 'the first view is unchanged');
  t.equal(Buffer.from(got[1]!).toString('utf8'), big + 'tail');
  out.flush(emit);
  t.equal(got.length, 2, 'nothing written: nothing handed on');
  out.forget();
  out.write(`"${kept.ref()}"`);
  out.flush(emit);
  t.equal(Buffer.from(got[2]!).toString('utf8'), `"${kept.ref()}"`, 'after forget a reference is text like any other');
  t.end();
});

t.test('ByteOut: kept texts share one arena: a text added to after another grew keeps all its bytes; the next response reuses the room', (t) => {
  const out = new ByteOut();
  const got: string[] = [];
  const emit = (b: Uint8Array): void => {
    got.push(Buffer.from(b).toString('utf8'));
  };
  const chars = (s: string): string => JSON.stringify(s).slice(1, -1);
  const raw = (s: string): string | null => (s.startsWith('raw:') ? s.slice(4) : null);
  const a = out.keep(chars, raw);
  const b = out.keep(chars, raw);
  a.add('one ');
  b.add('ü');
  a.add('two ');
  b.add('raw:\xc3\xa9'); // the latin1 view of é's UTF-8 bytes, copied as those bytes
  a.add('x'.repeat(40_000)); // past the arena's first room
  t.equal(a.text(), 'one two ' + 'x'.repeat(40_000), 'a: its bytes before and after b grew');
  t.equal(b.text(), 'üé');
  out.write(`[${a.ref()}|${b.ref()}]`);
  out.flush(emit);
  t.equal(got[0], `[one two ${'x'.repeat(40_000)}|üé]`);
  out.forget();
  const c = out.keep(chars, raw);
  t.ok(c.empty(), 'a new response: nothing kept');
  c.add('"q"');
  out.write(`<${c.ref()}>`);
  out.flush(emit);
  t.equal(got[1], '<\\"q\\">', 'its text as JSON characters');
  t.end();
});
