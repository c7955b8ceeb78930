/**
 * The separate stage Transforms are plain: each takes its input from its
 * writable side and emits only the documented items (Frame, ProviderEvent,
 * UnifiedEvent, FinalResult) through its readable side, whatever reads it.
 * Fusion is explicit: createStream(), and compose() of the package's own
 * chain, which returns the fused stage (lib/pipeline/compose.ts).
 *
 * Over every hand-written fixture and every corpus file, whole, in small
 * fixed chunks and in seeded random chunks:
 * (a) the separate stages in stream.pipeline give createStream's events and
 *     finals, but for not_a_stream (only the fused stage sees an SSE input of
 *     no event but lines that are not SSE fields) and for a fatal framing
 *     error, which destroys the separate stages (createStream is lenient);
 * (b) compose() of the package's stages is one StageTransform giving the same;
 * (c) compose() with a Transform of the user's in the chain is a node:stream
 *     Duplex giving the same;
 * (d) between the separate stages only plain objects of the documented shapes
 *     pass.
 */
import t, { type Test } from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Duplex, PassThrough, Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isDeepStrictEqual } from 'node:util';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectName, UnifiedEvent, UnifiedEventType } from '../../lib/events.js';
import { compose } from '../../lib/pipeline/compose.js';
import { createStream, type CreateStreamOptions } from '../../lib/pipeline/create-stream.js';
import { autoFramer, jsonArrayFramer, jsonValuesFramer, ndjsonFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, messageDecoder, normalizer } from '../../lib/pipeline/stages.js';
import { finalAccumulator, textAccumulator, usageAccumulator } from '../../lib/pipeline/accumulators.js';
import { StageTransform } from '../../lib/pipeline/transform.js';
import { FIXTURE_DIALECTS, generateToBuffer, wirefoldOptions } from '../../benchmarks/generate.js';
import { corpusFile, corpusFiles, fixture, repoRoot } from '../helpers/corpus.js';
import { fixedChunks, randomChunks } from '../helpers/chunks.js';
import { slowConsumerLead } from '../helpers/slow-consumer.js';

interface Input {
  name: string;
  bytes: Buffer;
}

/** Every file under fixtures/ but fixtures/corpus, then every corpus file. */
function inputs(): Input[] {
  const root = join(repoRoot, 'fixtures');
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((f) => {
        const path = join(dir, f);
        if (!statSync(path).isDirectory()) return [path];
        return path === join(root, 'corpus') ? [] : walk(path);
      });
  const own = walk(root).map((path) => ({ name: relative(root, path), bytes: readFileSync(path) }));
  return [...own, ...corpusFiles().map((f) => ({ name: `corpus/${f.name}`, bytes: f.bytes }))];
}

/** Whole; 1-byte chunks (small inputs) or 61-byte ones; seeded random chunks. */
function chunkingsOf(bytes: Buffer): [string, Buffer[]][] {
  const small = bytes.length <= 4096;
  return [
    ['whole', [bytes]],
    [small ? '1-byte' : '61-byte', fixedChunks(bytes, small ? 1 : 61)],
    ['random', randomChunks(bytes, 7, 700)],
  ];
}

interface Outcome {
  items: unknown[];
  /** The code (else the name) of the error the pipeline failed with. */
  error: string | null;
}

async function through(chunks: Buffer[], streams: Duplex[]): Promise<Outcome> {
  const items: unknown[] = [];
  const sink = new Writable({
    objectMode: true,
    write(item: unknown, _enc, cb) {
      items.push(item);
      cb();
    },
  });
  let error: string | null = null;
  try {
    await pipeline([Readable.from(chunks), ...streams, sink]);
  } catch (err) {
    error = (err as { code?: string }).code ?? (err as Error).name;
  }
  return { items, error };
}

/** Errors the lenient createStream reports as a terminal error event, and that destroy the separate stages (a framing error, a normalizer limit). */
const FATAL = new Set(['frame_too_large', 'invalid_json_array', 'limit_exceeded']);

/**
 * What the separate stages (`separate`) or compose()'s fused stage give for
 * createStream's outcome `fused`: a fatal error of the events stage ends them
 * with that error after the items before it; only the fused stage reports
 * not_a_stream. (An accumulator's limit fails createStream too: `fused.error`.)
 */
