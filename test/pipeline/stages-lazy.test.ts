/**
 * The separate decoder() and normalizer() stages' fast path (lib/fast/lazy-stages.ts):
 * json events of a shape the decoder has parsed once are handed on unparsed,
 * `payload` an own enumerable accessor parsing `text` on first read; the
 * normalizer reads text deltas from the text of events nobody has read.
 * Observable behaviour is the reference's (`fastPath: false`): the same
 * provider events (as data), the same unified events and finals, invalid
 * frames reported by the decoder with their frame numbers, and a Transform of
 * the user's between the two stages that reads, changes or copies payloads
 * is heard.
 */
import t from 'tap';
import { Readable, Transform, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, ProviderEvent, UnifiedEvent } from '../../lib/events.js';
import { compose } from '../../lib/pipeline/compose.js';
import { sseFramer, autoFramer } from '../../lib/pipeline/framers.js';
import { decoder, messageDecoder, normalizer } from '../../lib/pipeline/stages.js';
import { finalAccumulator } from '../../lib/pipeline/accumulators.js';
import { corpusFiles } from '../helpers/corpus.js';
import { fixedChunks } from '../helpers/chunks.js';

async function run(chunks: Buffer[], streams: Duplex[]): Promise<unknown[]> {
  const items: unknown[] = [];
  await pipeline([
    Readable.from(chunks),
    ...streams,
    new Writable({
      objectMode: true,
      write(item: unknown, _enc, cb) {
        items.push(item);
        cb();
      },
    }),
  ]);
  return items;
}

/** An Anthropic stream: the same text delta shape many times, an invalid frame among them, `[DONE]`. */
function anthropic(deltas: string[], invalidAt = -1): Buffer {
  const ev = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;
  let s = ev('message_start', JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }));
  s += ev('content_block_start', JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
  deltas.forEach((d, i) => {
    s += i === invalidAt ? ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut') : '';
    s += ev('content_block_delta', JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: d } }));
  });
  s += ev('content_block_stop', JSON.stringify({ type: 'content_block_stop', index: 0 }));
  s += ev('message_delta', JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }));
  s += ev('message_stop', JSON.stringify({ type: 'message_stop' }));
  return Buffer.from(s + 'data: [DONE]\n\n');
}

const DELTAS = ['Hel', 'lo', ', ', 'wor', 'ld', ' \u00e9\u{1F600}', ' "quoted"\n', '\\ back', ' end'];

t.test('decoder(): lazy json events read, spread, stringify and clone as parsed ones', async (t) => {
  const lazy = (await run([anthropic(DELTAS)], [sseFramer(), decoder()])) as ProviderEvent[];
  const eager = (await run([anthropic(DELTAS)], [sseFramer(), decoder({ fastPath: false })])) as ProviderEvent[];
  const accessors = lazy.filter((e) => Object.getOwnPropertyDescriptor(e, 'payload')?.get !== undefined);
  t.ok(accessors.length >= DELTAS.length - 1, `${accessors.length} of ${lazy.length} events not parsed yet`);
  t.notOk(eager.some((e) => Object.getOwnPropertyDescriptor(e, 'payload')?.get !== undefined), 'fastPath: false parses every payload');
  for (const e of accessors) {
    const d = Object.getOwnPropertyDescriptor(e, 'payload')!;
    t.ok(d.enumerable && d.configurable, 'an own enumerable accessor');
  }
  // each way of reading an event, on a fresh lazy one and on its eager twin
  const views: [string, (e: ProviderEvent) => unknown][] = [
    ['JSON.stringify', (e) => JSON.parse(JSON.stringify(e))],
    ['spread', (e) => ({ ...e })],
    ['structuredClone', (e) => structuredClone(e)],
    ['Object.entries', (e) => Object.fromEntries(Object.entries(e))],
  ];
  for (const [name, view] of views) {
    const fresh = (await run([anthropic(DELTAS)], [sseFramer(), decoder()])) as ProviderEvent[];
    const got = fresh.map(view);
    t.ok(isDeepStrictEqual(got, eager.map(view)), `${name}: the same as fastPath: false`);
    t.ok(fresh.every((e) => Object.getOwnPropertyDescriptor(e, 'payload')?.get === undefined), `${name}: read once, a plain data property after`);
  }
  t.same(lazy, eager, 'deep-equal to the eager events');
  t.ok(
    lazy.every((e) => e.kind !== 'json' || (typeof e.text === 'string' && isDeepStrictEqual(JSON.parse(e.text), e.payload))),
    'every json event carries the text its payload is (or was) parsed from',
  );
  const written = (await run([anthropic(DELTAS)], [sseFramer(), decoder()])) as (ProviderEvent & { kind: 'json' })[];
  const last = written.filter((e) => e.kind === 'json').at(-1)!;
  last.payload = { replaced: true };
  t.same(last.payload, { replaced: true }, 'a payload written before it was read stays written');
  const frozen = (await run([anthropic(DELTAS)], [sseFramer(), decoder()])) as (ProviderEvent & { kind: 'json' })[];
  const ice = frozen.filter((e) => e.kind === 'json').at(-2)!;
  Object.freeze(ice);
  t.same(ice.payload, JSON.parse(ice.text!), 'a frozen lazy event still reads its payload');
  t.same({ ...ice }, { ...eager.filter((e) => e.kind === 'json').at(-2)! }, 'and spreads as the eager one');
  t.throws(() => {
    ice.payload = null;
  }, TypeError, 'writing it throws as for a frozen data property');
});

