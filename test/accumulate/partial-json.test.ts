import t from 'tap';
import fc from 'fast-check';
import type { Json } from '../../lib/events.js';
import { createPartialJson, type PartialJson } from '../../lib/accumulate/partial-json.js';
import { rng } from '../helpers/chunks.js';

// ---------------------------------------------------------------------------
// Reference: a deliberately slow, separate implementation of the preview
// semantics. Tokenize the prefix, repair its tail (drop an unfinished escape,
// close an open string, trim a number to its longest valid prefix, drop a
// partial literal, a dangling ',' / ':' / key), close the open containers and
// JSON.parse the result.
// ---------------------------------------------------------------------------

type Token =
  | { kind: 'punct'; text: string }
  | { kind: 'string'; text: string; complete: boolean }
  | { kind: 'word'; text: string; atEnd: boolean };

const WS = ' \t\r\n';
const PUNCT = '{}[]:,';

function tokenize(prefix: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < prefix.length) {
    const c = prefix[i] as string;
    if (WS.includes(c)) {
      i++;
    } else if (PUNCT.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let complete = false;
      while (j < prefix.length) {
        if (prefix[j] === '\\') j += 2;
        else if (prefix[j] === '"') {
          complete = true;
          j++;
          break;
        } else j++;
      }
      j = Math.min(j, prefix.length);
      tokens.push({ kind: 'string', text: prefix.slice(i, j), complete });
      i = j;
    } else {
      let j = i;
      while (j < prefix.length && !WS.includes(prefix[j] as string) && !PUNCT.includes(prefix[j] as string) && prefix[j] !== '"') j++;
      tokens.push({ kind: 'word', text: prefix.slice(i, j), atEnd: j === prefix.length });
      i = j;
    }
  }
  return tokens;
}

/** Closes an unfinished string token, leaving out an escape cut short. */
function closeString(text: string): string {
  const body = text.slice(1);
  let i = 0;
  let cut = body.length;
  while (i < body.length) {
    if (body[i] === '\\') {
      const need = body[i + 1] === 'u' ? 6 : 2;
      if (i + need > body.length) {
        cut = i;
        break;
      }
      i += need;
    } else i++;
  }
  return `"${body.slice(0, cut)}"`;
}

function openContainers(tokens: Token[], upTo: number): string[] {
  const stack: string[] = [];
  for (let i = 0; i < upTo; i++) {
    const tk = tokens[i] as Token;
    if (tk.kind !== 'punct') continue;
    if (tk.text === '{' || tk.text === '[') stack.push(tk.text);
    else if (tk.text === '}' || tk.text === ']') stack.pop();
  }
  return stack;
}

function isKey(tokens: Token[], i: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined || prev.kind !== 'punct' || (prev.text !== '{' && prev.text !== ',')) return false;
  return openContainers(tokens, i).at(-1) === '{';
}

function reference(prefix: string): Json | undefined {
  const tokens = tokenize(prefix);
  const last = tokens.at(-1);
  if (last?.kind === 'string' && !last.complete) {
    last.text = closeString(last.text);
    last.complete = true;
  } else if (last?.kind === 'word' && last.atEnd && !['true', 'false', 'null'].includes(last.text)) {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(last.text);
    if (m === null) tokens.pop();
    else last.text = m[0];
  }
  for (;;) {
    const tk = tokens.at(-1);
    if (tk === undefined) break;
    if (tk.kind === 'punct' && tk.text === ',') tokens.pop();
    else if (tk.kind === 'punct' && tk.text === ':') tokens.splice(-2, 2);
    else if (tk.kind === 'string' && isKey(tokens, tokens.length - 1)) tokens.pop();
    else break;
  }
  if (tokens.length === 0) return undefined;
  const closers = openContainers(tokens, tokens.length)
    .reverse()
    .map((c) => (c === '{' ? '}' : ']'))
    .join('');
  return JSON.parse(tokens.map((tk) => tk.text).join('') + closers) as Json;
}

