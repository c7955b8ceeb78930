import t from 'tap';
import { Readable } from 'node:stream';
import { events, finals } from '../../lib/pipeline/iterate.js';
import { createEventsStage, decodeAll } from '../../lib/pipeline/events-stage.js';
import { StreamError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { corpusFile, fixture } from '../helpers/corpus.js';
import { fixedChunks } from '../helpers/chunks.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
const chunks = fixedChunks(tool, 97);

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function webStream(parts: Buffer[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < parts.length) c.enqueue(new Uint8Array(parts[i++]!));
      else c.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

t.test('events() and finals() read every kind of source the same way', async (t) => {
  const want = decodeAll([tool]);
  t.same(await all(events(Readable.from(chunks))), want, 'Node Readable');
  t.same(await all(events(webStream(chunks))), want, 'web ReadableStream');
  t.same(await all(events(new Response(webStream(chunks)))), want, 'fetch Response');
  t.same(
    await all(
      events(
        (async function* () {
          yield* chunks;
        })(),
      ),
    ),
    want,
    'async iterable',
  );
  t.same(await all(events(chunks)), want, 'sync iterable of chunks');
  const f = await all(finals(Readable.from(chunks)));
  t.equal(f.length, 1);
  t.equal(f[0]?.toolCalls[0]?.name, 'get_weather');
});

t.test('a source that fails mid-response: complete events, the partial final, then a typed source_error', async (t) => {
  const half = tool.subarray(0, 1400);
  const failing = (): AsyncGenerator<Buffer> =>
    (async function* () {
      yield half;
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    })();

  const got: UnifiedEvent[] = [];
  const err = await (async () => {
    for await (const ev of events(failing())) got.push(ev);
  })().catch((e: unknown) => e);
  t.type(err, StreamError);
  t.match(err, { code: 'source_error', message: /socket hang up/ });
  // What the input held: events complete while reading, then what closing the open response adds.
  const stage = createEventsStage({ flushIncomplete: false });
  const complete: UnifiedEvent[] = [];
  const closing: UnifiedEvent[] = [];
  stage.push(half, (e) => complete.push(e));
  stage.abandon((e) => closing.push(e));
  t.match(closing.at(-1), { type: 'done', stopReason: 'error' });
  const sourceError = got[complete.length];
  t.same(got.slice(0, complete.length), complete, 'every complete event came first, nothing from the cut frame');
  t.match(sourceError, { type: 'error', code: 'source_error', terminal: true });
  t.same(got.slice(complete.length + 1), closing, 'then the open response is closed: what the handler owed, done(error)');

  const partial: FinalResult[] = [];
  const err2 = await (async () => {
    for await (const f of finals(failing())) partial.push(f);
  })().catch((e: unknown) => e);
  t.match(err2, { code: 'source_error' });
  t.equal(partial.length, 1);
  t.match(partial[0], { stopReason: 'error', reasoning: /The user wants the weather/ });
  t.same(
    partial[0]?.errors.map((e) => e.code),
    ['source_error'],
  );
});

t.test('strict: the iteration throws the typed error of the first error event', async (t) => {
  const err = await all(events([fixture('anthropic-messages/overloaded-error.sse')], { strict: true })).catch((e: unknown) => e);
  t.match(err, { name: 'StreamError', code: 'overloaded_error' });
});

t.test('breaking out early releases the source (no listener or stream left behind)', async (t) => {
  // Baseline: what Node's own Readable iterator leaves on a destroyed stream after a break.
  const plain = Readable.from(chunks);
  for await (const c of plain) {
    void c;
    break;
  }
  const resourcesBefore = process.getActiveResourcesInfo().length;
  const source = Readable.from(chunks);
  for await (const ev of events(source)) {
    if (ev.type === 'text_delta') break;
  }
  await new Promise((r) => setImmediate(r));
  t.ok(source.destroyed, 'the Node Readable is destroyed');
  for (const name of ['data', 'readable', 'error', 'end', 'close']) {
    t.equal(source.listenerCount(name), plain.listenerCount(name), `no '${name}' listener beyond Node's own iterator`);
  }
  t.equal(process.getActiveResourcesInfo().length, resourcesBefore, 'no timer or handle left behind');

  let cancelled = false;
  const web = webStream(chunks, () => {
    cancelled = true;
  });
  for await (const ev of finals(web)) void ev;
  t.notOk(cancelled, 'a stream read to the end is not cancelled');
  const web2 = webStream(chunks, () => {
    cancelled = true;
  });
  for await (const ev of events(web2)) {
    if (ev.type === 'start') break;
  }
  t.ok(cancelled, 'the web stream is cancelled');
  t.notOk(web2.locked, 'and its reader released');

  let finished = false;
  const gen = (async function* () {
    try {
      yield* chunks;
    } finally {
      finished = true;
    }
  })();
  for await (const ev of events(gen)) {
    if (ev.type === 'start') break;
  }
  t.ok(finished, "the async iterable's finally ran");
});

t.test('a Response that is not ok: its body errors come out as they are; with none, an http_error ends the output', async (t) => {
  const codes = (evs: UnifiedEvent[]): string[] => evs.filter((e) => e.type === 'error').map((e) => (e.type === 'error' ? e.code : ''));
  // an empty 401: silent before
  const empty = await all(events(new Response(null, { status: 401, statusText: 'Unauthorized' })));
  t.same(empty, [{ type: 'error', code: 'http_error', message: 'HTTP 401 Unauthorized: the body is empty', terminal: true, status: 401 }]);
  const emptyFinal = await all(finals(new Response('', { status: 401 })));
  t.equal(emptyFinal.length, 1, 'final mode: one final for the failed request');
  t.same(emptyFinal[0]?.errors, [{ code: 'http_error', message: 'HTTP 401: the body is empty', status: 401 }]);
  t.match(emptyFinal[0], { dialect: null, stopReason: 'error' });

  // a body that is a stream with no error in it, under a failing status
  const whole = await all(events(new Response(webStream(chunks), { status: 500, statusText: 'Internal Server Error' })));
  t.same(whole.slice(0, -1), decodeAll([tool]), 'the body is read as it is');
  t.same(whole.at(-1), {
    type: 'error',
    code: 'http_error',
    message: `HTTP 500 Internal Server Error: the body (${tool.length} bytes) held no error`,
    terminal: true,
    status: 500,
  });
  const wholeFinal = await all(finals(new Response(webStream(chunks), { status: 500 })));
  t.equal(wholeFinal.length, 2, 'the response, then the failure as a final of its own');
  t.equal(wholeFinal[0]?.toolCalls[0]?.name, 'get_weather');
  t.same(wholeFinal[1]?.errors.map((e) => e.code), ['http_error']);

  // the body explains the failure: no second error
  const overloaded = fixture('anthropic-messages/overloaded-error.sse');
  const explained = await all(events(new Response(new Uint8Array(overloaded), { status: 529 })));
  t.same(explained, withStatus(decodeAll([overloaded]), 529), 'the same events, the error with the status');
  t.same(codes(explained), ['overloaded_error']);
  const html = await all(events(new Response('<html><body>Bad gateway</body></html>', { status: 502 })));
  t.same(codes(html), ['not_a_stream'], 'an HTML page is not_a_stream, as with any status');
  t.same((await all(finals(new Response(new Uint8Array(overloaded), { status: 529 })))).map((f) => f.errors.map((e) => [e.code, e.status])), [[['overloaded_error', 529]]]);

  // ok responses and sources without a status are unchanged: empty stays silent
  t.same(await all(events(new Response(null, { status: 200 }))), []);
  t.same(await all(events(new Response(null, { status: 204 }))), []);
  t.same(await all(events({ body: null })), []);

  const err = await all(events(new Response(null, { status: 403, statusText: 'Forbidden' }), { strict: true })).catch((e: unknown) => e);
  t.type(err, StreamError);
  t.match(err, { code: 'http_error', message: 'HTTP 403 Forbidden: the body is empty', status: 403 });
});

/** The events with `status` on each error event, as events() gives them for a Response that failed with it. */
function withStatus(evs: UnifiedEvent[], status: number): UnifiedEvent[] {
  return evs.map((e) => (e.type === 'error' ? { ...e, status } : e));
}

t.test('errors from a failed Response carry its HTTP status: a body error, the end of the body, a source failure, strict mode', async (t) => {
  // real error bodies to stream=true requests, under the status each came with (PROVENANCE.md)
  const bodies: [string, number][] = [
    ['anthropic-messages/mirascope--http404-error.body', 404],
    ['openai-chat/mirascope--http404-error.body', 404],
    ['openai-responses/mirascope--http400-error.body', 400],
    ['gemini-sse/crewai--http400-not-sse.body', 400],
    ['gemini-sse/mirascope--http404-not-sse.body', 404],
  ];
  for (const [name, status] of bodies) {
    const bytes = corpusFile(name);
    const got = await all(events(new Response(webStream(fixedChunks(bytes, 7)), { status })));
    const errs = got.filter((e) => e.type === 'error');
    t.ok(errs.length > 0, `${name}: the body gives its error`);
    t.same(got, withStatus(decodeAll([bytes]), status), `${name}: the body's events, each error with ${status}`);
    const [final] = await all(finals(new Response(new Uint8Array(bytes), { status })));
    t.ok(final !== undefined && final.errors.length > 0 && final.errors.every((e) => e.status === status), `${name}: the final's errors carry ${status}`);
    const thrown = await all(events(new Response(new Uint8Array(bytes), { status }), { strict: true })).catch((e: unknown) => e);
    t.match(thrown, { code: errs[0]!.type === 'error' ? errs[0]!.code : '', status }, `${name}: strict mode throws it with ${status}`);
  }

  // a stream cut off under a 503: incomplete_stream (lenient and strict) carries the status
  const cut = tool.subarray(0, tool.length - 40);
  const cutEvents = await all(events(new Response(new Uint8Array(cut), { status: 503 })));
  t.match(cutEvents.filter((e) => e.type === 'error'), [{ code: 'incomplete_stream', status: 503 }]);
  const cutStrict = await all(events(new Response(new Uint8Array(cut), { status: 503 }), { strict: true })).catch((e: unknown) => e);
  t.type(cutStrict, StreamError);
  t.match(cutStrict, { code: 'incomplete_stream', status: 503 });

  // the body fails mid-read under a 502: the source_error event and the thrown error carry it
  let i = 0;
  const failing = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < 3) c.enqueue(new Uint8Array(chunks[i++]!));
      else c.error(new Error('socket hang up'));
    },
  });
  const seen: UnifiedEvent[] = [];
  const thrown = await (async () => {
    for await (const ev of events(new Response(failing, { status: 502 }))) seen.push(ev);
  })().catch((e: unknown) => e);
  t.match(thrown, { code: 'source_error', status: 502 });
  t.match(seen.filter((e) => e.type === 'error'), [{ code: 'source_error', status: 502 }]);

  // what is not a failed Response gets no status: a 200 whose body errors, a plain stream, a ResponseLike without one
  const overloaded = fixture('anthropic-messages/overloaded-error.sse');
  for (const src of [new Response(new Uint8Array(overloaded)), webStream([overloaded])]) {
    const errs = (await all(events(src))).filter((e) => e.type === 'error');
    t.ok(errs.length === 1 && !('status' in errs[0]!), 'no status field');
  }
  const statusless = await all(events({ body: null, ok: false, statusText: 'Bad Gateway' }));
  t.same(statusless, [{ type: 'error', code: 'http_error', message: 'HTTP Bad Gateway: the body is empty', terminal: true }], 'no status to give');
});
