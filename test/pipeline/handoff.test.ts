/**
 * decoder() piped straight into normalizer() hands frames on undecoded (so the
 * normalizer can use the raw-text fast path): the events must be exactly those
 * of the eager pair (a PassThrough in between stops the handoff) and of the
 * fused pipeline, and nothing else reading the decoder may see a handed frame.
 */
import t, { type Test } from 'tap';
import { PassThrough, Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { DialectOption, Frame, ProviderEvent, UnifiedEvent } from '../../lib/events.js';
import { autoFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { finalAccumulator } from '../../lib/pipeline/accumulators.js';
import { createDecoderStage, type DecoderStage, type NormalizerStage } from '../../lib/pipeline/handoff.js';
import { MatchedFrame, MatchedRun } from '../../lib/dialects/fast/event-template.js';
import { createSseFramer } from '../../lib/framing/sse.js';
import type { Stage } from '../../lib/stage.js';
import { FIXTURE_DIALECTS, generateToBuffer, wirefoldOptions } from '../../benchmarks/generate.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';

interface Config {
  dialect?: DialectOption;
  positions?: boolean;
}

interface Run {
  events: unknown[];
  /** The decoder's handoff flag when the first event reached the sink. */
  handedOff: boolean | null;
}

async function separate(chunks: Buffer[], config: Config, eager: boolean): Promise<Run> {
  const d = decoder();
  const events: unknown[] = [];
  let handedOff: boolean | null = null;
  const sink = new Writable({
    objectMode: true,
    write(ev: UnifiedEvent, _enc, cb) {
      handedOff ??= (d.stage as DecoderStage).handOff;
      events.push(ev);
      cb();
    },
  });
  const framer = autoFramer({ positions: config.positions ?? false });
  const norm = normalizer(config.dialect === undefined ? {} : { dialect: config.dialect });
  try {
    if (eager) await pipeline(Readable.from(chunks), framer, d, new PassThrough({ objectMode: true }), norm, sink);
    else await pipeline(Readable.from(chunks), framer, d, norm, sink);
  } catch (err) {
    events.push({ thrown: (err as Error).name, message: (err as Error).message });
  }
  return { events, handedOff };
}

function fused(chunks: Buffer[], config: Config): unknown[] {
  const out: unknown[] = [];
  try {
    out.push(...decodeAll(chunks, { ...config, framing: 'auto' }));
  } catch (err) {
    out.push({ thrown: (err as Error).name, message: (err as Error).message });
  }
  return out;
}

async function same(t: Test, name: string, bytes: Buffer, config: Config): Promise<void> {
  const chunkings: [string, Buffer[]][] = [
    ['whole', [bytes]],
    ['random', randomChunks(bytes, 7, 300)],
  ];
  for (const [cname, chunks] of chunkings) {
    const handed = await separate(chunks, config, false);
    const eager = await separate(chunks, config, true);
    const label = `${name} ${JSON.stringify(config)} @${cname}`;
    if (handed.events.length > 0) {
      t.equal(handed.handedOff, true, `${label}: frames handed on`);
      t.equal(eager.handedOff, false, `${label}: eager pair not handed on`);
    }
    t.strictSame(handed.events, eager.events, `${label}: handed = eager`);
    t.strictSame(handed.events, fused(chunks, config), `${label}: handed = fused`);
  }
}

t.test('fixtures: handed-on frames give the eager and the fused events', async (t) => {
  for (const name of ['quickstart/anthropic-tool-use.sse', 'anthropic-messages/overloaded-error.sse']) {
    await same(t, name, fixture(name), {});
    await same(t, name, fixture(name), { positions: true });
  }
});

t.test('corpus: handed-on frames give the eager and the fused events', async (t) => {
  for (const file of corpusFiles()) {
    if (file.name.endsWith('.har') || file.name.endsWith('.md')) continue;
    await same(t, file.name, file.bytes, {});
  }
});

t.test('generated benchmark fixtures (templates in use): handed = eager = fused', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of ['log', 'single'] as const) {
      const { data } = generateToBuffer({ dialect, shape, size: 30_000, seed: 5 });
      await same(t, `${dialect}.${shape}`, data, { dialect: wirefoldOptions(dialect).dialect });
    }
  }
});

/** Events of sseFramer → decoder → normalizer, and how many events the framer handed on matched and the normalizer took whole. */
async function matchedRun(chunks: Buffer[], dialect: DialectOption): Promise<{ events: unknown[]; taken: number }> {
  const norm = normalizer({ dialect });
  const text = (norm.stage as NormalizerStage).normalizer;
  const pushMatched = text.pushMatched.bind(text);
  let taken = 0;
  text.pushMatched = (...args) => {
    const ok = pushMatched(...args);
    if (ok) taken++;
    return ok;
  };
  const events: unknown[] = [];
  await pipeline(Readable.from(chunks), sseFramer(), decoder(), norm, async (src: AsyncIterable<unknown>) => {
    for await (const ev of src) events.push(ev);
  });
  return { events, taken };
}