function expected(fused: Outcome, mode: 'events' | 'final', separate: boolean): Outcome {
  if (fused.error !== null) return fused;
  if (mode === 'events') {
    const events = fused.items as UnifiedEvent[];
    if (separate && events.length === 2 && events[0]!.type === 'error' && events[0]!.code === 'not_a_stream') return { items: [], error: null };
    const fatal = events.findIndex((e) => e.type === 'error' && FATAL.has(e.code));
    if (fatal >= 0) return { items: events.slice(0, fatal), error: (events[fatal] as { code: string }).code };
    return fused;
  }
  const finals = fused.items as FinalResult[];
  if (separate && finals.length === 1 && finals[0]!.errors.length === 1 && finals[0]!.errors[0]!.code === 'not_a_stream') return { items: [], error: null };
  const fatal = finals.findIndex((f) => f.errors.some((e) => FATAL.has(e.code)));
  if (fatal >= 0) return { items: finals.slice(0, fatal), error: finals[fatal]!.errors.find((e) => FATAL.has(e.code))!.code };
  return fused;
}

function same(t: Test, got: Outcome, want: Outcome, label: string): void {
  if (isDeepStrictEqual(got, want)) t.pass(label);
  else t.strictSame(got, want, label);
}

/** A Transform of the user's: passes every item on, on the next tick. */
function userPassThrough(): Transform {
  return new Transform({
    objectMode: true,
    transform(item: unknown, _enc, cb) {
      setImmediate(() => cb(null, item));
    },
  });
}

// ---------------------------------------------------------------------------
// (d): the documented shapes
// ---------------------------------------------------------------------------

/** Every unified event type (a missing or unknown one does not compile). */
const UNIFIED_TYPES: Record<UnifiedEventType, true> = {
  start: true,
  text_delta: true,
  reasoning_delta: true,
  tool_call_start: true,
  tool_call_delta: true,
  tool_call_done: true,
  tool_result: true,
  citation: true,
  file: true,
  signature: true,
  usage: true,
  done: true,
  error: true,
  raw: true,
  audio_delta: true,
  tool_call_cancel: true,
  session: true,
  input_transcript: true,
  segment: true,
  notice: true,
  steer: true,
};

/** Null when `x` and everything in it is plain data (objects of Object.prototype, arrays, primitives); else where not. */
function notPlain(x: unknown, path = '$'): string | null {
  if (typeof x !== 'object' || x === null) return typeof x === 'function' || typeof x === 'symbol' ? `${path} is a ${typeof x}` : null;
  const proto = Object.getPrototypeOf(x) as unknown;
  if (Array.isArray(x)) {
    if (proto !== Array.prototype) return `${path} is an array of another class`;
    for (let i = 0; i < x.length; i++) {
      const bad = notPlain(x[i], `${path}[${i}]`);
      if (bad !== null) return bad;
    }
    return null;
  }
  if (proto !== Object.prototype && proto !== null) return `${path} is an instance of ${(x as object).constructor?.name ?? 'a class'}`;
  for (const [k, v] of Object.entries(x)) {
    const bad = notPlain(v, `${path}.${k}`);
    if (bad !== null) return bad;
  }
  return null;
}

function keysWithin(x: object, allowed: string[]): string | null {
  const extra = Object.keys(x).filter((k) => !allowed.includes(k));
  return extra.length === 0 ? null : `unexpected keys ${extra.join(', ')}`;
}

function positionProblem(at: unknown): string | null {
  if (at === undefined) return null;
  const a = at as { frame?: unknown; offset?: unknown };
  return typeof a === 'object' && a !== null && typeof a.frame === 'number' && typeof a.offset === 'number' && Object.keys(a).length === 2 ? null : 'bad at';
}

function frameProblem(x: unknown): string | null {
  const f = x as Record<string, unknown>;
  if (typeof f.event !== 'string' || typeof f.data !== 'string' || typeof f.id !== 'string') return 'a Frame has string event, data and id';
  if (f.retry !== undefined && typeof f.retry !== 'number') return 'bad retry';
  if (f.invalidUtf8At !== undefined && typeof f.invalidUtf8At !== 'number') return 'bad invalidUtf8At';
  return positionProblem(f.at) ?? keysWithin(f, ['event', 'data', 'id', 'retry', 'at', 'invalidUtf8At']);
}

