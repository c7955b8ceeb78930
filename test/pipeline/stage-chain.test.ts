/**
 * A StageTransform piped straight into another one that is its only consumer
 * runs that one's stage itself (lib/pipeline/transform.ts). The output, the
 * errors and the backpressure must be those of the chain with a stream hop
 * between the stages (a PassThrough between them stops it), and nothing else
 * reading a stage may ever see an item meant for the next stage only.
 */
import t, { type Test } from 'tap';
import { PassThrough, Readable, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Frame, ProviderEvent, UnifiedEvent } from '../../lib/events.js';
import { autoFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { finalAccumulator } from '../../lib/pipeline/accumulators.js';
import { createStream } from '../../lib/pipeline/create-stream.js';
import type { StageTransform } from '../../lib/pipeline/transform.js';
import { FIXTURE_DIALECTS, FIXTURE_SHAPES, generateToBuffer, wirefoldOptions } from '../../benchmarks/generate.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';
import { slowConsumerLead } from '../helpers/slow-consumer.js';

type AnyStage = StageTransform<unknown, unknown>;

interface Run {
  out: unknown[];
  error: string | null;
  /** Whether each stage but the last ran the next one itself when the first item reached the sink. */
  fused: boolean[] | null;
}

/** Runs `stages` over `chunks` in stream.pipeline, with PassThroughs between them when `split`. */
async function run(chunks: Buffer[], stages: AnyStage[], split: boolean): Promise<Run> {
  const out: unknown[] = [];
  let fused: boolean[] | null = null;
  const sink = new Writable({
    objectMode: true,
    write(item: unknown, _e, cb) {
      fused ??= stages.slice(0, -1).map((s) => s.fused);
      out.push(item);
      cb();
    },
  });
  const chain: Duplex[] = split ? stages.flatMap((s, i) => (i === 0 ? [s] : [new PassThrough({ objectMode: true }), s])) : stages;
  let error: string | null = null;
  try {
    await pipeline([Readable.from(chunks), ...chain, sink]);
  } catch (err) {
    error = `${(err as Error).name}: ${(err as Error).message}`;
  }
  return { out, error, fused };
}

const eventStages = (dialect?: string): AnyStage[] =>
  [autoFramer(), decoder(), normalizer(dialect === undefined ? {} : { dialect: dialect as never })] as AnyStage[];
const finalStages = (dialect?: string): AnyStage[] => [...eventStages(dialect), finalAccumulator() as AnyStage];

async function same(t: Test, name: string, bytes: Buffer, dialect?: string): Promise<void> {
  for (const [cname, chunks] of [
    ['whole', [bytes]],
    ['random', randomChunks(bytes, 11, 500)],
  ] as [string, Buffer[]][]) {
    for (const [mode, make] of [
      ['events', eventStages],
      ['final', finalStages],
    ] as const) {
      const chained = await run(chunks, make(dialect), false);
      const split = await run(chunks, make(dialect), true);
      const label = `${name} @${cname} ${mode}`;
      t.strictSame(chained.out, split.out, `${label}: chained = through PassThroughs`);
      t.equal(chained.error, split.error, `${label}: same error`);
      if (chained.out.length > 1) {
        t.ok(chained.fused?.every((b) => b), `${label}: every stage ran the next`);
        t.ok(split.fused?.every((b) => !b), `${label}: none through PassThroughs`);
      }
    }
  }
}

t.test('fixtures and generated logs: chained stages = stages through PassThroughs = fused', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  await same(t, 'quickstart', tool);
  const fused = await run([tool], [createStream({ output: 'final' }) as AnyStage], false);
  t.strictSame((await run([tool], finalStages(), false)).out, fused.out, 'chained stages = fused createStream');
  for (const dialect of FIXTURE_DIALECTS) {
    const { data } = generateToBuffer({ dialect, shape: 'log', size: 30_000, seed: 9 });
    await same(t, dialect, data, wirefoldOptions(dialect).dialect);
  }
});

t.test('corpus: chained stages = stages through PassThroughs', async (t) => {
  for (const file of corpusFiles()) {
    if (file.name.endsWith('.har') || file.name.endsWith('.md')) continue;
    await same(t, file.name, file.bytes);
  }
});

t.test('a fatal error mid-chunk: the items before it, then the same error', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  const make = (): AnyStage[] => [sseFramer({ maxFrameBytes: 400 }), decoder(), normalizer()] as AnyStage[];
  // an overlong frame after the first half of the events, in the same chunk as them
  const cut = tool.indexOf('\n\n', tool.length >> 1) + 2;
  const input = Buffer.concat([tool.subarray(0, cut), Buffer.from(`data: ${'x'.repeat(1000)}\n\n`), tool.subarray(cut)]);
  const chained = await run([input], make(), false);
  const split = await run([input], make(), true);
  t.match(chained.error, /FrameTooLargeError|frame/i, 'the framing error');
  t.ok(chained.out.length > 0, 'events before the error were delivered');
  t.strictSame(chained.out, split.out, 'the same events as through PassThroughs');
  t.equal(chained.error, split.error, 'the same error');
  // an accumulator limit tripping inside a chunk
  const limited = (): AnyStage[] => [...eventStages(), finalAccumulator({ maxToolArgumentBytes: 8 }) as AnyStage];
  const a = await run([tool], limited(), false);
  const b = await run([tool], limited(), true);
  t.ok(a.error !== null, 'the limit error');
  t.strictSame(a.out, b.out, 'the same finals before it');
  t.equal(a.error, b.error, 'the same error');
});

