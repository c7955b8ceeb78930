/**
 * The CLI's JSON lines (lib/cli/json-line.ts): a value holding long strings is written in pieces, and
 * the pieces must join to exactly JSON.stringify(value) + '\n', whatever the strings hold (escapes,
 * surrogate pairs where a slice would end, lone surrogates, the placeholder's own text); groupPieces
 * must hand them on in order, in groups no longer than GROUP characters unless a piece is.
 */
import t from 'tap';
import { GROUP, LONG_STRING, PIECE, groupPieces, jsonLine } from '../../lib/cli/json-line.js';

function joined(line: string | string[]): string {
  return typeof line === 'string' ? line : line.join('');
}

/** A long string whose character at each slice boundary is the high half of a surrogate pair, with escapes throughout. */
function awkward(n: number): string {
  let s = '';
  while (s.length < n) {
    const pad = PIECE - 1 - (s.length % PIECE);
    s += 'é"\\\n\t\u0001 東京'.repeat(Math.ceil(pad / 10)).slice(0, pad) + '🙂';
  }
  return s;
}

t.test('the pieces join to JSON.stringify and a newline', (t) => {
  const long = awkward(3 * PIECE + 5);
  const cases: [string, unknown][] = [
    ['no long string', { a: 1, b: 'x'.repeat(100), c: [null, true] }],
    ['one long string', { type: 'final', text: long, n: 3 }],
    ['a long string at the root', long],
    ['the same string twice, in an array', { content: [{ text: long }, { text: long }], usage: { input: 1 } }],
    ['exactly LONG_STRING characters', { text: 'a'.repeat(LONG_STRING) }],
    ['lone surrogates', { text: 'a'.repeat(LONG_STRING) + '\ud800' + 'b'.repeat(PIECE) + '\udc00' }],
    ['a pair across the first boundary', { text: 'a'.repeat(PIECE - 1) + '🙂' + 'b'.repeat(LONG_STRING) }],
    ['the placeholder as a short string', { text: long, odd: '\u0000wirefold:long-string\u0000' }],
    ['the placeholder as a key', { ['\u0000wirefold:long-string\u0000']: long }],
    ['toJSON', { when: new Date(0), text: long }],
  ];
  for (const [name, value] of cases) {
    const line = jsonLine(value);
    t.equal(joined(line), JSON.stringify(value) + '\n', name);
    if (Array.isArray(line)) t.ok(line.every((p) => p.length <= 2 * GROUP), `${name}: no piece is long`);
  }
  t.type(jsonLine({ a: 1 }), 'string', 'a short line is one string');
  t.ok(Array.isArray(jsonLine({ text: long })), 'a long one is pieces');
  t.end();
});

t.test('groupPieces: in order, groups up to GROUP characters, a longer piece alone, stops when a write says so', async (t) => {
  const pieces = ['a'.repeat(GROUP - 10), 'b'.repeat(20), 'c'.repeat(5), 'd'.repeat(GROUP + 1), 'e'];
  const writes: string[] = [];
  t.ok(
    await groupPieces(pieces, 0, pieces.length, (s) => {
      writes.push(s);
      return true;
    }),
  );
  t.same(
    writes.map((w) => [w[0], w.length]),
    [
      ['a', GROUP - 10],
      ['b', 25],
      ['d', GROUP + 1],
      ['e', 1],
    ],
  );
  t.equal(writes.join(''), pieces.join(''));
  const some: string[] = [];
  t.notOk(
    await groupPieces(pieces, 1, 4, async (s) => {
      some.push(s);
      return false;
    }),
    'false once a write fails',
  );
  t.equal(some.length, 1, 'nothing written after it');
  t.ok(await groupPieces(pieces, 2, 2, () => false), 'an empty range writes nothing');
});
