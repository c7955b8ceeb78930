/**
 * SSE event templates (lib/fast/event-template.ts): whole events taken
 * from the chunk's bytes must give what the ordinary path gives, at every chunk
 * boundary, positions on and off, whatever the bytes around and inside them: invalid UTF-8, non-ASCII
 * text and fields, other line endings, `id:` lines, comments, limits, a
 * Buffer the caller refills. And they must really be taken.
 */
import t, { type Test } from 'tap';
import { FIXTURE_DIALECTS, generateToBuffer, wirefoldOptions } from '../../benchmarks/generate.js';
import { chunkings, fixedChunks } from '../helpers/chunks.js';
import { run, type Config } from '../helpers/fast-path.js';
import { MAX_EVENT_CHUNK } from '../../lib/fast/event-template.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';

/**
 * Fast path on = off for events and finals at every chunking of `bytes`, and
 * the separate stages (sseFramer → decoder → normalizer, where the framer
 * hands matched events on) = the fused stage at a sample of them; one
 * assertion per comparison, naming the first chunking that differs.
 */
async function sameEverywhere(t: Test, name: string, bytes: Buffer, config: Config, stages = true): Promise<void> {
  for (const output of ['events', 'final'] as const) {
    let differs: string | null = null;
    for (const { name: chunking, chunks } of chunkings(bytes)) {
      for (const positions of output === 'events' ? [false, true] : [false]) {
        if (JSON.stringify(run(chunks, config, output, positions, true)) !== JSON.stringify(run(chunks, config, output, positions, false))) {
          differs ??= `${chunking}${positions ? ' (positions)' : ''}`;
        }
      }
      if (differs !== null) break;
    }
    t.equal(differs, null, `${name}: ${output} with the fast path = without, at every chunking (events: positions on and off)`);
  }
  // (a fatal error ends stream.pipeline itself, events in flight included: no separate-stage comparison there)
  if (!stages) return;
  let differs: string | null = null;
  let i = 0;
  for (const { name: chunking, chunks } of chunkings(bytes)) {
    if (i++ % 10 !== 0) continue;
    if (JSON.stringify(await separate(chunks, config)) !== JSON.stringify(run(chunks, config, 'events', false, false))) {
      differs = chunking;
      break;
    }
  }
  t.equal(differs, null, `${name}: separate stages = fused, at every tenth chunking`);
}

/** Events of sseFramer → decoder → normalizer in stream.pipeline, a fatal error kept as a value (as `run` does). */
async function separate(chunks: Buffer[], config: Config): Promise<unknown[]> {
  const out: unknown[] = [];
  const framerOptions = config.maxFrameBytes === undefined ? {} : { maxFrameBytes: config.maxFrameBytes };
  try {
    await pipeline(Readable.from(chunks), sseFramer(framerOptions), decoder(), normalizer(config.dialect === undefined ? {} : { dialect: config.dialect }), async (src: AsyncIterable<unknown>) => {
      for await (const ev of src) out.push(ev);
    });
  } catch (err) {
    out.push({ thrown: (err as Error).name, message: (err as Error).message });
  }
  return out;
}

/** Counts the event-template matches (sticky regex execs that matched) during `fn`. */
function eventMatches(fn: () => void): number {
  const exec = RegExp.prototype.exec;
  let n = 0;
  RegExp.prototype.exec = function (this: RegExp, s: string) {
    const m = exec.call(this, s);
    if (this.sticky && m !== null) n++;
    return m;
  };
  try {
    fn();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return n;
}

interface Layout {
  /** Line end. */
  eol?: string;
  /** Line end of event i, when they differ from event to event. */
  eolOf?: (i: number) => string;
  /** Text after `data:` before the payload. */
  lead?: string;
  /** Lines put before the data line of event i (e.g. an `id:` line), or none. */
  extra?: (i: number) => string[];
}

/** An Anthropic message whose text arrives as `deltas`, laid out as `layout` says. */
function anthropic(deltas: string[], layout: Layout = {}): Buffer {
  const eol = layout.eol ?? '\n';
  const lead = layout.lead ?? ' ';
  const payloads = [
    '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    ...deltas.map((d) => `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(d)}}}`),
    '{"type":"content_block_stop","index":0}',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
    '{"type":"message_stop"}',
  ];
  const name = (p: string): string => (JSON.parse(p) as { type: string }).type;
  const events = payloads.map((p, i) => {
    const end = layout.eolOf?.(i) ?? eol;
    return [`event: ${name(p)}`, ...(layout.extra?.(i) ?? []), `data:${lead}${p}`, ''].join(end) + end;
  });
  return Buffer.from(events.join(''));
}

const WORDS = ['Hello', ' world', ', caf\u00e9', ' \u6771\u4eac', ' \ud83d\ude42', ' "quoted"\n', ' tab\there', ' plain ascii words'];

t.test('whole events are taken from the bytes (generated fixtures)', (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const options = wirefoldOptions(dialect);
    if (options.framing !== 'sse') continue;
    const { data, stats } = generateToBuffer({ dialect, shape: 'single', size: 100_000, seed: 3 });
    const n = eventMatches(() => run([data], options, 'final', false, true));
    t.ok(n > stats.frames * 0.5, `${dialect}: ${n} of ${stats.frames} events taken whole`);
    t.ok(eventMatches(() => run([data], options, 'events', true, true)) > stats.frames * 0.5, `${dialect}: with positions on too`);
  }
  t.end();
});