function providerEventProblem(x: unknown): string | null {
  const p = x as Record<string, unknown>;
  if (typeof p.event !== 'string' || typeof p.frame !== 'number') return 'a ProviderEvent has a string event and a frame number';
  const common = ['kind', 'event', 'frame', 'at'];
  let own: string[];
  switch (p.kind) {
    case 'json':
      if (!('payload' in p)) return 'no payload';
      if (p.direction !== undefined && p.direction !== 'send') return 'bad direction';
      own = ['payload', 'direction'];
      break;
    case 'done':
      own = [];
      break;
    case 'invalid':
      if (typeof p.text !== 'string' || typeof p.message !== 'string') return 'bad invalid event';
      own = ['text', 'message'];
      break;
    case 'invalid_utf8':
      if (typeof p.offset !== 'number') return 'bad invalid_utf8 event';
      own = ['offset'];
      break;
    default:
      return `unknown kind ${String(p.kind)}`;
  }
  return positionProblem(p.at) ?? keysWithin(p, [...common, ...own]);
}

function unifiedEventProblem(x: unknown): string | null {
  const type = (x as { type?: unknown }).type;
  return typeof type === 'string' && Object.hasOwn(UNIFIED_TYPES, type) ? null : `unknown type ${String(type)}`;
}

function finalProblem(x: unknown): string | null {
  return typeof (x as { stopReason?: unknown }).stopReason === 'string' ? null : 'a FinalResult has a stopReason';
}

/** A PassThrough that records what passes. */
function tap(seen: unknown[]): PassThrough {
  const p = new PassThrough({ objectMode: true });
  p.on('data', (item: unknown) => seen.push(item));
  return p;
}

function checkHop(t: Test, label: string, items: unknown[], problem: (x: unknown) => string | null): void {
  for (const [i, item] of items.entries()) {
    const bad = notPlain(item) ?? problem(item);
    if (bad !== null) {
      t.fail(`${label}: item ${i}: ${bad}`, { item });
      return;
    }
  }
  t.pass(`${label}: ${items.length} plain items of the documented shape`);
}

// ---------------------------------------------------------------------------

t.test('every fixture and corpus file: separate stages, compose() fused and composed = createStream', async (t) => {
  for (const { name, bytes } of inputs()) {
    for (const [cname, chunks] of chunkingsOf(bytes)) {
      const label = `${name} @${cname}`;
      const fusedEvents = await through(chunks, [createStream()]);
      const fusedFinals = await through(chunks, [createStream({ output: 'final' })]);
      t.equal(fusedFinals.error, null, `${label}: createStream does not fail`);

      // (a)
      same(t, await through(chunks, [autoFramer(), decoder(), normalizer()]), expected(fusedEvents, 'events', true), `${label}: separate stages' events`);
      same(t, await through(chunks, [autoFramer(), decoder(), normalizer(), finalAccumulator()]), expected(fusedFinals, 'final', true), `${label}: separate stages' finals`);

      // (b)
      const events = compose(autoFramer(), decoder(), normalizer());
      const finals = compose(autoFramer(), decoder(), normalizer(), finalAccumulator());
      if (!(events instanceof StageTransform && events instanceof Transform && finals instanceof StageTransform)) t.fail(`${label}: compose() of the package's stages is one StageTransform`);
      same(t, await through(chunks, [events]), expected(fusedEvents, 'events', false), `${label}: compose()'s fused events`);
      same(t, await through(chunks, [finals]), expected(fusedFinals, 'final', false), `${label}: compose()'s fused finals`);

      // (c)
      const composed = compose(autoFramer(), decoder(), userPassThrough(), normalizer(), finalAccumulator());
      if (composed instanceof StageTransform || !(composed instanceof Duplex)) t.fail(`${label}: compose() with a user Transform is a node:stream Duplex`);
      same(t, await through(chunks, [composed]), expected(fusedFinals, 'final', true), `${label}: compose() with a user Transform: finals`);

      // (d)
      if (cname === 'random') {
        const frames: unknown[] = [];
        const providerEvents: unknown[] = [];
        const unified: unknown[] = [];
        const tapped = await through(chunks, [autoFramer(), tap(frames), decoder(), tap(providerEvents), normalizer(), tap(unified), finalAccumulator()]);
        same(t, tapped, expected(fusedFinals, 'final', true), `${label}: tapped stages: the same finals`);
        checkHop(t, `${label}: framer → decoder`, frames, frameProblem);
        checkHop(t, `${label}: decoder → normalizer`, providerEvents, providerEventProblem);
        checkHop(t, `${label}: normalizer → accumulator`, unified, unifiedEventProblem);
        checkHop(t, `${label}: accumulator → sink`, tapped.items, finalProblem);
      }
    }
  }
});