t.test('decoder(): invalid JSON among known shapes is still an invalid event of that frame', async (t) => {
  for (const at of [1, 5, 8]) {
    for (const size of [0, 7]) {
      const bytes = anthropic(DELTAS, at);
      const chunks = size === 0 ? [bytes] : fixedChunks(bytes, size);
      const lazy = (await run(chunks, [sseFramer({ positions: true }), decoder()])) as ProviderEvent[];
      const eager = (await run(chunks, [sseFramer({ positions: true }), decoder({ fastPath: false })])) as ProviderEvent[];
      const bad = lazy.filter((e) => e.kind === 'invalid');
      t.equal(bad.length, 1, `invalid before delta ${at}, ${size || 'whole'}: one invalid event`);
      t.equal(bad[0]!.frame, 2 + at, 'numbered as its frame');
      t.ok(isDeepStrictEqual(structuredClone(lazy), structuredClone(eager)), 'the same events as fastPath: false');
      const finals = await run(chunks, [sseFramer({ positions: true }), decoder(), normalizer(), finalAccumulator()]);
      const reference = await run(chunks, [sseFramer({ positions: true }), decoder({ fastPath: false }), normalizer({ fastPath: false }), finalAccumulator()]);
      t.ok(isDeepStrictEqual(finals, reference), 'the same finals');
    }
  }
});

/** A Transform of the user's that changes each text delta's payload: in place, by writing `payload`, or by a spread copy. */
function shout(how: 'in place' | 'assign' | 'spread' | 'reads only'): Transform {
  return new Transform({
    objectMode: true,
    transform(pe: ProviderEvent, _enc, cb) {
      if (pe.kind !== 'json') return cb(null, pe);
      const p = pe.payload as JsonObject;
      const delta = p['delta'] as JsonObject | undefined;
      if (p['type'] !== 'content_block_delta' || delta?.['type'] !== 'text_delta') return cb(null, pe);
      const loud = { ...p, delta: { ...delta, text: String(delta['text']).toUpperCase() } };
      if (how === 'in place') delta['text'] = String(delta['text']).toUpperCase();
      else if (how === 'assign') pe.payload = loud;
      else if (how === 'spread') return cb(null, { ...pe, payload: loud });
      cb(null, pe);
    },
  });
}

t.test("normalizer(): a Transform of the user's between the stages is heard", async (t) => {
  const bytes = anthropic([...DELTAS, ...DELTAS]);
  const text = async (streams: Duplex[]): Promise<string> => {
    const events = (await run([bytes], streams)) as UnifiedEvent[];
    return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
  };
  const plain = [...DELTAS, ...DELTAS].join('');
  t.equal(await text([sseFramer(), decoder(), normalizer()]), plain, 'untouched: the text');
  for (const how of ['in place', 'assign', 'spread'] as const) {
    t.equal(await text([sseFramer(), decoder(), shout(how), normalizer()]), plain.toUpperCase(), `${how}: the changed text`);
    t.equal(await text([sseFramer(), decoder(), shout(how), normalizer({ fastPath: false })]), plain.toUpperCase(), `${how}: as the reference normalizer hears it`);
  }
  t.equal(await text([sseFramer(), decoder(), shout('reads only'), normalizer()]), plain, 'read only: the text');
  // a copy that keeps `text` but changes nothing is read from its payload (no longer the decoder's lazy event)
  const copy = new Transform({
    objectMode: true,
    transform(pe: ProviderEvent, _enc, cb) {
      cb(null, { ...pe });
    },
  });
  t.equal(await text([sseFramer(), decoder(), copy, normalizer()]), plain, 'spread copies: the text');
});

t.test('every corpus file: decoder() and normalizer() give the reference items, in 61-byte chunks too', async (t) => {
  let files = 0;
  for (const { name, bytes } of corpusFiles()) {
    for (const chunks of [[bytes], fixedChunks(bytes, 61)]) {
      const got = await run(chunks, [autoFramer({ positions: true }), decoder(), normalizer()]).catch((e: Error) => [`failed: ${e.message}`]);
      const want = await run(chunks, [autoFramer({ positions: true }), decoder({ fastPath: false }), normalizer({ fastPath: false })]).catch((e: Error) => [`failed: ${e.message}`]);
      if (!isDeepStrictEqual(got, want)) t.strictSame(got, want, name);
      const pes = await run(chunks, [autoFramer({ positions: true }), decoder()]).catch((e: Error) => [`failed: ${e.message}`]);
      const ref = await run(chunks, [autoFramer({ positions: true }), decoder({ fastPath: false })]).catch((e: Error) => [`failed: ${e.message}`]);
      if (!isDeepStrictEqual(structuredClone(pes), structuredClone(ref))) t.strictSame(structuredClone(pes), structuredClone(ref), `${name}: provider events`);
    }
    files++;
  }
  t.ok(files > 20, `${files} corpus files`);
});

t.test('fastPath: checked; not an option of messageDecoder(); compose() carries it', async (t) => {
  t.throws(() => decoder({ fastPath: 'no' as unknown as boolean }), { code: 'invalid_option' });
  t.throws(() => normalizer({ fastPath: 1 as unknown as boolean }), { code: 'invalid_option' });
  t.throws(() => messageDecoder({ fastPath: false } as never), { code: 'invalid_option' });
  const bytes = anthropic(DELTAS);
  const fused = await run([bytes], [compose(sseFramer(), decoder({ fastPath: false }), normalizer(), finalAccumulator())]);
  const separate = await run([bytes], [sseFramer(), decoder(), normalizer(), finalAccumulator()]);
  t.same(fused, separate, 'compose() with fastPath: false gives the same final');
});