function referenceComplete(prefix: string): boolean {
  try {
    JSON.parse(prefix);
  } catch {
    return false;
  }
  // A top-level number could still grow until something ends it.
  return !(/^\s*-?\d/.test(prefix) && !/\s$/.test(prefix));
}

// ---------------------------------------------------------------------------

const TEXTS: string[] = [
  '{"location": "Paris, France", "unit": "celsius"}',
  '{"a": {"b": [1, 2, {"c": [true, false, null]}], "d": -12.5e-3}, "e": "line\\nbreak \\"quoted\\" back\\\\slash \\/ \\b\\f\\r\\t"}',
  '{"emoji": "\\ud83d\\ude00 and \\u00e9\\u4E2D", "raw": "😀 é 中", "ctl": "\\u0000\\u001f"}',
  '[0, -0, 1.5, 2e10, 3E+2, -4.25e-2, 123456789, 0.000001, {"k": []}, [], [[]], ""]',
  '  {  "spaced" :  [ 1 , 2 ] ,  "x" : { } ,\r\n\t"y":true }  ',
  '"top level string \\u0041\\\\"',
  'true',
  'null ',
  '-12.5e3 ',
  '{"__proto__": {"polluted": true}, "constructor": 1}',
  '{"dup": 1, "dup": "two", "dup": [3], "dup": -4}',
  '{"": "", "nested": {"deep": {"deeper": {"deepest": [1, [2, [3, [4]]]]}}}}',
  JSON.stringify({ query: 'weather', filters: { days: [1, 2, 3], metric: true, note: null } }, null, 2),
  JSON.stringify({ code: 'function f(x) {\n  return "}]";\n}\n', tabs: '\t\t', quote: '"\'' }),
];

/** A subtest (the last `t.test` overload takes just the callback). */
type Reporter = Parameters<Parameters<typeof t.test>[0]>[0];

function check(t: Reporter, parser: PartialJson, prefix: string, label: string): void {
  const expected = reference(prefix);
  const actual = parser.value();
  if (!sameJson(actual, expected)) {
    t.fail(`${label}: prefix ${JSON.stringify(prefix)}`, { found: actual, wanted: expected });
  }
  if (parser.complete !== referenceComplete(prefix)) {
    t.fail(`${label}: complete=${parser.complete} for ${JSON.stringify(prefix)}`);
  }
  if (parser.error !== null) t.fail(`${label}: unexpected error ${parser.error}`);
}

/** Deep equality that tells -0 from 0 and checks own `__proto__` members. */
function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  const ao = a as { [key: string]: Json };
  const bo = b as { [key: string]: Json };
  const ak = Object.keys(ao);
  const bk = Object.keys(bo);
  if (Object.getPrototypeOf(ao) !== Object.getPrototypeOf(bo)) return false;
  return ak.length === bk.length && ak.every((k, i) => k === bk[i] && sameJson(ao[k], bo[k]));
}

t.test('the reference itself', async (t) => {
  t.strictSame(reference(''), undefined);
  t.strictSame(reference('{"a'), {});
  t.strictSame(reference('{"a":'), {});
  t.strictSame(reference('{"a": "b'), { a: 'b' });
  t.strictSame(reference('[1, tr'), [1]);
  t.strictSame(reference('[1, true'), [1, true]);
  t.strictSame(reference('{"n": 1e-'), { n: 1 });
  t.strictSame(reference('"a\\u00'), 'a');
  t.strictSame(reference('"a\\\\'), 'a\\');
});

t.test('every prefix, one character at a time, matches the reference', async (t) => {
  for (const text of TEXTS) {
    const parser = createPartialJson();
    t.equal(parser.value(), undefined);
    for (let k = 1; k <= text.length; k++) {
      parser.write(text[k - 1] as string);
      check(t, parser, text.slice(0, k), '1-char');
    }
    t.ok(sameJson(parser.value(), JSON.parse(text) as Json), `final value of ${text.slice(0, 30)}`);
    t.equal(parser.scanned, text.length);
  }
});

t.test('every prefix written at once matches the reference', async (t) => {
  for (const text of TEXTS) {
    for (let k = 0; k <= text.length; k++) {
      const parser = createPartialJson();
      parser.write(text.slice(0, k));
      check(t, parser, text.slice(0, k), 'whole');
    }
  }
  t.pass('checked');
});