t.test('another consumer of a stage sees plain items', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  // attached before the pipe: the stage never runs the next one
  const framer = sseFramer();
  const frames: Frame[] = [];
  framer.on('data', (f: Frame) => frames.push(f));
  const r1 = await run([tool], [framer, decoder(), normalizer()] as AnyStage[], false);
  t.ok(frames.length > 0 && frames.every((f) => typeof f.data === 'string'), 'the listener got frames');
  t.equal(r1.fused?.[0], false, 'the framer did not run the decoder');
  t.strictSame(r1.out, (await run([tool], eventStages(), false)).out, 'same events');

  // attached mid-stream: the stage stops running the next one for the items after it
  const f = sseFramer();
  const d = decoder();
  const n = normalizer();
  const events: UnifiedEvent[] = [];
  const seen: unknown[] = [];
  n.on('data', (ev: UnifiedEvent) => events.push(ev));
  const done = new Promise((resolve) => n.on('end', resolve));
  f.pipe(d).pipe(n);
  t.equal(f.fused, true, 'the framer runs the decoder');
  t.equal(d.fused, true, 'the decoder runs the normalizer');
  const half = tool.length >> 1;
  f.write(tool.subarray(0, half));
  await new Promise((r) => setTimeout(r, 10));
  d.on('data', (pe: ProviderEvent) => seen.push(pe));
  t.equal(d.fused, false, 'a second consumer ends it');
  f.end(tool.subarray(half));
  await done;
  t.ok(seen.length > 0, 'the late listener got items');
  t.ok(seen.every((pe) => typeof (pe as ProviderEvent).kind === 'string'), 'all of them provider events');
  t.strictSame(events, (await run([tool], eventStages(), false)).out, 'the normalizer gave every event');
});

t.test('backpressure through chained stages: a slow consumer keeps the source paused', async (t) => {
  const { maxAhead, produced } = await slowConsumerLead([sseFramer(), decoder(), normalizer()]);
  t.ok(maxAhead < 256 * 1024, `source ran at most ${maxAhead} bytes ahead (of ${produced})`);
});

t.test('final results through chained stages equal createStream on generated fixtures (text deltas handed on as records)', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const { data } = generateToBuffer({ dialect, shape, size: 120_000, seed: 4 });
      const chunks = randomChunks(data, 5, 16384);
      const d = wirefoldOptions(dialect).dialect;
      for (const maxTextBytes of [undefined, 3000]) {
        const limits = maxTextBytes === undefined ? {} : { maxTextBytes };
        const fused = await run(chunks, [createStream({ output: 'final', dialect: d, ...limits }) as AnyStage], false);
        const staged = await run(chunks, [...eventStages(d), finalAccumulator(limits) as AnyStage], false);
        const label = `${dialect}.${shape}${maxTextBytes === undefined ? '' : ` maxTextBytes ${maxTextBytes}`}`;
        t.ok(staged.out.length > 0, `${label}: finals`);
        t.strictSame(staged.out, fused.out, `${label}: same finals as createStream`);
        t.equal(staged.error?.split(':')[0] ?? null, fused.error?.split(':')[0] ?? null, `${label}: same error class`);
      }
    }
  }
});

t.test('a normalizer with another consumer emits events, never text records', async (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 60_000, seed: 6 });
  const norm = normalizer({ dialect: 'anthropic-messages' }) as AnyStage;
  const seen: unknown[] = [];
  norm.on('data', (ev: unknown) => seen.push(ev));
  const r = await run(randomChunks(data, 2, 8192), [autoFramer(), decoder(), norm, finalAccumulator() as AnyStage] as AnyStage[], false);
  t.ok(seen.length > 0 && seen.every((ev) => typeof (ev as { type?: unknown }).type === 'string'), 'the listener got events only');
  t.strictSame(r.out, (await run([data], finalStages('anthropic-messages'), false)).out, 'the accumulator still gets the same final');
});

t.test('a chain read slowly by async iteration never stalls, whatever the input chunks add', async (t) => {
  // (an input that adds no item to the last stage's full buffer must go on at once: only a push makes
  // the next read call _read, which is what lets a held input go on)
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 60_000, seed: 3 });
  for (const chunks of [randomChunks(data, 3, 4096), randomChunks(data, 8, 7)]) {
    const stages = eventStages('anthropic-messages');
    const got: unknown[] = [];
    let fused = null as boolean[] | null;
    const consume = async (src: AsyncIterable<unknown>): Promise<void> => {
      for await (const ev of src) {
        fused ??= stages.slice(0, -1).map((s) => s.fused);
        got.push(ev);
        if (got.length % 50 === 0) await new Promise((r) => setImmediate(r));
      }
    };
    const timeout = new Promise<string>((r) => setTimeout(() => r('stalled'), 20_000).unref());
    const [framer, dec, norm] = stages as unknown as [Duplex, Duplex, Duplex];
    const result = await Promise.race([pipeline(Readable.from(chunks), framer, dec, norm, consume).then(() => 'done'), timeout]);
    t.equal(result, 'done', `${chunks.length} chunks: the pipeline finished`);
    t.ok(fused?.every((b) => b), 'the stages ran one another');
    t.strictSame(got, (await run(chunks, eventStages('anthropic-messages'), true)).out, 'the events of the chain through PassThroughs');
  }
});