t.test('the SSE framer hands whole events on, matched by event templates, and the normalizer takes them', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const options = wirefoldOptions(dialect);
    if (options.framing !== 'sse') continue;
    const { data, stats } = generateToBuffer({ dialect, shape: 'single', size: 100_000, seed: 9 });
    // (the framer learns from the normalizer's payload templates, which exist once the first chunk's frames got there)
    const { events, taken } = await matchedRun(randomChunks(data, 3, 4096), options.dialect);
    t.ok(taken > stats.frames * 0.5, `${dialect}: ${taken} of ${stats.frames} events taken whole`);
    t.strictSame(events, fused([data], { dialect: options.dialect }), `${dialect}: same events as the fused stage`);
  }
});

t.test('a log that switches provider (auto): matched events of the old dialect are not taken by the new one', async (t) => {
  const parts = (['anthropic-messages', 'openai-chat', 'openai-responses', 'anthropic-messages'] as const).map((dialect, i) => generateToBuffer({ dialect, shape: 'log', size: 20_000, seed: 11 + i }).data);
  const bytes = Buffer.concat(parts);
  for (const chunks of [[bytes], randomChunks(bytes, 4, 4096)]) {
    const { events } = await matchedRun(chunks, 'auto');
    t.strictSame(events, fused(chunks, { dialect: 'auto' }), 'same events as the fused stage');
  }
});

