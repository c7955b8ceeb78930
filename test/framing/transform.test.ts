import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sseFramer, jsonArrayFramer } from '../../lib/pipeline/framers.js';
import type { Frame } from '../../lib/events.js';

function sseSource(events: number, onRead: (bytes: number) => void): Readable {
  let i = 0;
  return new Readable({
    highWaterMark: 16 * 1024,
    read() {
      if (i >= events) {
        this.push(null);
        return;
      }
      const chunk = Buffer.from(`data: {"n":${i++},"pad":"${'x'.repeat(200)}"}\n\n`);
      onRead(chunk.length);
      this.push(chunk);
    },
  });
}

t.test('a slow consumer keeps the producer paused (bounded buffered bytes)', async (t) => {
  let produced = 0;
  const total = 20000;
  const framer = sseFramer();
  let consumed = 0;
  let consumedBytes = 0;
  let maxAhead = 0;
  await pipeline(
    sseSource(total, (n) => {
      produced += n;
    }),
    framer,
    new Writable({
      objectMode: true,
      highWaterMark: 4,
      write(frame: Frame, _enc, cb) {
        consumed++;
        consumedBytes += Buffer.byteLength(frame.data) + 8;
        const ahead = produced - consumedBytes;
        if (ahead > maxAhead) maxAhead = ahead;
        setImmediate(cb);
      },
    }),
  );
  t.equal(consumed, total);
  // 20000 events are ~4.4 MB; the producer may never run more than a few buffers ahead.
  t.ok(maxAhead < 128 * 1024, `producer ran at most ${maxAhead} bytes ahead of the consumer`);
});

// The next stage receives every complete frame before the error; what a pipeline's
// later stages still hold in their own buffers when it tears down is up to pipeline.
t.test('frames completed before a fatal error reach the next stage, then the typed error', async (t) => {
  const got: Frame[] = [];
  const err = await pipeline(
    Readable.from([Buffer.from('[{"a":1},{"b":2} oops')]),
    jsonArrayFramer(),
    new Writable({
      objectMode: true,
      write(frame: Frame, _enc, cb) {
        got.push(frame);
        cb();
      },
    }),
  ).catch((e: unknown) => e);
  t.match(err, { name: 'JsonArrayError', code: 'invalid_json_array', offset: 17 });
  t.same(
    got.map((f) => f.data),
    ['{"a":1}', '{"b":2}'],
  );
});

t.test('for await sees the complete frames before the error', async (t) => {
  const framer = sseFramer({ maxFrameBytes: 32 });
  framer.end(Buffer.from(`data: a\n\ndata: b\n\ndata: ${'x'.repeat(100)}\n\n`));
  const got: string[] = [];
  await t.rejects(
    (async () => {
      for await (const f of framer as AsyncIterable<Frame>) got.push(f.data);
    })(),
    { name: 'FrameTooLargeError', offset: 18 },
  );
  t.same(got, ['a', 'b']);
});
