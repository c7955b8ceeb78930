/**
 * An SSE input with no event at all but lines that are not SSE fields (an
 * HTML error page from a proxy, a plain-text body) ends in a terminal
 * `not_a_stream` error and done(error), never in silence: in the fused
 * stage (createStream, and compose() of the separate stages) at every
 * chunking, in final mode and strict. The separate stages piped one into the
 * other yield nothing: a standalone framer yields only frames, and there are
 * none.
 */
import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { autoFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { finalAccumulator } from '../../lib/pipeline/accumulators.js';
import { compose } from '../../lib/pipeline/compose.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { StreamError } from '../../lib/errors.js';
import type { Frame, UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { chunkings, randomChunks } from '../helpers/chunks.js';

const page = Buffer.from('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body>\r\n</html>\r\n');

async function collect<T>(stream: AsyncIterable<unknown>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of stream) out.push(x as T);
  return out;
}

t.test('an HTML error page: not_a_stream with the first line and its offset, then done(error), at every chunking', async (t) => {
  const want: UnifiedEvent[] = [
    {
      type: 'error',
      code: 'not_a_stream',
      message: `no stream event in ${page.length} bytes of input: the line at byte 0 is not an SSE field ("<html>")`,
      terminal: true,
      raw: '<html>',
    },
    { type: 'done', stopReason: 'error', providerReason: null },
  ];
  let bad = 0;
  for (const { name, chunks } of chunkings(page)) {
    for (const fastPath of [true, false]) {
      const got = decodeAll(chunks, { fastPath } as object);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        if (bad++ === 0) t.same(got, want, `${name}, fast path ${fastPath}`);
      }
    }
  }
  t.equal(bad, 0, 'the same two events under every chunking');
  t.same(decodeAll([page], { framing: 'sse' }), want, 'with the framing named');
});

t.test('positions: the error is at frame 0, the byte of the first such line', async (t) => {
  const input = Buffer.concat([Buffer.from(': a comment\n\n'), page]);
  const [err] = decodeAll([input], { positions: true });
  t.match(err, { type: 'error', code: 'not_a_stream', at: { frame: 0, offset: 13 }, raw: '<html>' });
  t.match((err as { message: string }).message, /the line at byte 13 /);
});

t.test('the first line is kept to 80 bytes; the message names the bytes read', async (t) => {
  const long = Buffer.from('x'.repeat(300) + '\n' + 'y'.repeat(50) + '\n');
  const [err] = decodeAll(randomChunks(long, 7, 40));
  t.match(err, { code: 'not_a_stream', raw: 'x'.repeat(80) });
  t.match((err as { message: string }).message, /^no stream event in 352 bytes of input/);
});

t.test('inputs that stay silent: SSE with no data event is still SSE', async (t) => {
  for (const [name, input] of [
    ['empty', ''],
    ['blank lines', '\n\r\n\n'],
    ['comments (keep-alives) only', ': ping\n\n: ping\n\n'],
    ['event and id lines without data', 'event: ping\nid: 7\nretry: 1000\n\n'],
  ] as const) {
    t.same(decodeAll([Buffer.from(input)]), [], name);
  }
});

t.test('lines that are not fields beside real events are ignored, as WHATWG says', async (t) => {
  const input = Buffer.from('junk before\ndata: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\nmore junk\n\ndata: [DONE]\n\n');
  const evs = decodeAll([input]);
  t.notOk(evs.some((e) => e.type === 'error'), 'no error');
  t.match(evs, [{ type: 'start' }, { type: 'text_delta', text: 'hi' }, { type: 'done', stopReason: 'end' }]);
});

t.test('other framings report bad input their own way (not_a_stream is SSE only)', async (t) => {
  const evs = await collect<UnifiedEvent>(Readable.from([Buffer.from('[{"candidates": tru')]).pipe(createStream()));
  t.match(
    evs.filter((e) => e.type === 'error'),
    [{ code: 'invalid_json_array' }],
    'a JSON array cut short is an invalid_json_array error already',
  );
});

