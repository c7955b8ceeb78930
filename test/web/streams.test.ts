/**
 * The TransformStream forms on Node (lib/web/): the fused WirefoldStream and
 * TranscodeStream against createStream, the stage streams chained against
 * the fused one, web-stream backpressure, AbortSignal, and a failure that
 * delivers what came before it. (The same classes in real browsers, Deno and
 * Bun: chromium.test.ts, deno-bun.test.ts.)
 */
import t from 'tap';
import { Readable } from 'node:stream';
import {
  AutoFramerStream,
  DecoderStream,
  FinalAccumulatorStream,
  NormalizerStream,
  SseFramerStream,
  TextAccumulatorStream,
  TranscodeStream,
  WirefoldStream,
  createStream,
  finals,
  type Frame,
  type StreamError,
} from '../../lib/index.js';
import { corpusFile, corpusFiles } from '../helpers/corpus.js';
import { fixedChunks } from '../helpers/chunks.js';

/** A web stream of `chunks`, one per pull. */
function source(chunks: readonly (Uint8Array | string)[]): ReadableStream<Uint8Array | string> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
  });
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function nodeOutput<T>(stream: NodeJS.ReadWriteStream, chunks: Buffer[]): Promise<T[]> {
  const out: T[] = [];
  Readable.from(chunks).pipe(stream);
  for await (const x of stream as AsyncIterable<T>) out.push(x);
  return out;
}

const SSE = corpusFiles(['anthropic-messages', 'openai-chat', 'openai-responses', 'gemini-sse']).filter((f) => f.name.endsWith('.sse'));

t.test('WirefoldStream gives createStream’s output, in every mode, at 7-byte chunks', async (t) => {
  for (const f of SSE.filter((_, i) => i % 3 === 0)) {
    const chunks = fixedChunks(f.bytes, 7);
    for (const output of ['final', 'events', 'text'] as const) {
      const web = await readAll(source(chunks).pipeThrough(new WirefoldStream({ output })));
      const node = await nodeOutput(createStream({ output }), chunks);
      // (text: strings on the web, the Node Transform's bytes)
      if (output === 'text') t.equal(web.join(''), Buffer.concat(node as Buffer[]).toString('utf8'), `${f.name} ${output}`);
      else t.equal(JSON.stringify(web), JSON.stringify(node), `${f.name} ${output}`);
    }
  }
});

t.test('TranscodeStream gives createStream({ to })’s bytes as text', async (t) => {
  const f = SSE.find((x) => x.name.startsWith('anthropic-messages/'))!;
  const web = (await readAll(source([f.bytes]).pipeThrough(new TranscodeStream({ to: 'openai-chat' })))).join('');
  const node = Buffer.concat((await nodeOutput<Buffer | string>(createStream({ to: 'openai-chat' }), [f.bytes])).map((x) => Buffer.from(x))).toString('utf8');
  t.ok(web.includes('chat.completion.chunk'), 'the OpenAI chat wire came out');
  t.equal(web, node);
});

t.test('the stage streams chained give the fused stream’s finals', async (t) => {
  for (const f of SSE.filter((_, i) => i % 4 === 1)) {
    const chain = source(fixedChunks(f.bytes, 64))
      .pipeThrough(new AutoFramerStream())
      .pipeThrough(new DecoderStream())
      .pipeThrough(new NormalizerStream())
      .pipeThrough(new TextAccumulatorStream())
      .pipeThrough(new FinalAccumulatorStream());
    const staged = await readAll(chain);
    const fused = [];
    for await (const r of finals(f.bytes)) fused.push(r);
    t.equal(JSON.stringify(staged), JSON.stringify(fused), f.name);
  }
});

t.test('backpressure: a stage runs only as far as its reader reads (highWaterMark, desiredSize)', async (t) => {
  const stream = new SseFramerStream({ highWaterMark: 1, writableHighWaterMark: 16 });
  const writer = stream.writable.getWriter();
  const events = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `data: ${from + i}\n\n`).join('');
  void writer.write(events(0, 2)); // two frames: the readable queue (1) is full
  for (let i = 2; i < 10; i += 2) void writer.write(events(i, 2)); // 80 bytes queue up on the writable side
  await new Promise((r) => setTimeout(r, 20));
  t.ok(writer.desiredSize! <= 0, `the writer is told to wait (desiredSize ${writer.desiredSize})`);
  let ready = false;
  void writer.ready.then(() => (ready = true));
  await new Promise((r) => setTimeout(r, 20));
  t.equal(ready, false, 'nothing is read: the writer stays waiting');
  const reader = stream.readable.getReader();
  const frames: Frame[] = [];
  for (let i = 0; i < 10; i++) frames.push((await reader.read()).value!);
  await writer.ready;
  t.equal(ready, true, 'reading let the writer go on');
  t.same(
    frames.map((f) => f.data),
    Array.from({ length: 10 }, (_, i) => String(i)),
    'every frame, in order',
  );
  await writer.close();
  t.same(await reader.read(), { done: true, value: undefined });
});

