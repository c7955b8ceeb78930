/**
 * `signal`: aborting ends reading at once, releases the source and ends with
 * an AbortError (code `aborted`): a partial final in final mode, never a
 * source_error wrapping the platform's AbortError.
 */
import t, { type Test } from 'tap';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getEventListeners } from 'node:events';
import { AbortError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { events, finals } from '../../lib/pipeline/iterate.js';
import { fixture } from '../helpers/corpus.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
/** The capture up to the middle of its tool call's arguments: a response that is open when the abort comes. */
const head = tool.subarray(0, tool.indexOf('input_json_delta') + 200);

/** A Node source that gives `head`, then waits forever (a model still thinking); records whether it was destroyed. */
function stalledNode(): { source: Readable; destroyed: () => boolean } {
  const source = new PassThrough();
  source.write(head);
  return { source, destroyed: () => source.destroyed };
}

/** A web source that gives `head`, then never answers a read; records its cancel. */
function stalledWeb(): { source: ReadableStream<Uint8Array>; cancelled: () => unknown } {
  let reason: unknown = null;
  let sent = false;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(new Uint8Array(head));
      }
      return new Promise(() => {}); // never settles
    },
    cancel(r) {
      reason = r ?? 'cancelled';
    },
  });
  return { source, cancelled: () => reason };
}

function collect<T>(out: T[]): Writable {
  return new Writable({
    objectMode: true,
    write(x: T, _e, done) {
      out.push(x);
      done();
    },
  });
}

function checkPartialFinal(t: Test, got: FinalResult[]): void {
  t.equal(got.length, 1, 'one partial final');
  const f = got[0]!;
  t.equal(f.stopReason, 'error');
  t.equal(f.errors[0]?.code, 'aborted', 'the abort is the first error');
  // (the tool call cut mid-arguments adds invalid_tool_arguments, as any cut does)
  t.notOk(f.errors.some((e) => e.code === 'source_error'), 'no source_error');
  t.match(f.text, /Let me check the weather/, 'with what came before the abort');
}

t.test('createStream: a stalled source in stream.pipeline, aborted: the partial final, then an AbortError; the source destroyed', async (t) => {
  const { source, destroyed } = stalledNode();
  const ac = new AbortController();
  const got: FinalResult[] = [];
  const stream = createStream({ output: 'final', signal: ac.signal });
  setTimeout(() => ac.abort(new Error('user hung up')), 30);
  const err = await pipeline(source, stream, collect(got)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, AbortError);
  t.match(err, { name: 'AbortError', code: 'aborted' });
  t.match((err as Error).cause, { message: 'user hung up' }, "the signal's reason is the cause");
  checkPartialFinal(t, got);
  t.ok(destroyed(), 'the source is destroyed');
});

t.test('createStream: events mode gives the terminal aborted error and the done of the open response', async (t) => {
  const { source } = stalledNode();
  const ac = new AbortController();
  const got: UnifiedEvent[] = [];
  setTimeout(() => ac.abort(), 30);
  const err = await pipeline(source, createStream({ signal: ac.signal }), collect(got)).catch((e: unknown) => e);
  t.match(err, { code: 'aborted' });
  t.match(
    got.filter((e) => e.type === 'error'),
    [{ type: 'error', code: 'aborted', terminal: true }],
  );
  t.match(got.at(-1), { type: 'done', stopReason: 'error' }, 'the open response is closed');
  t.notOk(got.some((e) => e.type === 'error' && e.code === 'source_error'), 'no source_error');
});

t.test('createStream: a signal aborted before the start reads nothing: the abort alone (as a final of its own), then the AbortError', async (t) => {
  const ac = new AbortController();
  ac.abort();
  const got: FinalResult[] = [];
  let pulled = 0;
  const source = Readable.from(
    (function* () {
      pulled++;
      yield tool;
    })(),
  );
  const err = await pipeline(source, createStream({ output: 'final', signal: ac.signal }), collect(got)).catch((e: unknown) => e);
  t.match(err, { name: 'AbortError', code: 'aborted' });
  t.match(got, [{ dialect: null, text: '', stopReason: 'error', errors: [{ code: 'aborted' }] }], 'as a source error outside a response is reported');
  t.ok(pulled <= 1, 'the source was not read on');
});

