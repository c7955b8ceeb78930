import t, { type Test } from 'tap';
import { createSseFramer, type SseFramerOptions } from '../../lib/framing/sse.js';
import type { Frame } from '../../lib/events.js';
import { chunkings } from '../helpers/chunks.js';
import { runChunks, summary } from '../helpers/run.js';

/** Frames `input` at every chunking; all must equal `expected`. */
function check(t: Test, name: string, input: string | Buffer, expected: Frame[], options: SseFramerOptions = {}): void {
  t.test(name, (t) => {
    for (const { name: how, chunks } of chunkings(input)) {
      const r = summary(runChunks(createSseFramer(options), chunks));
      t.same(r, { items: expected, error: null }, how);
      if (r.error !== null || JSON.stringify(r.items) !== JSON.stringify(expected)) break;
    }
    t.end();
  });
}

const f = (data: string, event = 'message', id = '', extra: Partial<Frame> = {}): Frame => ({ event, data, id, ...extra });

check(t, 'event, data and id fields', 'event: add\ndata: 73857293\nid: 1\n\n', [f('73857293', 'add', '1')]);

check(t, 'LF, CRLF and CR line ends, mixed', 'data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n', [f('a'), f('b'), f('c'), f('d')]);

check(t, 'a CR followed by LF is one line end, even when split', 'data: x\r\n\r\ndata: y\r\n\r\n', [f('x'), f('y')]);

check(t, 'one leading BOM is stripped', '\uFEFFdata: bom\n\n', [f('bom')]);

check(t, 'a second BOM is not stripped (it makes the field name unknown)', '\uFEFF\uFEFFdata: x\n\ndata: y\n\n', [f('y')]);

check(t, 'a BOM after the start is data', 'data: \uFEFFx\n\n', [f('\uFEFFx')]);

check(t, 'comments are ignored', ': hello\ndata: a\n: another\n\n:only comment\n\n', [f('a')]);

check(t, 'exactly one leading space is stripped from the value', 'data:no-space\n\ndata:  two\n\ndata:\tTab\n\n', [f('no-space'), f(' two'), f('\tTab')]);

check(t, 'data lines are joined with LF', 'data: line1\ndata:\ndata: line3\n\n', [f('line1\n\nline3')]);

check(t, 'event resets after each blank line and defaults to message', 'event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\n', [f('1', 'a'), f('2'), f('3')]);

check(t, 'the last event id persists; an id with NUL is ignored', 'id: 7\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n', [
  f('a', 'message', '7'),
  f('b', 'message', '7'),
  f('c', 'message', '7'),
  f('d', 'message', ''),
]);

check(t, 'an id set in a block without data applies to later events', 'id: 42\n\ndata: a\n\n', [f('a', 'message', '42')]);

check(t, 'retry only when all ASCII digits, and only on its block', 'retry: 1000\ndata: a\n\nretry: 10x\ndata: b\n\nretry:\ndata: c\n\nretry: 2500\ndata: d\n\ndata: e\n\n', [
  f('a', 'message', '', { retry: 1000 }),
  f('b'),
  f('c'),
  f('d', 'message', '', { retry: 2500 }),
  f('e'),
]);

check(t, 'unknown fields are ignored; a field name alone has an empty value', 'foo: bar\ndata\n\nDATA: no\ndata: yes\n\n', [f(''), f('yes')]);

check(t, 'a blank line with no data dispatches nothing', '\n\n\nevent: x\n\nid: 1\n\n', []);

check(t, 'empty data dispatches an empty payload', 'data:\n\n', [f('')]);

check(t, 'UTF-8 split across chunks decodes correctly', 'data: héllo wörld — ✓ 😀 日本\n\n', [f('héllo wörld — ✓ 😀 日本')]);

check(t, 'colon inside a value is kept', 'data: {"a":"b:c"}\n\n', [f('{"a":"b:c"}')]);

check(t, 'at end of input an unterminated event with data is dispatched', 'data: a\n\nevent: last\ndata: b', [f('a'), f('b', 'last')]);

check(t, 'unterminated line after a data line is part of the event', 'data: a\ndata: b', [f('a\nb')]);

check(t, 'flushIncomplete: false gives the strict browser behaviour', 'data: a\n\ndata: b\n', [f('a')], { flushIncomplete: false });

check(t, 'positions: frame number and byte offset of each block', '\uFEFF: c\ndata: a\n\n\r\nevent: e\ndata: é\n\n', [
  f('a', 'message', '', { at: { frame: 0, offset: 3 } }),
  f('é', 'e', '', { at: { frame: 1, offset: 18 } }),
], { positions: true });

check(t, 'Gemini CRLF framing', 'data: {"candidates": []}\r\n\r\ndata: {"x": 1}\r\n\r\n', [f('{"candidates": []}'), f('{"x": 1}')]);

t.test('string chunks work like bytes', (t) => {
  const r = runChunks(createSseFramer(), ['data: a', 'b\n', '\n']);
  t.same(r.items, [f('ab')]);
  t.end();
});

t.test('a frame whose data grows past maxFrameBytes fails with the typed error and its offset', (t) => {
  const input = 'data: ok\n\n' + 'data: 0123456789\n'.repeat(10) + '\n';
  for (const { name, chunks } of chunkings(input, 40)) {
    const r = runChunks(createSseFramer({ maxFrameBytes: 64 }), chunks);
    t.same(r.items, [f('ok')], name);
    t.equal(r.error?.name, 'FrameTooLargeError', name);
    t.equal(r.error?.code, 'frame_too_large', name);
    t.equal(r.error?.offset, 10, name);
  }
  t.end();
});

t.test('an endless line stops at maxFrameBytes with bounded memory', (t) => {
  const max = 4 * 1024 * 1024;
  const framer = createSseFramer({ maxFrameBytes: max });
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  const before = process.memoryUsage().arrayBuffers;
  let fed = 0;
  let error: (Error & { code?: string; offset?: number }) | null = null;
  try {
    for (let i = 0; i < 4096; i++) {
      framer.push(chunk, () => {});
      fed += chunk.length;
    }
  } catch (err) {
    error = err as Error;
  }
  const grown = process.memoryUsage().arrayBuffers - before;
  t.equal(error?.name, 'FrameTooLargeError');
  t.equal(error?.offset, 0);
  t.ok(fed <= max, `stopped after ${fed} bytes`);
  t.ok(grown < max + 8 * 1024 * 1024, `array buffers grew by ${grown} bytes`);
  t.end();
});

t.test('options are validated with a clear error', (t) => {
  t.throws(() => createSseFramer({ maxFrameBytes: -1 }), { code: 'invalid_option', message: /maxFrameBytes/ });
  t.throws(() => createSseFramer({ maxFrameBytes: 1.5 }), { code: 'invalid_option' });
  t.end();
});
