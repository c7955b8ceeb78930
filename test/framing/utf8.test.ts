import t from 'tap';
import { createSseFramer } from '../../lib/framing/sse.js';
import { createJsonArrayFramer } from '../../lib/framing/json-array.js';
import { createNdjsonFramer } from '../../lib/framing/ndjson.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { chunkings } from '../helpers/chunks.js';
import { runChunks } from '../helpers/run.js';

const bad = Buffer.concat([Buffer.from('data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}}\n\n')]);
const genuine = Buffer.from('data: {"t":"\uFFFD is valid"}\n\n');

t.test('invalid bytes are replaced with U+FFFD and the frame is flagged with its offset', (t) => {
  const input = Buffer.concat([genuine, bad]);
  for (const { name, chunks } of chunkings(input, 60)) {
    const r = runChunks(createSseFramer(), chunks);
    t.equal(r.items.length, 2, name);
    t.equal(r.items[0]?.invalidUtf8At, undefined, `${name}: a genuine U+FFFD is not flagged`);
    t.equal(r.items[1]?.invalidUtf8At, genuine.length, name);
    t.match(r.items[1]?.data, /a\uFFFD\uFFFDb/, name);
  }
  t.end();
});

t.test('the JSON framers flag invalid UTF-8 too', (t) => {
  const el = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from('"}')]);
  const arr = runChunks(createJsonArrayFramer(), [Buffer.concat([Buffer.from('[{"ok":1},'), el, Buffer.from(']')])]);
  t.same(arr.items.map((f) => f.invalidUtf8At), [undefined, 10]);
  const nd = runChunks(createNdjsonFramer(), [Buffer.concat([Buffer.from('{"ok":1}\n'), el, Buffer.from('\n')])]);
  t.same(nd.items.map((f) => f.invalidUtf8At), [undefined, 9]);
  t.end();
});

t.test('reported once per input as a non-terminal invalid_utf8 error; the text is kept', (t) => {
  const head = Buffer.from('event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":1}}}\n\n');
  const stream = Buffer.concat([
    head,
    bad,
    bad,
    Buffer.from('data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\ndata: {"type":"message_stop"}\n\n'),
  ]);
  for (const { name, chunks } of chunkings(stream, 30)) {
    const evs = decodeAll(chunks);
    const errors = evs.filter((e) => e.type === 'error');
    t.equal(errors.length, 1, name);
    t.match(errors[0], { code: 'invalid_utf8', terminal: false, message: `frame 1 at byte ${head.length}: invalid UTF-8 replaced with U+FFFD` }, name);
    const text = evs.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    t.equal(text, 'a\uFFFD\uFFFDba\uFFFD\uFFFDb', name);
    t.match(evs.at(-1), { type: 'done', stopReason: 'end' }, name);
  }
  t.end();
});