t.test('compose() fuses with the options each stage was made with', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  const captures = corpusFile('openai-realtime/pydantic-ai--tool-call-round.ws.jsonl');
  const cases: [string, Buffer, () => Duplex[], CreateStreamOptions][] = [
    [
      'sse, positions, a dialect, final limits',
      tool,
      () => [sseFramer({ positions: true }), decoder(), normalizer({ dialect: 'anthropic-messages' }), finalAccumulator({ maxTextBytes: 20 })],
      { framing: 'sse', positions: true, dialect: 'anthropic-messages', output: 'final', maxTextBytes: 20 },
    ],
    ['sse, maxFrameBytes (fatal)', tool, () => [sseFramer({ maxFrameBytes: 200 }), decoder(), normalizer()], { framing: 'sse', maxFrameBytes: 200 }],
    ['sse, normalizer limits', tool, () => [sseFramer(), decoder(), normalizer({ maxToolArgumentBytes: 10 })], { framing: 'sse', maxToolArgumentBytes: 10 }],
    ['json array', fixture('gemini/json-array-two-elements.json'), () => [jsonArrayFramer({ positions: true }), decoder(), normalizer()], { framing: 'json-array', positions: true }],
    ['ndjson, all captures', captures, () => [ndjsonFramer(), decoder({ captures: 'all' }), normalizer(), finalAccumulator()], { framing: 'ndjson', captures: 'all', output: 'final' }],
    ['json values', captures, () => [jsonValuesFramer(), decoder(), normalizer({ dialect: 'openai-realtime' })], { framing: 'json-values', dialect: 'openai-realtime' }],
    ['json values, a HAR export', fixture('har/openai-realtime.har'), () => [jsonValuesFramer({ positions: true }), decoder(), normalizer()], { framing: 'json-values', positions: true }],
  ];
  for (const [name, bytes, make, options] of cases) {
    for (const chunks of [[bytes], randomChunks(bytes, 3, 40)]) {
      const fusedStage = compose(...make());
      t.ok(fusedStage instanceof StageTransform, `${name}: fused`);
      const got = await through(chunks, [fusedStage]);
      const want = expected(await through(chunks, [createStream(options)]), options.output === 'final' ? 'final' : 'events', false);
      same(t, got, want, `${name}: createStream's output with the same options (${chunks.length} chunks)`);
      same(t, await through(chunks, make()), got, `${name}: the separate stages' output`);
    }
  }
  // callbacks and buffer sizes
  const seen: DialectName[] = [];
  const stage = compose(autoFramer({ writableHighWaterMark: 1024 }), decoder(), normalizer({ onDialect: (d) => seen.push(d) }), finalAccumulator({ highWaterMark: 3 }));
  t.equal(stage.readableHighWaterMark, 3, "the last stage's highWaterMark");
  t.equal(stage.writableHighWaterMark, 1024, "the first stage's writableHighWaterMark");
  await through([tool], [stage]);
  t.same(seen, ['anthropic-messages'], "the normalizer's onDialect");
});

