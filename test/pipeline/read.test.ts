/**
 * read(): one reading gives the live events and the final result, equal to
 * what events() and finals() give separately, at any chunking.
 */
import t from 'tap';
import { PassThrough, Readable } from 'node:stream';
import { AbortError, StreamError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { events, finals } from '../../lib/pipeline/iterate.js';
import { read } from '../../lib/pipeline/read.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { fixedChunks, randomChunks } from '../helpers/chunks.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
const chat = fixture('openai-chat/text-usage.sse');

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

t.test('iterated, then final(): the events of events() and the final of finals(), at several chunkings', async (t) => {
  for (const chunks of [[tool], fixedChunks(tool, 1), fixedChunks(tool, 97), randomChunks(tool, 7)]) {
    const reading = read(chunks);
    const got = await all(reading);
    t.same(got, await all(events(chunks)), `${chunks.length} chunks: events`);
    const [want] = await all(finals(chunks));
    t.same(await reading.final(), want, `${chunks.length} chunks: final`);
    t.same(await reading.finals(), [want]);
  }
  const final = await read([tool]).final();
  t.equal(final.stopReason, 'tool_use');
  t.same(final.toolCalls.map((c) => [c.name, c.arguments]), [['get_weather', { city: 'Paris', unit: 'celsius' }]]);
});

t.test('final() alone reads the input itself', async (t) => {
  const source = Readable.from(fixedChunks(tool, 64));
  const final = await read(source).final();
  t.same(final, (await all(finals([tool])))[0]);
  t.equal(source.readableEnded, true, 'the source was read to its end');
});

t.test('final() awaited while another part of the program iterates settles when the loop ends', async (t) => {
  const reading = read(fixedChunks(tool, 50));
  const finalP = reading.final();
  let n = 0;
  for await (const _ of reading) n++;
  t.ok(n > 5);
  t.equal((await finalP).stopReason, 'tool_use');
});

t.test('several responses: finals() gives each, final() the last', async (t) => {
  const log = Buffer.concat([tool, chat]);
  const want = await all(finals([log]));
  t.equal(want.length, 2);
  const reading = read([log]);
  t.same(await reading.finals(), want);
  t.same(await reading.final(), want[1]);
});

t.test('every corpus capture: read() gives events() and finals()', async (t) => {
  const files = corpusFiles();
  t.ok(files.length > 100, 'the corpus is there');
  for (const f of files) {
    const chunks = fixedChunks(f.bytes, 512);
    const reading = read(chunks);
    let got: UnifiedEvent[];
    try {
      got = await all(reading);
    } catch (err) {
      // a capture that fails the loop fails events() the same way, and final() with it
      await t.rejects(all(events(chunks)), { code: (err as StreamError).code }, f.name);
      await t.rejects(reading.final(), err as Error);
      continue;
    }
    t.same(got, await all(events(chunks)), `${f.name}: events`);
    t.same(await reading.finals(), await all(finals(chunks)), `${f.name}: finals`);
  }
});

t.test('an input with no response: finals() is empty, final() rejects with no_response', async (t) => {
  t.same(await read([]).finals(), []);
  await t.rejects(read([]).final(), { name: 'StreamError', code: 'no_response' });
  await t.rejects(read(['\n\n']).final(), { code: 'no_response' });
});

t.test('the events can be iterated once, and not after final() began reading', async (t) => {
  const a = read([tool]);
  a[Symbol.asyncIterator]();
  t.throws(() => a[Symbol.asyncIterator](), TypeError);
  const b = read([tool]);
  void b.final();
  await Promise.resolve();
  t.throws(() => b[Symbol.asyncIterator](), { name: 'TypeError', message: /iterated once/ });
});

t.test('leaving the loop early releases the source; final() then rejects with an AbortError', async (t) => {
  const source = new PassThrough();
  source.write(tool);
  const reading = read(source);
  for await (const ev of reading) if (ev.type === 'start') break;
  t.ok(source.destroyed, 'the source is destroyed');
  await t.rejects(reading.final(), AbortError);
});

t.test('a source that fails: the loop throws source_error after the partial events, final() rejects with it; no unhandled rejection when final() is never called', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => {
    unhandled.push(e);
  };
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => process.off('unhandledRejection', onUnhandled));
  const failing = (): AsyncIterable<Buffer> =>
    (async function* () {
      yield tool.subarray(0, 500);
      throw new Error('connection reset');
    })();
  const reading = read(failing());
  const got: UnifiedEvent[] = [];
  const err = await (async () => {
    for await (const ev of reading) got.push(ev);
  })().catch((e: unknown) => e);
  t.match(err, { code: 'source_error', message: /connection reset/ });
  t.match(got.at(-1), { type: 'done', stopReason: 'error' });
  await t.rejects(reading.final(), { code: 'source_error' });
  // only iterated, final() never called
  await (async () => {
    for await (const _ of read(failing()));
  })().catch(() => {});
  await new Promise((r) => setTimeout(r, 20));
  t.same(unhandled, []);
});

t.test('an accumulator limit fails the reading as it fails final mode', async (t) => {
  const reading = read([tool], { maxTextBytes: 10 });
  await t.rejects(reading.final(), { name: 'LimitExceededError', code: 'limit_exceeded' });
});

t.test('signal: an abort fails the loop and final() with the AbortError', async (t) => {
  const ac = new AbortController();
  const source = new PassThrough();
  source.write(tool.subarray(0, 600));
  const reading = read(source, { signal: ac.signal });
  setTimeout(() => ac.abort(), 20);
  await t.rejects(reading.final(), { name: 'AbortError', code: 'aborted' });
  t.ok(source.destroyed);
});

t.test('a bad source or option is refused at the call', (t) => {
  t.throws(() => read(42 as never), { code: 'invalid_option' });
  t.throws(() => read([tool], { output: 'final' } as never), { code: 'invalid_option', message: /unknown option "output" for read\(\)/ });
  t.end();
});

t.test('a lenient error body resolves final() with the error in it (as finals() gives it)', async (t) => {
  const body = Buffer.from('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
  const want = await all(finals([body]));
  const final = await read([body]).final();
  t.same(final, want.at(-1));
  t.ok(final.errors.length > 0);
  t.type(StreamError, 'function');
});

t.test('a whole input in memory (Buffer, Uint8Array, string) is one chunk, as an array of chunks is', async (t) => {
  const expected = await read([tool]).finals();
  t.equal(expected.length, 1);
  t.ok(expected[0]!.toolCalls.length > 0);
  t.strictSame(await read(tool).finals(), expected, 'a Buffer');
  t.strictSame(await read(new Uint8Array(tool)).finals(), expected, 'a Uint8Array');
  t.strictSame(await read(tool.toString('utf8')).finals(), expected, 'a string');
  const seen: FinalResult[] = [];
  for await (const f of finals(tool)) seen.push(f);
  t.strictSame(seen, expected, 'finals() of a Buffer');
  let n = 0;
  for await (const ev of events(chat)) if (ev.type === 'done') n++;
  t.equal(n, 1, 'events() of a Buffer');
});