t.test('an event of the old dialect inside a response of the new one (auto) is not taken by the new handler', async (t) => {
  const anthropic = generateToBuffer({ dialect: 'anthropic-messages', shape: 'log', size: 20_000, seed: 12 }).data;
  const text = anthropic.toString('utf8');
  const delta = /event: content_block_delta\ndata: \{"type":"content_block_delta","index":0,"delta":\{"type":"text_delta","text":"[a-z ]*"\}\}\n\n/.exec(text);
  t.ok(delta !== null, 'a plain Anthropic text delta to repeat');
  const chunk = (delta: string, finish = 'null'): string =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]}\n\n`;
  // the Anthropic log first, so that its event templates are learned before the rest is framed
  const rest = Buffer.from(chunk('{"role":"assistant","content":"Hi"}') + delta![0] + chunk('{}', '"stop"') + 'data: [DONE]\n\n');
  const { events } = await matchedRun([anthropic, rest], 'auto');
  t.strictSame(events, fused([anthropic, rest], { dialect: 'auto' }), 'same events as the fused stage');
});

/**
 * An SSE framer piped into decoder() and normalizer() learns event templates
 * from `learn`; then the framer stage's own items for `rest` (runs of
 * matched events among plain frames).
 */
async function framerItems(learn: Buffer, rest: Buffer, positions: boolean): Promise<{ items: unknown[]; f: ReturnType<typeof sseFramer> }> {
  const f = sseFramer({ positions });
  const n = normalizer();
  f.pipe(decoder()).pipe(n);
  n.resume();
  f.write(learn);
  await new Promise((r) => setTimeout(r, 10));
  const items: unknown[] = [];
  (f.stage as Stage<Buffer, unknown>).push(rest, (item) => items.push(item));
  return { items, f };
}

t.test('matched events reaching a decoder that no longer hands off decode like the frames they stand for', async (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 40_000, seed: 8 });
  const cut = data.indexOf('\n\n', data.length >> 1) + 2;
  const { items, f } = await framerItems(data.subarray(0, cut), data.subarray(cut), false);
  const runs = items.filter((i): i is MatchedRun => i instanceof MatchedRun);
  t.ok(runs.length > 0 && runs.some((r) => r.length > 1), `${runs.length} runs of matched events`);
  // a decoder with no normalizer after it decodes them; the plain framer's frames decode the same
  const viaRuns: ProviderEvent[] = [];
  const d1 = createDecoderStage();
  for (const item of items) d1.push(item as Frame, (pe) => viaRuns.push(pe));
  const plain: ProviderEvent[] = [];
  const d2 = createDecoderStage();
  const framer = createSseFramer();
  framer.push(data.subarray(cut), (frame) => d2.push(frame, (pe) => plain.push(pe)));
  framer.end((frame) => d2.push(frame, (pe) => plain.push(pe)));
  t.strictSame(viaRuns, plain, 'same provider events');
  f.destroy();
});

t.test('a run of matched events gives back the frames the plain framer reads (event, data, last event ID, position)', async (t) => {
  for (const positions of [false, true]) {
    const { data } = generateToBuffer({ dialect: 'gemini-interactions', shape: 'single', size: 40_000, seed: 3 });
    const cut = data.indexOf('\n\n', data.length >> 1) + 2;
    // an event of only an ID line: the events after it, matched whole, carry that last event ID
    const rest = Buffer.concat([Buffer.from('id: evt-7\n\n'), data.subarray(cut)]);
    const { items, f } = await framerItems(data.subarray(0, cut), rest, positions);
    const viaRuns: unknown[] = [];
    for (const item of items) {
      if (!(item instanceof MatchedRun)) viaRuns.push(item);
      else for (let i = 0; i < item.length; i++) viaRuns.push(item.frame(i));
    }
    t.ok(items.some((i) => i instanceof MatchedRun && i.length > 1), `runs of matched events (positions ${positions})`);
    // the plain framer on the same bytes, from the same offset and frame number on
    const plain: Frame[] = [];
    const framer = createSseFramer({ positions });
    framer.push(data.subarray(0, cut), () => {});
    framer.push(rest, (frame) => plain.push(frame));
    // (a Frame's fields: a MatchedFrame also holds where its data lies in the chunk's text)
    const shape = (frames: unknown[]): unknown[] =>
      frames.map((x) => {
        const { id, event, data, at, retry, invalidUtf8At } = x as Frame;
        return { id, event, data, at, retry, invalidUtf8At };
      });
    t.strictSame(shape(viaRuns), shape(plain), `same frames (positions ${positions})`);
    t.ok(plain.some((x) => x.id === 'evt-7'), 'the frames carry the last event ID');
    f.destroy();
  }
});

t.test('a second consumer of the SSE framer sees plain frames', async (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 30_000, seed: 2 });
  const f = sseFramer();
  const seen: unknown[] = [];
  f.on('data', (frame: unknown) => seen.push(frame));
  const { events } = await (async () => {
    const out: unknown[] = [];
    await pipeline(Readable.from([data]), f, decoder(), normalizer(), async (src: AsyncIterable<unknown>) => {
      for await (const ev of src) out.push(ev);
    });
    return { events: out };
  })();
  t.ok(seen.length > 0, 'the extra listener got frames');
  t.ok(seen.every((frame) => !(frame instanceof MatchedFrame) && Object.getPrototypeOf(frame) === Object.prototype), 'all of them plain frame objects');
  t.strictSame(events, fused([data], {}), 'the normalizer still gives every event');
});

t.test('a second consumer of the decoder sees provider events, never a handed frame', async (t) => {
  const bytes = fixture('quickstart/anthropic-tool-use.sse');
  // a listener attached before the pipe: no handoff at all
  const d1 = decoder();
  const seen1: ProviderEvent[] = [];
  d1.on('data', (pe: ProviderEvent) => seen1.push(pe));
  const out1: UnifiedEvent[] = [];
  await pipeline(Readable.from([bytes]), sseFramer(), d1, normalizer(), async (src: AsyncIterable<UnifiedEvent>) => {
    for await (const ev of src) out1.push(ev);
  });
  t.ok(seen1.length > 0 && seen1.every((pe) => typeof pe.kind === 'string'), 'the extra listener got provider events');
  t.strictSame(out1, decodeAll([bytes]), 'the normalizer still gives every event');

  // a listener attached mid-stream ends the handoff for the frames after it
  const f = sseFramer();
  const d2 = decoder();
  const n2 = normalizer();
  const out2: UnifiedEvent[] = [];
  const seen2: ProviderEvent[] = [];
  n2.on('data', (ev: UnifiedEvent) => out2.push(ev));
  const done = finished(n2);
  f.pipe(d2).pipe(n2);
  const half = bytes.length >> 1;
  f.write(bytes.subarray(0, half));
  await new Promise((r) => setTimeout(r, 10));
  t.ok(out2.length > 0, 'events of the first half arrived');
  t.equal((d2.stage as DecoderStage).handOff, true, 'handed on before the listener');
  d2.on('data', (pe: ProviderEvent) => seen2.push(pe));
  t.equal((d2.stage as DecoderStage).handOff, false, 'not after it');
  f.end(bytes.subarray(half));
  await done;
  t.strictSame(out2, decodeAll([bytes]), 'the normalizer gives every event across the switch');
  t.ok(seen2.length > 0, 'the late listener got events');
  t.ok(seen2.every((pe) => typeof pe.kind === 'string'), 'all of them provider events');
});

/** A Readable of `chunks` through `stages` in stream.pipeline, everything that comes out. */
async function collect(chunks: Buffer[], ...stages: NodeJS.ReadWriteStream[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const sink = new Writable({
    objectMode: true,
    write(item: unknown, _enc, cb) {
      out.push(item);
      cb();
    },
  });
  await (pipeline as unknown as (...s: unknown[]) => Promise<void>)(Readable.from(chunks), ...stages, sink);
  return out;
}

t.test('normalizer() piped into finalAccumulator(): logs of many responses give the fused finals, text deltas of one response never go into another', async (t) => {
  for (const dialect of FIXTURE_DIALECTS.filter((d) => d !== 'gemini-json-array')) {
    const { data, stats } = generateToBuffer({ dialect, shape: 'log', size: 40_000, seed: 21 });
    const { dialect: name } = wirefoldOptions(dialect);
    for (const size of [data.length, 1536]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < data.length; i += size) chunks.push(data.subarray(i, i + size));
      const fused = await collect(chunks, createStream({ dialect: name, output: 'final' }));
      const separate = await collect(chunks, sseFramer(), decoder(), normalizer({ dialect: name }), finalAccumulator());
      t.equal(separate.length, stats.responses, `${dialect} in ${size}-byte chunks: one final per response`);
      t.same(separate, fused, `${dialect} in ${size}-byte chunks: the fused finals`);
    }
  }
});