t.test('Anthropic text deltas as whole events: same as the ordinary path', async (t) => {
  const config: Config = { dialect: 'anthropic-messages' };
  const n = eventMatches(() => run([anthropic(WORDS)], config, 'events', false, true));
  t.ok(n >= WORDS.length - 3, `${n} deltas taken whole`);
  await sameEverywhere(t, 'ASCII, Latin-1, CJK, emoji, escapes', anthropic(WORDS), config);
  await sameEverywhere(t, 'CRLF', anthropic(WORDS, { eol: '\r\n' }), config);
  await sameEverywhere(t, 'CR', anthropic(WORDS, { eol: '\r' }), config);
  await sameEverywhere(t, 'no space after data:', anthropic(WORDS, { lead: '' }), config);
  await sameEverywhere(t, 'two spaces after data:', anthropic(WORDS, { lead: '  ' }), config);
  await sameEverywhere(t, 'id lines on some events', anthropic(WORDS, { extra: (i) => (i % 3 === 0 ? [`id: ${i}`] : []) }), config);
  await sameEverywhere(t, 'comments and retry lines', anthropic(WORDS, { extra: (i) => (i % 2 === 0 ? [': keep-alive'] : ['retry: 10']) }), config);
  const long = anthropic(WORDS, { extra: () => [`: ${'x'.repeat(2000)}`] });
  await sameEverywhere(t, 'a 2,000-byte comment in every event', long, config);
  t.equal(eventMatches(() => run([long], config, 'events', false, true)), 0, 'no event template for a layout with more than 1 KiB around the payload');
  await sameEverywhere(t, 'an event with two data lines', anthropic(WORDS, { extra: (i) => (i === 6 ? ['data: {"type":"ping"}'] : []) }), config);
});