t.test('compose() fuses only untouched stages of its own, in the fused order', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  const want = await through([tool], [createStream({ output: 'final' })]);
  const fusedOrNot = async (label: string, stages: Duplex[], fused: boolean, input = [tool]): Promise<void> => {
    const stream = compose(...stages);
    t.equal(stream instanceof StageTransform, fused, `${label}: ${fused ? 'fused' : 'not fused'}`);
    t.ok(stream instanceof Duplex, `${label}: a node:stream Duplex`);
    if (input.length > 0) same(t, await through(input, [stream]), want, `${label}: the finals`);
  };
  await fusedOrNot('the whole chain', [autoFramer(), decoder(), normalizer(), finalAccumulator()], true);

  const written = sseFramer();
  written.write(tool.subarray(0, 100)); // a partial event: no frame out yet
  await fusedOrNot('a framer written to', [written, decoder(), normalizer(), finalAccumulator()], false, [tool.subarray(100)]);

  const listened = normalizer();
  const events: unknown[] = [];
  listened.on('data', (ev) => events.push(ev));
  await fusedOrNot("a stage with a 'data' listener", [sseFramer(), decoder(), listened, finalAccumulator()], false);
  t.ok(events.length > 0, 'the listener got the events');

  const ended = decoder();
  ended.on('end', () => {});
  await fusedOrNot("a stage with an 'end' listener", [sseFramer(), ended, normalizer(), finalAccumulator()], false);

  const piped = sseFramer();
  piped.pipe(new PassThrough({ objectMode: true })).resume();
  const unfused = compose(piped, decoder(), normalizer());
  t.notOk(unfused instanceof StageTransform, 'a piped framer: not fused');
  unfused.on('error', () => {}).destroy();

  const text = textAccumulator();
  await fusedOrNot('a pass-through accumulator in the chain', [sseFramer(), decoder(), normalizer(), text, finalAccumulator()], false);
  t.ok(text.stage.text().length > 0, 'its state is its own stream');
  await fusedOrNot('a user Transform', [sseFramer(), decoder(), normalizer(), userPassThrough(), finalAccumulator()], false);
  t.notOk(compose(decoder(), normalizer()) instanceof StageTransform, 'no framer: not fused');
  t.notOk(compose(sseFramer(), decoder()) instanceof StageTransform, 'no normalizer: not fused');
  t.notOk(compose(sseFramer(), decoder(), normalizer(), usageAccumulator()) instanceof StageTransform, 'another accumulator last: not fused');
  t.notOk(compose(sseFramer(), messageDecoder(), normalizer()) instanceof StageTransform, 'messageDecoder: not fused');
  t.notOk(compose(sseFramer(), normalizer(), decoder()) instanceof StageTransform, 'another order: not fused');
  t.throws(() => compose(sseFramer()), TypeError, 'fewer than two stages');
});

t.test('not_a_stream: the fused stage reports it, the separate stages yield nothing', async (t) => {
  const page = Buffer.from('<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n');
  const fused = await through([page], [compose(sseFramer(), decoder(), normalizer(), finalAccumulator())]);
  t.match(fused.items, [{ stopReason: 'error', errors: [{ code: 'not_a_stream' }] }], 'compose()');
  same(t, fused, await through([page], [createStream({ output: 'final' })]), 'as createStream');
  same(t, await through([page], [sseFramer(), decoder(), normalizer(), finalAccumulator()]), { items: [], error: null }, 'separate stages');
});

