import t from 'tap';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createNdjsonFramer } from '../../lib/framing/ndjson.js';
import { ndjsonFramer } from '../../lib/pipeline/framers.js';
import type { Frame } from '../../lib/events.js';
import { chunkings } from '../helpers/chunks.js';
import { runChunks, summary } from '../helpers/run.js';

const f = (data: string, at?: Frame['at']): Frame => ({ event: 'message', data, id: '', ...(at ? { at } : {}) });

async function viaSplit2(chunks: Buffer[], options = {}): Promise<{ items: Frame[]; error: Error | null }> {
  const items: Frame[] = [];
  try {
    await pipeline(Readable.from(chunks), ndjsonFramer(options), async (source: AsyncIterable<Frame>) => {
      for await (const x of source) items.push(x);
    });
  } catch (err) {
    return { items, error: err as Error };
  }
  return { items, error: null };
}

const input = '\uFEFF{"a":1}\r\n\n  \n{"b":"é"}\n{"c":3}';
const expected = [f('{"a":1}', { frame: 0, offset: 3 }), f('{"b":"é"}', { frame: 1, offset: 16 }), f('{"c":3}', { frame: 2, offset: 27 })];

t.test('one frame per non-empty line; CRLF, blank lines, BOM, unterminated last line', (t) => {
  for (const { name, chunks } of chunkings(input)) {
    t.same(summary(runChunks(createNdjsonFramer({ positions: true }), chunks)), { items: expected, error: null }, name);
  }
  t.end();
});

t.test('the split2-based ndjsonFramer Transform gives the same frames', async (t) => {
  for (const { name, chunks } of chunkings(input, 60)) {
    const r = await viaSplit2(chunks, { positions: true });
    t.same(r, { items: expected, error: null }, name);
  }
});

t.test('both report an overlong line with FrameTooLargeError', async (t) => {
  const long = `{"a":1}\n{"t":"${'x'.repeat(300)}"}\n`;
  const core = runChunks(createNdjsonFramer({ maxFrameBytes: 100 }), [Buffer.from(long)]);
  t.same(core.items, [f('{"a":1}')]);
  t.match(core.error, { name: 'FrameTooLargeError', offset: 8 });
  // split2 destroys the stream at once, so frames not yet read are dropped by pipeline (the fused core keeps them).
  const s = await viaSplit2([Buffer.from(long)], { maxFrameBytes: 100 });
  t.match(s.error, { name: 'FrameTooLargeError', code: 'frame_too_large' });
  const unfinished = await viaSplit2([Buffer.from('{"a":1}\n'), Buffer.from('x'.repeat(300))], { maxFrameBytes: 100 });
  t.match(unfinished.error, { name: 'FrameTooLargeError' });
});