t.test('text dense in non-ASCII: chunks read through the UTF-8 view give what the ordinary path gives', async (t) => {
  const config: Config = { dialect: 'anthropic-messages' };
  // most deltas non-ASCII (so later chunks are decoded whole), and every fourth event
  // made ordinary by an id line while it carries 2-, 3- and 4-byte characters
  const DENSE = ['\u043f\u043e\u0442\u043e\u043a', ' caf\u00e9 ', ' \ud83d\ude42\ud83d\ude80', '\u6771\u4eac\u90fd', ' \u00fc\u00df \u2014 "q"\n', ' plain'];
  const deltas = Array.from({ length: 40 }, (_, i) => DENSE[i % DENSE.length]! + i);
  const ordinary = (i: number): boolean => i >= 2 && i < deltas.length + 2 && i % 4 === 0;
  const bytes = anthropic(deltas, { extra: (i) => (ordinary(i) ? [`id: ${i}`] : []) });
  await sameEverywhere(t, 'dense non-ASCII with ordinary events between', bytes, config);
  await sameEverywhere(t, 'the same with CRLF', anthropic(deltas, { eol: '\r\n', extra: (i) => (ordinary(i) ? [`id: ${i}`] : []) }), config);
  // the second chunk follows a chunk of mostly non-ASCII events: every delta event in it
  // that is not ordinary is taken whole, those after an ordinary one included
  const split = bytes.indexOf('event: content_block_delta', bytes.length >> 2);
  const second = bytes.subarray(split).toString();
  const inSecond = second.split('\n\n').filter((e) => e.includes('"text_delta"'));
  const expected = inSecond.filter((e) => !e.includes('\nid: ')).length;
  const first = eventMatches(() => run([bytes.subarray(0, split)], config, 'events', false, true));
  const both = eventMatches(() => run([bytes.subarray(0, split), bytes.subarray(split)], config, 'events', false, true));
  t.ok(expected > 20, `${expected} events to take in the second chunk`);
  t.equal(both - first, expected, 'every such event of the second chunk taken whole');
  // the same with the ordinary events' text ASCII (their bytes are mapped to text offsets in one native check)
  const asciiDeltas = deltas.map((d, i) => (ordinary(i + 2) ? ` plain ascii text of an ordinary event, number ${i}` : d));
  const asciiBytes = anthropic(asciiDeltas, { extra: (i) => (ordinary(i) ? [`id: ${i}`] : []) });
  await sameEverywhere(t, 'dense non-ASCII with ASCII ordinary events between', asciiBytes, config);
  const asciiSplit = asciiBytes.indexOf('event: content_block_delta', asciiBytes.length >> 2);
  const asciiSecond = asciiBytes.subarray(asciiSplit).toString().split('\n\n').filter((e) => e.includes('"text_delta"'));
  const asciiExpected = asciiSecond.filter((e) => !e.includes('\nid: ')).length;
  const asciiFirst = eventMatches(() => run([asciiBytes.subarray(0, asciiSplit)], config, 'events', false, true));
  const asciiBoth = eventMatches(() => run([asciiBytes.subarray(0, asciiSplit), asciiBytes.subarray(asciiSplit)], config, 'events', false, true));
  t.equal(asciiBoth - asciiFirst, asciiExpected, `ASCII ordinary events between: all ${asciiExpected} of the second chunk taken whole`);
  // in that view an ignored string may hold characters above U+00FF (the line form keeps out only U+0080-U+00FF)
  const chat = (model: string, content: string): string =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}\n\n`;
  const body = [chat('gpt', ''), ...deltas.map((d, i) => chat(i % 5 === 4 ? 'gpt-\u6771' : i % 7 === 6 ? 'gpt-\u00e9' : 'gpt', d)), 'data: [DONE]\n\n'];
  await sameEverywhere(t, 'dense non-ASCII, non-ASCII in an ignored field', Buffer.from(body.join('')), { dialect: 'openai-chat' });
});

/** Items out after each push and after the end, fused stage in events mode. */
function outAfterPushes(chunks: Buffer[], config: Config, fastPath: boolean): number[] {
  const stage = createOutputStage({ ...config, output: 'events', fastPath } as Parameters<typeof createOutputStage>[0]);
  let n = 0;
  const emit = (): void => {
    n++;
  };
  const counts: number[] = [];
  for (const c of chunks) {
    stage.push(c, emit);
    counts.push(n);
  }
  stage.end(emit);
  counts.push(n);
  return counts;
}

t.test('an event cut by a chunk end and held back: nothing comes out a push later than on the ordinary path', async (t) => {
  // held bytes must hold no blank line: line ends that change from event to event make
  // blank lines (\r\r, \n\r\n, \r\n\n) that are not the learned template's own
  const config: Config = { dialect: 'anthropic-messages' };
  const EOLS = ['\n', '\n', '\r\n', '\n', '\r', '\n', '\n'];
  const layouts: [string, Layout][] = [
    ['line ends mixed from event to event', { eolOf: (i) => EOLS[i % EOLS.length]! }],
    ['LF, and a CR-only event now and then', { eolOf: (i) => (i % 5 === 3 ? '\r' : '\n') }],
    ['CRLF, and an LF event now and then', { eolOf: (i) => (i % 4 === 1 ? '\n' : '\r\n') }],
  ];
  for (const [name, layout] of layouts) {
    const bytes = anthropic(WORDS, layout);
    await sameEverywhere(t, name, bytes, config, false);
    let later: string | null = null;
    for (const { name: chunking, chunks } of chunkings(bytes)) {
      if (JSON.stringify(outAfterPushes(chunks, config, true)) !== JSON.stringify(outAfterPushes(chunks, config, false))) {
        later = chunking;
        break;
      }
    }
    t.equal(later, null, `${name}: as many events out after every push as with the fast path off, at every chunking`);
  }
  const plain = anthropic(WORDS);
  t.ok(eventMatches(() => run(fixedChunks(plain, 200), config, 'events', false, true)) >= WORDS.length - 3, 'and in 200-byte chunks the deltas are still taken whole');
});

t.test('invalid UTF-8 inside a delta taken whole: reported as on the ordinary path', async (t) => {
  const config: Config = { dialect: 'anthropic-messages' };
  const good = anthropic([...WORDS, 'BAD', ...WORDS]);
  const at = good.indexOf('BAD');
  for (const bad of [[0xff], [0xc3], [0xe6, 0x9d], [0xed, 0xa0, 0x80]]) {
    const bytes = Buffer.concat([good.subarray(0, at), Buffer.from(bad), good.subarray(at + 3)]);
    await sameEverywhere(t, `bytes ${Buffer.from(bad).toString('hex')}`, bytes, config);
    const events = run([bytes], config, 'events', false, true) as { type: string; code?: string }[];
    t.ok(events.some((e) => e.type === 'error' && e.code === 'invalid_utf8'), 'invalid_utf8 reported');
  }
});

t.test('non-ASCII outside the captured text (OpenAI chat model name): same as the ordinary path', async (t) => {
  const chunk = (model: string, content: string): string =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}\n\n`;
  const body = [chunk('gpt', ''), ...WORDS.map((w, i) => chunk(i === 4 ? 'gpt-\u00e9' : 'gpt', w)), 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n'];
  await sameEverywhere(t, 'model gpt-é on one chunk', Buffer.from(body.join('')), { dialect: 'openai-chat' });
  const bad = Buffer.from(body.join('').replace('gpt-\u00e9', 'gpt-\u00ff'), 'latin1'); // a lone 0xFF byte in a field the handler ignores
  await sameEverywhere(t, 'invalid UTF-8 in the model name', bad, { dialect: 'openai-chat' });
});