t.test('errors: the items before a fatal error, then the error, fused by compose() or not', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse');
  const cut = tool.indexOf('\n\n', tool.length >> 1) + 2;
  const input = Buffer.concat([tool.subarray(0, cut), Buffer.from(`data: ${'x'.repeat(1000)}\n\n`), tool.subarray(cut)]);
  const events = (): Duplex[] => [sseFramer({ maxFrameBytes: 400 }), decoder(), normalizer()];
  const separate = await through([input], events());
  t.equal(separate.error, 'frame_too_large', 'the framing error');
  t.ok(separate.items.length > 0, 'events before the error were delivered');
  same(t, await through([input], [compose(...events())]), separate, 'compose() fused: the same');
  // (through a Duplex of Node's compose, items still in a stage when the error comes are lost, as in stream.pipeline)
  const composed = await through([input], [compose(sseFramer({ maxFrameBytes: 400 }), userPassThrough(), decoder(), normalizer())]);
  t.equal(composed.error, 'frame_too_large', 'compose() with a user Transform: the same error');
  t.strictSame(composed.items, separate.items.slice(0, composed.items.length), 'after some of the same events');

  // an accumulator limit tripping inside a chunk: its partial final, then the error
  const limited = (): Duplex[] => [sseFramer(), decoder(), normalizer(), finalAccumulator({ maxToolArgumentBytes: 8 })];
  const a = await through([tool], limited());
  t.equal(a.error, 'limit_exceeded', 'the limit error');
  t.match(a.items, [{ stopReason: 'error', errors: [{ code: 'limit_exceeded' }] }], 'the partial final first');
  same(t, await through([tool], [compose(...limited())]), a, 'compose() fused: the same');
  same(t, await through(randomChunks(tool, 5, 30), [compose(...limited())]), a, 'compose() fused, in small chunks: the same');

  // a Transform of the user's failing in the middle
  const failing = new Transform({
    objectMode: true,
    transform(_item: unknown, _enc, cb) {
      cb(new Error('user transform failed'));
    },
  });
  const r = await through([tool], [compose(sseFramer(), decoder(), failing, normalizer())]);
  t.equal(r.error, 'Error', "the user Transform's error propagates");
});

t.test('backpressure: a slow consumer keeps the source paused', async (t) => {
  const separate = await slowConsumerLead([sseFramer(), decoder(), normalizer()]);
  t.ok(separate.maxAhead < 256 * 1024, `separate stages: source ran at most ${separate.maxAhead} bytes ahead (of ${separate.produced})`);
  const fused = await slowConsumerLead([compose(sseFramer(), decoder(), normalizer())]);
  t.ok(fused.maxAhead < 96 * 1024, `compose() fused: at most ${fused.maxAhead} bytes ahead`);
  const composed = await slowConsumerLead([compose(sseFramer(), decoder(), new PassThrough({ objectMode: true }), normalizer())]);
  t.ok(composed.maxAhead < 256 * 1024, `compose() with a user Transform: at most ${composed.maxAhead} bytes ahead`);
});

t.test('generated logs of many responses: separate stages, fused compose() and createStream agree', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const { data, stats } = generateToBuffer({ dialect, shape: 'log', size: 60_000, seed: 21 });
    const { dialect: name } = wirefoldOptions(dialect);
    for (const chunks of [fixedChunks(data, 1536), randomChunks(data, 4, 4096)]) {
      const want = await through(chunks, [createStream({ dialect: name, output: 'final' })]);
      t.equal(want.items.length, stats.responses, `${dialect}: one final per response`);
      same(t, await through(chunks, [autoFramer(), decoder(), normalizer({ dialect: name }), finalAccumulator()]), want, `${dialect}: separate stages`);
      same(t, await through(chunks, [compose(autoFramer(), decoder(), normalizer({ dialect: name }), finalAccumulator())]), want, `${dialect}: compose()`);
    }
  }
});

t.test('read slowly by async iteration, the stages never stall', async (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 60_000, seed: 3 });
  const want = await through([data], [createStream({ dialect: 'anthropic-messages' })]);
  for (const chunks of [randomChunks(data, 3, 4096), randomChunks(data, 8, 7)]) {
    for (const [label, stages] of [
      ['separate', [sseFramer(), decoder(), normalizer({ dialect: 'anthropic-messages' })]],
      ['compose()', [compose(sseFramer(), decoder(), normalizer({ dialect: 'anthropic-messages' }))]],
    ] as [string, Duplex[]][]) {
      const got: unknown[] = [];
      const consume = async (src: AsyncIterable<unknown>): Promise<void> => {
        for await (const ev of src) {
          got.push(ev);
          if (got.length % 50 === 0) await new Promise((r) => setImmediate(r));
        }
      };
      const timeout = new Promise<string>((r) => setTimeout(() => r('stalled'), 20_000).unref());
      const result = await Promise.race([(pipeline as (...s: unknown[]) => Promise<void>)(Readable.from(chunks), ...stages, consume).then(() => 'done'), timeout]);
      t.equal(result, 'done', `${label}, ${chunks.length} chunks: finished`);
      same(t, { items: got, error: null }, want, `${label}: the events`);
    }
  }
});
