/**
 * The BufferSink a --jobs worker writes an input's output into: its bytes
 * are the UTF-8 of every text written, in order, whatever the characters'
 * widths and wherever the buffer has to grow (a text is written without its
 * UTF-8 length measured first, and written again into a larger buffer when
 * it may not have fit); the diagnostics fall where they were written.
 */
import t from 'tap';
import { BufferSink } from '../lib/cli/sink.js';

/** Characters of 1, 2, 3 and 4 UTF-8 bytes (the last one a surrogate pair), and a lone surrogate (3 bytes: U+FFFD). */
const CHARS = ['a', '\n', 'é', 'ж', '€', '中', '😀', '\ud800'];

/** A deterministic string of `n` UTF-16 units drawn from `chars` (seeded LCG). */
function text(n: number, seed: number, chars = CHARS): string {
  let x = seed;
  let s = '';
  while (s.length < n) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += chars[x % chars.length];
  }
  return s.slice(0, n);
}

t.test('the bytes are the UTF-8 of the texts, across every growth of the buffer', async (t) => {
  for (const initial of [1, 5, 16, 1024]) {
    for (const alphabet of [CHARS, ['a'], ['😀'], ['€', 'a']]) {
      const sink = new BufferSink(initial);
      const texts: string[] = [];
      for (let i = 0; i < 60; i++) {
        const s = text((i * 37) % 700, i + 1, alphabet);
        texts.push(s);
        t.equal(sink.text(s), true);
      }
      const { bytes, notes } = sink.take();
      const expected = Buffer.from(texts.join(''), 'utf8');
      t.ok(Buffer.from(bytes).equals(expected), `initial ${initial}, ${alphabet.join('')}: ${expected.length} bytes`);
      t.same(notes, []);
    }
  }
});

t.test('a text exactly as long as the room left, and one a byte longer', async (t) => {
  for (const [initial, s] of [
    [8, 'abcdefgh'],
    [8, 'abcdefghi'],
    [8, 'abcde€'],
    [8, 'abcdef€'],
    [8, 'abcd😀'],
    [8, 'abcde😀'],
  ] as const) {
    const sink = new BufferSink(initial);
    sink.text(s);
    sink.text('!');
    t.equal(Buffer.from(sink.take().bytes).toString('utf8'), `${s}!`, JSON.stringify(s));
  }
});

t.test('diagnostics at the byte offset where they were written', async (t) => {
  const sink = new BufferSink(4);
  sink.text('é€');
  await sink.diagnostic('one');
  sink.text(text(300, 7));
  await sink.diagnostic('{"bare":true}', true);
  const { bytes, notes } = sink.take();
  const first = Buffer.byteLength('é€');
  t.same(notes, [
    { at: first, message: 'one' },
    { at: first + Buffer.byteLength(text(300, 7)), message: '{"bare":true}', bare: true },
  ]);
  t.equal(bytes.length, first + Buffer.byteLength(text(300, 7)));
});
