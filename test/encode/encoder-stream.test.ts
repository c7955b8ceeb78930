/** encoder() as a Transform: events in, the target's bytes out, a 'loss' event per response that lost something. */
import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { encoder } from '../../lib/pipeline/encoder.js';
import type { LossReport } from '../../lib/encode/types.js';
import { corpusFile } from '../helpers/corpus.js';
import { read } from '../../lib/pipeline/read.js';

t.test('a Responses capture with reasoning → openai-chat through stream.pipeline; the loss event names the reasoning', async (t) => {
  const bytes = corpusFile('openai-responses/pydantic-ai--reasoning-summary.sse');
  const chunks: Buffer[] = [];
  const losses: LossReport[] = [];
  const enc = encoder({ to: 'openai-chat', onLoss: (r) => losses.push(r) });
  const emitted: LossReport[] = [];
  enc.on('loss', (r: LossReport) => emitted.push(r));
  // 7-byte chunks: the reading side's framing must not matter
  const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
  await pipeline(
    Readable.from(pieces),
    createStream(),
    enc,
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    }),
  );
  const out = Buffer.concat(chunks).toString('utf8');
  t.match(out, /^data: \{"id":"resp_/);
  t.ok(out.endsWith('data: [DONE]\n\n'));
  t.equal(losses.length, 1);
  t.strictSame(emitted, losses, "the 'loss' event carries the same report");
  t.equal(losses[0]!.to, 'openai-chat');
  t.ok(losses[0]!.dropped.some((d) => d.what === 'reasoning' && d.count > 0));
  const original = await read(bytes).final();
  const back = await read(Buffer.from(out), { dialect: 'openai-chat' }).final();
  t.equal(back!.text, original!.text);
  t.equal(back!.reasoning, '');
  t.strictSame(back!.usage, original!.usage);
});

t.test('strict: the stream fails with a lossy_encoding StreamError', async (t) => {
  const bytes = corpusFile('openai-responses/pydantic-ai--reasoning-summary.sse');
  await t.rejects(
    pipeline(Readable.from([bytes]), createStream(), encoder({ to: 'openai-chat', strict: true }), new Writable({ write: (_c, _e, cb) => cb() })),
    { name: 'StreamError', code: 'lossy_encoding' },
  );
});