t.test('limits on events taken whole: same errors as the ordinary path', async (t) => {
  const long = anthropic([...WORDS, 'x'.repeat(300), ...WORDS]);
  await sameEverywhere(t, 'maxFrameBytes below the long delta', long, { dialect: 'anthropic-messages', maxFrameBytes: 200 }, false);
  await sameEverywhere(t, 'maxTextBytes tripped by a delta taken whole', long, { dialect: 'anthropic-messages', maxTextBytes: 100 });
});

/** Pushes each piece of length `size` by copying it into the same Buffer object (the way a reader that reuses its buffer does), others as they are. */
function runRefilling(pieces: Buffer[], size: number): unknown[] {
  const stage = createOutputStage({ dialect: 'anthropic-messages', output: 'events' });
  const out: unknown[] = [];
  const emit = (x: unknown): void => {
    out.push(x);
  };
  const shared = Buffer.alloc(size);
  for (const p of pieces) {
    if (p.length === size) {
      p.copy(shared);
      stage.push(shared, emit);
    } else stage.push(p, emit);
  }
  stage.end(emit);
  return out;
}

t.test('a caller that refills one Buffer for every chunk', (t) => {
  // deltas of one length, one event per chunk: a stale latin1 view of the Buffer would still match, with the previous text
  const deltas = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i).repeat(8));
  const bytes = anthropic(deltas);
  const pieces = bytes.toString('latin1').split(/(?<=\n\n)/).map((e) => Buffer.from(e, 'latin1'));
  const size = pieces[3]!.length;
  t.ok(pieces.filter((p) => p.length === size).length >= deltas.length, 'the deltas are chunks of one size');
  t.strictSame(runRefilling(pieces, size), run(pieces, { dialect: 'anthropic-messages' }, 'events', false, false), 'one event per push through one Buffer');
  t.end();
});

t.test('a chunk larger than MAX_EVENT_CHUNK (a whole log in one Buffer) is read the ordinary way, with the same result', (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'log', size: MAX_EVENT_CHUNK + 200_000, seed: 13 });
  t.ok(data.length > MAX_EVENT_CHUNK, `${data.length} bytes in one chunk`);
  const config: Config = { dialect: 'anthropic-messages' };
  let fast: unknown[] = [];
  const n = eventMatches(() => {
    fast = run([data], config, 'final', false, true);
  });
  // (a learned template is checked once against its own block: one match per layout)
  t.ok(n <= 8, `${n} event-template matches in one big chunk: learning checks only`);
  const chunked = eventMatches(() => run(fixedChunks(data, 65536), config, 'final', false, true));
  t.ok(chunked > 1000, `${chunked} in 64 KiB chunks`);
  t.strictSame(fast, run([data], config, 'final', false, false), 'same finals as with the fast path off');
  t.end();
});

