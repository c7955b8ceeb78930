/**
 * The two byte natives (lib/bytes/): the web ones (TextDecoder, typed arrays;
 * what a browser runs) give what Node's Buffer natives give, on random bytes
 * (valid and invalid UTF-8), random strings (lone surrogates included) and
 * random base64. The whole pipeline on the web natives: chromium.test.ts.
 */
import t from 'tap';
import fc from 'fast-check';
import { natives } from '../../lib/bytes/index.js';
import { nodeNatives } from '../../lib/bytes/node.js';
import { webNatives as web } from '../../lib/bytes/web.js';

const node = nodeNatives!;
const RUNS = 300;

/** Bytes with UTF-8 sequences, broken ones and bare high bytes. */
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 80 }).map((s) => new TextEncoder().encode(s)),
  fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 0, max: 40 })).map(([s, cut]) => {
    const b = new TextEncoder().encode(s);
    return b.subarray(0, Math.min(cut, b.length)); // cut mid-sequence
  }),
);
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((c) => String.fromCharCode(c)), maxLength: 20 }));

t.test('Node picks the Buffer natives, and both are complete', (t) => {
  t.equal(natives.name, 'node');
  t.equal(web.name, 'web');
  t.same(Object.keys(web).sort(), Object.keys(node).sort());
  t.end();
});

t.test('decoding: utf8, latin1, isUtf8, isAscii, decodeValid agree', (t) => {
  fc.assert(
    fc.property(bytes, fc.nat(), fc.nat(), (b, x, y) => {
      const start = b.length === 0 ? 0 : x % b.length;
      const end = start + (b.length === 0 ? 0 : y % (b.length - start + 1));
      const nb = node.view(b);
      t.equal(web.utf8(b, start, end), node.utf8(nb, start, end), 'utf8');
      t.equal(web.latin1(b, start, end), node.latin1(nb, start, end), 'latin1');
      t.equal(web.isUtf8(b), node.isUtf8(b), 'isUtf8');
      t.equal(web.isAscii(b), node.isAscii(b), 'isAscii');
      if (node.isUtf8(b)) t.equal(web.decodeValid(b), node.decodeValid(nb), 'decodeValid');
    }),
    { numRuns: RUNS },
  );
  const long = new Uint8Array(40_000).map((_, i) => (i * 7) & 0xff); // past the web latin1's span
  t.equal(web.latin1(long, 3, long.length), node.latin1(node.view(long), 3, long.length));
  t.end();
});

t.test('encoding: view, byteLength, writeUtf8, writeLatin1 agree', (t) => {
  fc.assert(
    fc.property(text, (s) => {
      t.same([...web.view(s)], [...node.view(s)], 'view of a string');
      t.equal(web.byteLength(s), node.byteLength(s), 'byteLength');
      const a = new Uint8Array(3 * s.length + 3);
      const b = node.alloc(3 * s.length + 3).fill(0);
      t.equal(web.writeUtf8(a, s, 1), node.writeUtf8(b, s, 1), 'writeUtf8 count');
      t.same([...a], [...b], 'writeUtf8 bytes');
      const l1 = s.replace(/[^\x00-\xff]/g, 'x');
      const c = new Uint8Array(l1.length + 2);
      const d = node.alloc(l1.length + 2).fill(0);
      t.equal(web.writeLatin1(c, l1, 2), node.writeLatin1(d, l1, 2));
      t.same([...c], [...d], 'writeLatin1 bytes');
    }),
    { numRuns: RUNS },
  );
  t.end();
});

t.test('base64 (either alphabet, padding or not, stray characters) agrees', (t) => {
  const b64 = fc.tuple(fc.uint8Array({ maxLength: 60 }), fc.boolean(), fc.boolean(), fc.string({ maxLength: 3 })).map(([b, url, pad, junk]) => {
    let s = Buffer.from(b).toString('base64');
    if (url) s = s.replace(/\+/g, '-').replace(/\//g, '_');
    if (!pad) s = s.replace(/=+$/, '');
    return junk + s;
  });
  fc.assert(
    fc.property(b64, (s) => {
      t.same([...web.base64(s)], [...node.base64(s)], s);
    }),
    { numRuns: RUNS },
  );
  t.end();
});

t.test('copy, concat, alloc', (t) => {
  const a = new Uint8Array([1, 2, 3]);
  const c = web.copy(a);
  a[0] = 9;
  t.same([...c], [1, 2, 3], 'a copy owns its memory');
  t.same([...web.concat([a, new Uint8Array([4]), new Uint8Array(0)])], [9, 2, 3, 4]);
  t.equal(web.alloc(5).length, 5);
  t.equal(web.units, null, 'no UTF-16 unit natives on the web: the text accumulator keeps parts');
  t.not(node.units, null);
  t.end();
});