t.test('final mode: one failed result carrying the error', async (t) => {
  const finals = await collect<FinalResult>(Readable.from([page]).pipe(createStream({ output: 'final' })));
  t.equal(finals.length, 1);
  t.match(finals[0], { dialect: null, stopReason: 'error', errors: [{ code: 'not_a_stream' }] });
});

t.test('strict: a typed StreamError', async (t) => {
  const err = await pipeline(
    Readable.from([page]),
    createStream({ strict: true }),
    new Writable({ objectMode: true, write: (_e, _enc, cb) => cb() }),
  ).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof StreamError);
  t.equal((err as StreamError).code, 'not_a_stream');
});

t.test('compose() of the separate stages is the fused stage: it gives the fused events', async (t) => {
  const want = decodeAll([page]);
  for (const framer of [sseFramer, autoFramer]) {
    for (const seed of [1, 2]) {
      const got: UnifiedEvent[] = [];
      await pipeline(
        Readable.from(randomChunks(page, seed, 9)),
        compose(framer(), decoder(), normalizer()),
        new Writable({ objectMode: true, write: (e: UnifiedEvent, _enc, cb) => (got.push(e), cb()) }),
      );
      t.same(got, want, `${framer.name}, seed ${seed}`);
    }
  }
  const finals: FinalResult[] = [];
  await pipeline(
    Readable.from([page]),
    compose(sseFramer(), decoder(), normalizer(), finalAccumulator()),
    new Writable({ objectMode: true, write: (r: FinalResult, _enc, cb) => (finals.push(r), cb()) }),
  );
  t.match(finals, [{ stopReason: 'error', errors: [{ code: 'not_a_stream' }] }], 'and into a final accumulator');
});

t.test('the separate stages piped one into the other yield nothing', async (t) => {
  const events = await collect<unknown>(Readable.from([page]).pipe(sseFramer()).pipe(decoder()).pipe(normalizer()));
  t.same(events, []);
  const finals = await collect<unknown>(Readable.from([page]).pipe(autoFramer()).pipe(decoder()).pipe(normalizer()).pipe(finalAccumulator()));
  t.same(finals, [], 'nor a final accumulator after them');
});

t.test('a framer yields frames only: none here', async (t) => {
  const frames = await collect<Frame>(Readable.from([page]).pipe(sseFramer()));
  t.same(frames, []);
  const events = await collect<unknown>(Readable.from([page]).pipe(sseFramer()).pipe(decoder()));
  t.same(events, [], 'a decoder passes on provider events only');
});

t.test('payloads that are not objects (`data: 42`) and nothing else: unknown_dialect, not silence; before a recognised payload they stay raw, in order', async (t) => {
  const { stable } = await import('../helpers/decode.js');
  const { fixture } = await import('../helpers/corpus.js');
  const numbers = Buffer.from('data: 42\n\ndata: "text"\n\ndata: [1,2]\n\n');
  const evs = stable(t, numbers);
  t.same(
    evs.map((e) => (e.type === 'raw' ? e.event : e.type === 'error' ? e.code : e.type)),
    [42, 'text', [1, 2], 'unknown_dialect'],
    'kept as raw events, then the error',
  );
  t.match(evs[3], { type: 'error', code: 'unknown_dialect', terminal: false, message: 'could not tell the dialect from the first 3 payloads' });
  const finals = await collect<FinalResult>(Readable.from([numbers]).pipe(createStream({ output: 'final' })));
  t.match(finals, [{ dialect: null, stopReason: 'error', errors: [{ code: 'unknown_dialect' }] }], 'final mode: one final with the error');
  // before an OpenAI stream: raw, then the stream as without it, and no error
  const chat = fixture('openai-chat/text-usage.sse');
  const both = decodeAll([Buffer.concat([Buffer.from('data: 42\n\n'), chat])], {});
  t.same(both[0], { type: 'raw', event: 42 }, 'the number first, as a raw event');
  t.same(both.slice(1), decodeAll([chat], {}), 'then the stream itself');
  t.notOk(both.some((e) => e.type === 'error'), 'no error: the dialect was found');
});