t.test('every two-fragment split gives the reference after each fragment', async (t) => {
  for (const text of TEXTS) {
    for (let k = 0; k <= text.length; k++) {
      const parser = createPartialJson();
      parser.write(text.slice(0, k));
      check(t, parser, text.slice(0, k), `split@${k}`);
      parser.write(text.slice(k));
      check(t, parser, text, `split@${k} end`);
    }
  }
  t.pass('checked');
});

t.test('seeded random fragments, value() read only now and then', async (t) => {
  for (const text of TEXTS) {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      const parser = createPartialJson();
      let at = 0;
      while (at < text.length) {
        const n = 1 + Math.floor(r() * 9);
        parser.write(text.slice(at, at + n));
        at = Math.min(text.length, at + n);
        if (r() < 0.5) check(t, parser, text.slice(0, at), `seed ${seed}`);
      }
      check(t, parser, text, `seed ${seed} end`);
    }
  }
  t.pass('checked');
});

t.test('a surrogate pair escaped and split across fragments', async (t) => {
  const parser = createPartialJson();
  parser.write('{"e":"a\\ud8');
  t.strictSame(parser.value(), { e: 'a' }, 'an unfinished escape is left out');
  parser.write('3d\\u');
  t.equal((parser.value() as { e: string }).e, 'a\ud83d', 'the high half once its escape is complete');
  parser.write('de');
  t.equal((parser.value() as { e: string }).e, 'a\ud83d');
  parser.write('00b"}');
  t.strictSame(parser.value(), { e: 'a😀b' });
  t.ok(parser.complete);
  // A raw (unescaped) pair split between fragments joins too.
  const raw = createPartialJson();
  raw.write('["\ud83d');
  raw.write('\ude00"]');
  t.strictSame(raw.value(), ['😀']);
});

t.test('numbers and literals at every stage', async (t) => {
  const cases: [string[], (Json | undefined)[]][] = [
    [['[', '-', '1', '.', '5', 'e', '-', '2', ']'], [[], [], [-1], [-1], [-1.5], [-1.5], [-1.5], [-0.015], [-0.015]]],
    [['{"n":', ' 0', '.', '2', '5', '}'], [{}, { n: 0 }, { n: 0 }, { n: 0.2 }, { n: 0.25 }, { n: 0.25 }]],
    [['[t', 'ru', 'e', ', n', 'ul', 'l, f', 'alse]'], [[], [], [true], [true], [true], [true, null], [true, null, false]]],
    [['-', '4', '2', ' '], [undefined, -4, -42, -42]],
    [['t', 'rue'], [undefined, true]],
  ];
  for (const [fragments, expected] of cases) {
    const parser = createPartialJson();
    fragments.forEach((f, i) => {
      parser.write(f);
      t.strictSame(parser.value(), expected[i], `${fragments.slice(0, i + 1).join('')}`);
    });
    t.ok(parser.complete, `${fragments.join('')} complete`);
  }
  const open = createPartialJson();
  open.write('12');
  t.equal(open.value(), 12);
  t.notOk(open.complete, 'a top-level number is not complete until something ends it');
  open.write('3\n');
  t.equal(open.value(), 123);
  t.ok(open.complete);
});

t.test('the value is a live tree: cheap to read after every write', async (t) => {
  const parser = createPartialJson();
  parser.write('{"list": [');
  const tree = parser.value();
  parser.write('1, {"x": "ab');
  t.equal(parser.value(), tree, 'same object');
  t.strictSame(tree, { list: [1, { x: 'ab' }] });
  parser.write('c"}]}');
  t.equal(parser.value(), tree);
  t.strictSame(tree, { list: [1, { x: 'abc' }] });
});

t.test('__proto__ is an own member, as with JSON.parse', async (t) => {
  const parser = createPartialJson();
  parser.write('{"__proto__": {"polluted": 1}}');
  const v = parser.value() as { [key: string]: Json };
  t.equal(Object.getPrototypeOf(v), Object.prototype);
  t.strictSame(Object.keys(v), ['__proto__']);
  t.equal(({} as { polluted?: number }).polluted, undefined);
});

