/**
 * WarmSlot (lib/warm.ts): each kind of per-stream stage keeps its last
 * finished instance so that V8 keeps its optimized code. What it must never
 * keep is the stream around it: after every capture of the corpus has been
 * read (final, events and a target wire), a full GC leaves none of the
 * Transforms, their consumers, their outputs or the input's chunks alive.
 */
import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WarmSlot } from '../../lib/warm.js';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { corpusFiles } from '../helpers/corpus.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

t.test('WarmSlot holds the last instance of each kind, and only that one', async (t) => {
  const slot = new WarmSlot();
  const a = {};
  const b = {};
  const c = {};
  slot.hold(a, 'sse');
  slot.hold(b, 'sse');
  slot.hold(c, 'json-array');
  t.equal(slot.held('sse'), b);
  t.equal(slot.held('json-array'), c);
  t.equal(slot.held(), undefined);
  let dropped = new WeakRef({});
  (() => {
    const first = { big: new Uint8Array(1 << 20) };
    dropped = new WeakRef(first);
    slot.hold(first, 'k');
    slot.hold({}, 'k');
  })();
  await new Promise((r) => setImmediate(r));
  gc();
  t.equal(dropped.deref(), undefined, 'the instance replaced is released');
});

t.test('reading streams leaves none of them reachable', async (t) => {
  const files = corpusFiles().filter((f) => /\.(sse|json|jsonl|ndjson)$/.test(f.name));
  t.ok(files.length > 50, `${files.length} captures`);
  const refs: { name: string; what: string; ref: WeakRef<object> }[] = [];
  const modes = [{ output: 'final' as const }, { output: 'events' as const }, { to: 'openai-responses' as const }, { to: 'anthropic-messages' as const }];
  for (const file of files) {
    for (const mode of modes) {
      await (async () => {
        const stream = createStream(mode);
        stream.on('error', () => {});
        const items: unknown[] = [];
        const sink = new Writable({
          objectMode: true,
          write(item, _enc, cb) {
            items.push(item);
            cb();
          },
        });
        // (copies: a view of file.bytes would live on with it)
        const chunks = [Buffer.from(file.bytes.subarray(0, 700)), Buffer.from(file.bytes.subarray(700))];
        const what = JSON.stringify(mode);
        chunks.forEach((c, i) => refs.push({ name: file.name, what: `${what} input chunk ${i}`, ref: new WeakRef(c) }));
        await pipeline(Readable.from(chunks), stream, sink).catch(() => {});
        refs.push({ name: file.name, what: `${what} stream`, ref: new WeakRef(stream) });
        refs.push({ name: file.name, what: `${what} consumer`, ref: new WeakRef(sink) });
        refs.push({ name: file.name, what: `${what} outputs`, ref: new WeakRef(items) });
      })();
    }
  }
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  const alive = refs.filter((r) => r.ref.deref() !== undefined).map((r) => `${r.name} ${r.what}`);
  t.same(alive, [], 'no stream, consumer, output or input chunk outlives its reading');
});
