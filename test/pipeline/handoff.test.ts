/**
 * decoder() piped straight into normalizer() hands frames on undecoded (so the
 * normalizer can use the raw-text fast path): the events must be exactly those
 * of the eager pair (a PassThrough in between stops the handoff) and of the
 * fused pipeline, and nothing else reading the decoder may see a handed frame.
 */
import t, { type Test } from 'tap';
import { PassThrough, Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { DialectOption, ProviderEvent, UnifiedEvent } from '../../lib/events.js';
import { autoFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import type { DecoderStage } from '../../lib/pipeline/handoff.js';
import { FIXTURE_DIALECTS, generateToBuffer, llmstreamOptions } from '../../benchmarks/generate.js';
import { corpusFiles, fixture, hasCorpus } from '../helpers/corpus.js';
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

t.test('corpus: handed-on frames give the eager and the fused events', { skip: hasCorpus ? false : 'no ../shared/corpus' }, async (t) => {
  for (const file of corpusFiles()) {
    if (file.name.endsWith('.har') || file.name.endsWith('.md')) continue;
    await same(t, file.name, file.bytes, {});
  }
});

t.test('generated benchmark fixtures (templates in use): handed = eager = fused', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const { data } = generateToBuffer({ dialect, shape: 'log', size: 30_000, seed: 5 });
    await same(t, dialect, data, { dialect: llmstreamOptions(dialect).dialect });
  }
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