/** A Gemini Interactions response whose text (step 1) and thought summary (step 0) arrive as JSON string bodies written as they are. */
function interactions(thought: string[], text: string[]): Buffer {
  const ev = (type: string, payload: string): string => `event: ${type}\ndata: ${payload}\n\n`;
  const delta = (index: number, d: string): string => ev('step.delta', `{"index":${index},"delta":${d},"event_type":"step.delta"}`);
  return Buffer.from(
    [
      ev('interaction.created', '{"interaction":{"id":"v1_a","status":"in_progress","object":"interaction","model":"gemini-2.5-flash"},"event_type":"interaction.created"}'),
      ev('step.start', '{"index":0,"step":{"type":"thought"},"event_type":"step.start"}'),
      ...thought.map((b) => delta(0, `{"type":"thought_summary","content":{"text":"${b}"}}`)),
      ev('step.stop', '{"index":0,"event_type":"step.stop"}'),
      ev('step.start', '{"index":1,"step":{"type":"model_output"},"event_type":"step.start"}'),
      ...text.map((b) => delta(1, `{"text":"${b}","type":"text"}`)),
      ev('step.stop', '{"index":1,"event_type":"step.stop"}'),
      ev('interaction.completed', '{"interaction":{"id":"v1_a","status":"completed","usage":{"total_tokens":9}},"event_type":"interaction.completed"}'),
      'data: [DONE]\n\n',
    ].join(''),
  );
}

/** Calls of TextBlock#writeRaw (text the final accumulator took as wire bytes) during `fn`. */
async function rawWrites(fn: () => void): Promise<number> {
  const { TextBlock } = await import('../../lib/accumulate/text.js');
  const write = TextBlock.prototype.writeRaw;
  let n = 0;
  TextBlock.prototype.writeRaw = function (this: InstanceType<typeof TextBlock>, body: string) {
    n++;
    return write.call(this, body);
  };
  try {
    fn();
  } finally {
    TextBlock.prototype.writeRaw = write;
  }
  return n;
}

t.test('final mode takes template text as wire bytes: every escape, split surrogate pairs, non-ASCII, invalid UTF-8', async (t) => {
  const config: Config = { dialect: 'gemini-interactions' };
  // every JSON escape, \u escapes of 1-, 2- and 3-byte characters in either case, a surrogate pair
  // in one delta and one cut between two deltas, raw 2-, 3- and 4-byte characters
  const bodies = [
    'Hello \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t',
    ' caf\\u00e9 \\u00C9 \\u0041\\u007f \\u20AC \\u6771\\u4eac',
    ' pair \\ud83d\\ude42 then cut \\uD83D',
    '\\uDE80 after the cut',
    ' raw caf\u00e9 \u6771\u4eac \ud83d\ude42 \u043f\u043e\u0442\u043e\u043a',
    ' plain ascii text',
  ];
  const many = Array.from({ length: 60 }, (_, i) => bodies[i % bodies.length]! + ` ${i}`);
  const bytes = interactions(many.slice(0, 10), many);
  const texts = many.map((b) => JSON.parse(`"${b}"`) as string);
  const finals = run([bytes], config, 'final', false, true) as { text: string; reasoning: string }[];
  t.equal(finals[0]!.text, texts.join(''), 'the text is every delta decoded, in order');
  t.equal(finals[0]!.reasoning, texts.slice(0, 10).join(''), 'and the thought summary');
  const taken = await rawWrites(() => run([bytes], config, 'final', false, true));
  t.ok(taken >= 60, `${taken} deltas taken as wire bytes`);
  t.equal(await rawWrites(() => run([bytes], config, 'events', false, true)), 0, 'events mode decodes every delta');
  await sameEverywhere(t, 'Interactions, escapes and non-ASCII', bytes, config);
  // invalid UTF-8 in one delta: that chunk is checked capture by capture, as before
  const at = bytes.indexOf('plain ascii text 5');
  for (const bad of [[0xff], [0xe6, 0x9d], [0xed, 0xa0, 0x80]]) {
    const broken = Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
    await sameEverywhere(t, `Interactions, bytes ${Buffer.from(bad).toString('hex')} in a delta`, broken, config);
    const events = run([broken], config, 'final', false, true) as { errors: { code: string }[] }[];
    t.ok(events[0]!.errors.some((e) => e.code === 'invalid_utf8'), 'invalid_utf8 in the final');
  }
  await sameEverywhere(t, 'Anthropic, the same texts', anthropic(texts), { dialect: 'anthropic-messages' });
  // every SSE dialect's template text goes that way
  for (const dialect of FIXTURE_DIALECTS) {
    const options = wirefoldOptions(dialect);
    if (options.framing !== 'sse') continue;
    const { data, stats } = generateToBuffer({ dialect, shape: 'single', size: 100_000, seed: 4 });
    const n = await rawWrites(() => run([data], options, 'final', false, true));
    t.ok(n > stats.textDeltas * 0.5, `${dialect}: ${n} of ${stats.textDeltas} text deltas taken as wire bytes`);
  }
});