t.test('AbortSignal: the partial final with an aborted error, then an AbortError', async (t) => {
  const bytes = corpusFile('anthropic-messages/llm-anthropic--text-basic.sse');
  const controller = new AbortController();
  const stream = new WirefoldStream({ output: 'final', signal: controller.signal });
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  void writer.write(bytes.subarray(0, Math.floor(bytes.length / 2))).catch(() => {});
  await new Promise((r) => setTimeout(r, 10));
  controller.abort(new Error('user left'));
  const first = await reader.read();
  t.equal(first.done, false, 'the open response comes out');
  t.match(first.value, { errors: [{ code: 'aborted' }] }, 'as a partial final holding the aborted error');
  const err = (await reader.read().catch((e: unknown) => e)) as StreamError;
  t.equal(err.code, 'aborted', 'then the stream errors with the AbortError');
  t.match((err.cause as Error).message, 'user left', 'its cause the signal’s reason');
  await writer.write('data: {}\n\n').then(
    () => t.fail('the writable side errored too'),
    () => t.pass('the writable side errored too'),
  );
});

t.test('an aborted signal before the first byte: the stream errors at once', async (t) => {
  const stream = new WirefoldStream({ output: 'final', signal: AbortSignal.abort() });
  const err = (await readAll(source(['data: {}\n\n']).pipeThrough(stream)).catch((e: unknown) => e)) as StreamError;
  t.equal(err.code, 'aborted');
});

t.test('a failure: the items before it are read first, then the error (never a normal end)', async (t) => {
  const stream = new SseFramerStream();
  const writer = stream.writable.getWriter();
  void writer.write('data: one\n\ndata: two\n\n');
  // (a number is no chunk: ChunkTypeError)
  void writer.write(42 as unknown as string).catch(() => {});
  const reader = stream.readable.getReader();
  t.equal((await reader.read()).value?.data, 'one');
  t.equal((await reader.read()).value?.data, 'two');
  const err = (await reader.read().catch((e: unknown) => e)) as StreamError;
  t.equal(err.code, 'invalid_chunk');
});

t.test('strict mode: an error event fails the stream after what came before it', async (t) => {
  const body = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":0}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
  const out: unknown[] = [];
  const err = await source([body])
    .pipeThrough(new WirefoldStream({ strict: true }))
    .pipeTo(new WritableStream({ write: (x) => void out.push(x) }))
    .then(() => null, (e: StreamError) => e);
  t.equal(err?.code, 'overloaded_error');
  t.match(out[0], { type: 'start' }, 'the events before the error were delivered');
});

t.test('options are checked at construction', (t) => {
  t.throws(() => new WirefoldStream({ outptu: 'final' } as never), { code: 'invalid_option', message: /did you mean "output"/ });
  t.throws(() => new WirefoldStream({ to: 'openai-chat' } as never), { code: 'invalid_option', message: /unknown option "to"/ });
  t.throws(() => new SseFramerStream({ highWaterMark: -1 }), { code: 'invalid_option' });
  t.throws(() => new TranscodeStream({ to: 'nope' as never }), { code: 'invalid_option' });
  t.end();
});

t.test('events() and finals() read a web stream and a fetch Response', async (t) => {
  const f = SSE[0]!;
  const want = [];
  for await (const r of finals(f.bytes)) want.push(r);
  const fromStream = [];
  for await (const r of finals(source(fixedChunks(f.bytes, 100)) as ReadableStream<Uint8Array>)) fromStream.push(r);
  const fromResponse = [];
  for await (const r of finals(new Response(new Uint8Array(f.bytes)))) fromResponse.push(r);
  t.same(fromStream, want);
  t.same(fromResponse, want);
});