t.test('createStream: an abort after the end changes nothing', async (t) => {
  const ac = new AbortController();
  const got: FinalResult[] = [];
  const stream = createStream({ output: 'final', signal: ac.signal });
  await pipeline(Readable.from([tool]), stream, collect(got));
  ac.abort();
  t.equal(got.length, 1);
  t.equal(got[0]!.stopReason, 'tool_use');
  t.equal(stream.destroyed, true, 'closed normally');
  t.notOk(stream.errored, 'not errored');
});

for (const kind of ['node', 'web'] as const) {
  t.test(`finals() over a ${kind} source that never answers: aborting ends the loop at once with the partial final, then the AbortError`, async (t) => {
    const ac = new AbortController();
    const node = kind === 'node' ? stalledNode() : null;
    const web = kind === 'web' ? stalledWeb() : null;
    const got: FinalResult[] = [];
    setTimeout(() => ac.abort(), 30);
    const started = Date.now();
    const err = await (async () => {
      for await (const f of finals(node?.source ?? web!.source, { signal: ac.signal })) got.push(f);
    })().catch((e: unknown) => e);
    t.ok(Date.now() - started < 2000, 'ends at once');
    t.type(err, AbortError);
    t.match(err, { code: 'aborted' });
    checkPartialFinal(t, got);
    if (node !== null) t.ok(node.destroyed(), 'the Node stream is destroyed');
    else t.ok(web!.cancelled(), 'the web stream is cancelled');
  });
}

t.test('events(): lenient, the terminal error event and the done come before the throw; strict throws the AbortError alone', async (t) => {
  for (const strict of [false, true]) {
    const ac = new AbortController();
    const got: UnifiedEvent[] = [];
    const err = await (async () => {
      for await (const ev of events(stalledNode().source, { signal: ac.signal, strict })) {
        got.push(ev);
        if (ev.type === 'tool_call_start') ac.abort(); // from inside the loop, between two events
      }
    })().catch((e: unknown) => e);
    t.match(err, { name: 'AbortError', code: 'aborted' }, `strict ${strict}`);
    const errors = got.filter((e) => e.type === 'error');
    t.same(errors.map((e) => e.type === 'error' && e.code), strict ? [] : ['aborted'], `strict ${strict}: error events`);
    t.equal(got.at(-1)!.type, strict ? 'tool_call_start' : 'done', `strict ${strict}: last event`);
  }
});

t.test('events() with an already aborted signal reads nothing', async (t) => {
  const ac = new AbortController();
  ac.abort();
  let pulled = 0;
  const source = (async function* () {
    pulled++;
    yield tool;
  })();
  const got: UnifiedEvent[] = [];
  const err = await (async () => {
    for await (const ev of events(source, { signal: ac.signal })) got.push(ev);
  })().catch((e: unknown) => e);
  t.match(err, { code: 'aborted' });
  t.equal(pulled, 0, 'the source was never read');
  t.match(got, [{ type: 'error', code: 'aborted', terminal: true }], 'the abort alone');
});

t.test('a signal that never aborts changes nothing and leaves no listener', async (t) => {
  const ac = new AbortController();
  const plain: FinalResult[] = [];
  for await (const f of finals([tool])) plain.push(f);
  const withSignal: FinalResult[] = [];
  for await (const f of finals([tool], { signal: ac.signal })) withSignal.push(f);
  t.same(withSignal, plain);
  const stream = createStream({ output: 'final', signal: ac.signal });
  await pipeline(Readable.from([tool]), stream, collect([]));
  // Node counts abort listeners on the signal: none of ours may remain.
  t.equal(getEventListeners(ac.signal, 'abort').length, 0, 'no abort listener left');
});
