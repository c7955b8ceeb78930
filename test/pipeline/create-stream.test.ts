import t from 'tap';
import { Readable, Writable, PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { compose } from '../../lib/pipeline/compose.js';
import { sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { finalAccumulator, textAccumulator } from '../../lib/pipeline/accumulators.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { fixture } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';
import { slowConsumerLead } from '../helpers/slow-consumer.js';
import { Duplex, Transform } from 'node:stream';
import { StageTransform } from '../../lib/pipeline/transform.js';

async function collect<T>(stream: NodeJS.ReadableStream | Readable): Promise<T[]> {
  const out: T[] = [];
  for await (const x of stream as AsyncIterable<T>) out.push(x);
  return out;
}

const tool = fixture('quickstart/anthropic-tool-use.sse');
const overloaded = fixture('anthropic-messages/overloaded-error.sse');

t.test('events: the fused Transform gives the same events as the pure stages, at any chunking', async (t) => {
  const want = decodeAll([tool]);
  for (const seed of [1, 2, 3]) {
    const got = await collect<UnifiedEvent>(Readable.from(randomChunks(tool, seed, 50)).pipe(createStream()));
    t.same(got, want, `seed ${seed}`);
  }
});

t.test('final: one FinalResult per response', async (t) => {
  const two = Buffer.concat([tool, fixture('openai-chat/text-usage.sse')]);
  const finals = await collect<FinalResult>(Readable.from([two]).pipe(createStream({ output: 'final' })));
  t.equal(finals.length, 2);
  t.match(finals[0], {
    dialect: 'anthropic-messages',
    toolCalls: [{ id: 'toolu_01Paris', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
    stopReason: 'tool_use',
    usage: { inputTokens: 1436, outputTokens: 87, cachedInputTokens: 1024 },
  });
  t.match(finals[1], { dialect: 'openai-chat', stopReason: 'end' }, 'auto re-detects the dialect between responses');
});

t.test('text: visible text only, a newline after each response, as bytes', async (t) => {
  const chunks = await collect<Buffer>(Readable.from([tool]).pipe(createStream({ output: 'text' })));
  t.equal(Buffer.concat(chunks).toString(), 'Let me check the weather in Paris — ☀️ or 🌧️?\n');
});

t.test('lenient (default): a provider error stays in the output and the stream ends normally', async (t) => {
  const evs = await collect<UnifiedEvent>(Readable.from([overloaded]).pipe(createStream()));
  t.match(evs.filter((e) => e.type === 'error'), [{ code: 'overloaded_error', terminal: true }]);
  t.match(evs.at(-1), { type: 'done', stopReason: 'error' });
});

t.test('strict: the first error event destroys the stream with a typed StreamError, after the events before it', async (t) => {
  const got: UnifiedEvent[] = [];
  const err = await pipeline(
    Readable.from([overloaded]),
    createStream({ strict: true, positions: true }),
    new Writable({
      objectMode: true,
      write(ev: UnifiedEvent, _e, cb) {
        got.push(ev);
        cb();
      },
    }),
  ).catch((e: unknown) => e);
  t.match(err, { name: 'StreamError', code: 'overloaded_error', message: /^overloaded_error at byte \d+ \(frame \d+\): / });
  t.ok(got.some((e) => e.type === 'text_delta'), 'events before the error were delivered');
  t.notOk(got.some((e) => e.type === 'error'));
});

t.test('lenient: a fatal framing error becomes a terminal error event and closes the open response', async (t) => {
  const input = Buffer.from(
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n' +
      `data: ${'x'.repeat(200)}\n\n`,
  );
  const evs = await collect<UnifiedEvent>(Readable.from([input]).pipe(createStream({ maxFrameBytes: 150 })));
  t.same(
    evs.map((e) => e.type),
    ['start', 'text_delta', 'error', 'done'],
  );
  t.match(evs[2], { type: 'error', code: 'frame_too_large', terminal: true, at: { frame: 1, offset: 118 } });
  t.match(evs[3], { type: 'done', stopReason: 'error' });
  const strict = await collect<UnifiedEvent>(Readable.from([input]).pipe(createStream({ maxFrameBytes: 150, strict: true }))).catch(
    (e: unknown) => e,
  );
  t.match(strict, { name: 'FrameTooLargeError', code: 'frame_too_large', offset: 118, frame: 1 });
});

t.test('separate stage Transforms in stream.pipeline give the same finals as the fused stream', async (t) => {
  const fused = await collect<FinalResult>(Readable.from([tool]).pipe(createStream({ output: 'final' })));
  const finals: FinalResult[] = [];
  await pipeline(Readable.from([tool]), sseFramer(), decoder(), normalizer(), finalAccumulator(), async (src: AsyncIterable<FinalResult>) => {
    for await (const f of src) finals.push(f);
  });
  t.same(finals, fused);
});

t.test('compose: a user filter between normalizer and accumulator, errors propagate', async (t) => {
  const dropReasoning = new Transform({
    objectMode: true,
    transform(ev: UnifiedEvent, _e, cb) {
      cb(null, ev.type === 'reasoning_delta' ? undefined : ev);
    },
  });
  const text = textAccumulator();
  const chain = compose(sseFramer(), decoder(), normalizer(), dropReasoning, text, finalAccumulator());
  t.ok(chain instanceof Duplex && !(chain instanceof StageTransform), "with a user's Transform in it: a node:stream Duplex of Node's compose");
  const finals = await collect<FinalResult>(Readable.from([tool]).pipe(chain));
  t.equal(finals.length, 1);
  t.equal(finals[0]?.reasoning, '');
  t.equal(finals[0]?.text, 'Let me check the weather in Paris — ☀️ or 🌧️?');
  t.equal(text.stage.text(), 'Let me check the weather in Paris — ☀️ or 🌧️?', 'the accumulator state is readable');

  const broken = compose(sseFramer({ maxFrameBytes: 10 }), decoder(), normalizer());
  t.ok(broken instanceof StageTransform, "the package's own chain: the fused stage");
  const err = await collect(Readable.from([tool]).pipe(broken)).catch((e: unknown) => e);
  t.match(err, { name: 'FrameTooLargeError' });
});

t.test('backpressure through createStream: a slow consumer keeps the source paused', async (t) => {
  const { maxAhead } = await slowConsumerLead([createStream()]);
  t.ok(maxAhead < 96 * 1024, `source ran at most ${maxAhead} bytes ahead`);
});

t.test('a fetch Response body through stream.pipeline', async (t) => {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of randomChunks(tool, 9, 100)) c.enqueue(new Uint8Array(chunk));
      c.close();
    },
  });
  const response = new Response(body);
  const finals: FinalResult[] = [];
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createStream({ output: 'final' }), async (src: AsyncIterable<FinalResult>) => {
    for await (const f of src) finals.push(f);
  });
  t.equal(finals[0]?.toolCalls[0]?.name, 'get_weather');
  void PassThrough;
});