t.test('errors: reported at the first character that rules out valid JSON', async (t) => {
  const cases: [string, number][] = [
    ['{"a" 1}', 5],
    ['{,}', 1],
    ['[1,]', 3],
    ['{"a":1,}', 7],
    ['01', 1],
    ['1.e5', 2],
    ['"\\x"', 2],
    ['"\\u12G4"', 5],
    ['}', 0],
    ['{"a":tx}', 6],
    ['[1 2]', 3],
    ['{} {}', 3],
    ['"a\nb"', 2],
    ['{"a":1]', 6],
    ['[1}', 2],
    ['-a', 1],
    ['--1', 1],
    ['[1e+,', 4],
    ['{"a"}', 4],
    ['nul!', 3],
    ['[,', 1],
    ['[1.]', 3],
  ];
  for (const [text, bad] of cases) {
    for (let k = 0; k <= bad; k++) {
      const parser = createPartialJson();
      for (const ch of text.slice(0, k)) parser.write(ch);
      t.equal(parser.error, null, `${JSON.stringify(text)} no error before ${k}`);
    }
    const parser = createPartialJson();
    parser.write(text.slice(0, bad + 1));
    t.match(parser.error, `at character ${bad}`, `${JSON.stringify(text)} error at ${bad}`);
    t.notOk(parser.complete);
    const before = parser.value();
    const scanned = parser.scanned;
    t.equal(scanned, bad + 1);
    parser.write(text.slice(bad + 1) + '{"more": 1}');
    t.equal(parser.scanned, scanned, 'writes after an error are ignored');
    t.strictSame(parser.value(), before, 'the value stays what it was');
  }
});

t.test('property: any JSON value, any fragments, every boundary matches the reference', async (t) => {
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 4 }),
      fc.boolean(),
      fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }),
      (value, pretty, sizes) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        const parser = createPartialJson();
        let at = 0;
        let s = 0;
        while (at < text.length) {
          const n = sizes[s++ % sizes.length] as number;
          parser.write(text.slice(at, at + n));
          at = Math.min(text.length, at + n);
          const prefix = text.slice(0, at);
          if (!sameJson(parser.value(), reference(prefix))) throw new Error(`prefix ${JSON.stringify(prefix)}`);
          if (parser.error !== null) throw new Error(parser.error);
        }
        if (!sameJson(parser.value(), JSON.parse(text) as Json)) throw new Error('final value');
        if (parser.scanned !== text.length) throw new Error('scanned');
        // Numbers at top level need a delimiter to be complete.
        if (typeof value !== 'number' && !parser.complete) throw new Error('not complete');
      },
    ),
    { numRuns: 400, seed: 20260918 },
  );
  t.pass('400 random values');
});

t.test('linear: 20,000 one-character fragments, value() after each, each character examined once', async (t) => {
  const body = { path: 'src/index.ts', content: 'x'.repeat(12_000), lines: Array.from({ length: 800 }, (_, i) => i) };
  let text = JSON.stringify(body);
  text = text.slice(0, -1) + ',"pad":"' + 'y'.repeat(20_000 - text.length - 9) + '"}';
  t.equal(text.length, 20_000);
  const parser = createPartialJson();
  let reads = 0;
  for (let i = 0; i < text.length; i++) {
    parser.write(text[i] as string);
    if (parser.value() !== undefined) reads++;
  }
  t.equal(reads, text.length);
  t.equal(parser.scanned, text.length, 'characters examined == input length (no re-parse of the prefix)');
  t.ok(parser.complete);
  t.strictSame(parser.value(), JSON.parse(text));
  // The same count whatever the fragment sizes.
  for (const size of [2, 7, 1000, 20_000]) {
    const p = createPartialJson();
    for (let i = 0; i < text.length; i += size) {
      p.write(text.slice(i, i + size));
      p.value();
    }
    t.equal(p.scanned, text.length, `${size}-char fragments`);
  }
});
