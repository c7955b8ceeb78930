import t from 'tap';
import { LimitExceededError, OptionError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { createTextAccumulator } from '../../lib/accumulate/text.js';
import {
  anthropicThinkingToolUse,
  done,
  openaiChatText,
  openaiChatTwoChoices,
  openaiResponsesReasoning,
  reasoning,
  start,
  text,
  toolStart,
} from './sequences.js';

t.test('passes every event through unchanged, in order', async (t) => {
  const events = [...anthropicThinkingToolUse(), ...openaiChatText()];
  const out = runStage(createTextAccumulator(), events);
  t.equal(out.length, events.length);
  out.forEach((ev, i) => t.equal(ev, events[i], `event ${i} is the same object`));
});

t.test('OpenAI chat: one text block', async (t) => {
  const acc = createTextAccumulator();
  runStage(acc, openaiChatText());
  t.strictSame(acc.blocks(), [{ choice: 0, type: 'text', index: 0, contentIndex: null, text: 'Paris is the capital.' }]);
  t.equal(acc.text(), 'Paris is the capital.');
  t.equal(acc.reasoning(), '');
  t.equal(acc.refusal(), null);
});

t.test('blocks are keyed by type, index and contentIndex, in order of first appearance', async (t) => {
  const acc = createTextAccumulator();
  runStage(acc, [
    ...openaiResponsesReasoning().slice(0, -1),
    text(1, ' No.', { contentIndex: 1, refusal: true }),
    text(1, ' More.', { contentIndex: 0 }),
    done('end', 'completed'),
  ]);
  t.strictSame(acc.blocks(), [
    { choice: 0, type: 'reasoning', index: 0, contentIndex: 0, text: '**Planning** the answer.' },
    { choice: 0, type: 'reasoning', index: 0, contentIndex: 1, text: '**Checking**' },
    { choice: 0, type: 'text', index: 1, contentIndex: 0, text: 'Hello there. More.' },
    { choice: 0, type: 'refusal', index: 1, contentIndex: 1, text: ' No.' },
  ]);
  t.equal(acc.text(), 'Hello there. More.');
  t.equal(acc.reasoning(), '**Planning** the answer.**Checking**');
  t.equal(acc.refusal(), ' No.');
});

t.test('xAI /v1/messages reuses index 0 for thinking then text: two blocks', async (t) => {
  const acc = createTextAccumulator();
  runStage(acc, [start('m', 'grok-4'), reasoning(0, 'hmm'), reasoning(0, '...'), text(0, 'OK'), text(0, '.'), done('end', 'end_turn')]);
  t.strictSame(
    acc.blocks().map((b) => [b.type, b.index, b.text]),
    [
      ['reasoning', 0, 'hmm...'],
      ['text', 0, 'OK.'],
    ],
  );
});

t.test('n=2: text per choice', async (t) => {
  const acc = createTextAccumulator();
  runStage(acc, openaiChatTwoChoices());
  t.equal(acc.text(), 'Red roses');
  t.equal(acc.text(1), 'Blue apples');
  t.equal(acc.text(2), '');
  t.strictSame(acc.blocks().map((b) => b.choice), [0, 1]);
});

t.test('state is kept after done and reset when the next response begins', async (t) => {
  const acc = createTextAccumulator();
  const emit = (): void => {};
  for (const ev of openaiChatText()) acc.push(ev, emit);
  t.equal(acc.text(), 'Paris is the capital.', 'readable after done');
  acc.push({ type: 'raw', event: { type: 'ping' } }, emit);
  t.equal(acc.text(), 'Paris is the capital.', 'raw between responses keeps it');
  acc.push(start('next', 'm'), emit);
  t.strictSame(acc.blocks(), []);
  acc.push(text(0, 'Again'), emit);
  t.equal(acc.text(), 'Again');
});

t.test('parts are joined once and collapsed; reading mid-stream does not lose deltas', async (t) => {
  const acc = createTextAccumulator();
  const emit = (): void => {};
  acc.push(start('r', 'm'), emit);
  const pieces: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const piece = `w${i} `;
    pieces.push(piece);
    acc.push(text(0, piece), emit);
    if (i % 1000 === 0) t.equal(acc.text(), pieces.join(''));
  }
  t.equal(acc.text(), pieces.join(''));
  t.equal(acc.text(), pieces.join(''), 'twice');
});

t.test('empty deltas create no block; tool calls are not text', async (t) => {
  const acc = createTextAccumulator();
  runStage(acc, [start('r', 'm'), text(0, ''), reasoning(0, ''), toolStart(1, 'c', 'f'), text(2, 'x'), done('end', 'stop')]);
  t.strictSame(acc.blocks(), [{ choice: 0, type: 'text', index: 2, contentIndex: null, text: 'x' }]);
});

t.test('limits: maxTextBytes (UTF-8) and maxBlocks', async (t) => {
  const events: UnifiedEvent[] = [start('r', 'm'), text(0, 'ab'), reasoning(1, '中')];
  t.doesNotThrow(() => runStage(createTextAccumulator({ maxTextBytes: 5 }), events));
  const err = t.throws(() => runStage(createTextAccumulator({ maxTextBytes: 4 }), events)) as LimitExceededError;
  t.type(err, LimitExceededError);
  t.equal(err.limit, 'maxTextBytes');
  const blocks = t.throws(() => runStage(createTextAccumulator({ maxBlocks: 1 }), events)) as LimitExceededError;
  t.equal(blocks.limit, 'maxBlocks');
  // The limits are per response.
  t.doesNotThrow(() =>
    runStage(createTextAccumulator({ maxTextBytes: 5, maxBlocks: 2 }), [...events, done('end', 'stop'), ...events, done('end', 'stop')]),
  );
  t.throws(() => createTextAccumulator({ maxTextBytes: -5 }), OptionError);
});

t.test('a block joins its deltas in groups: short ones 256 at a time, long ones until the group is a large object', async (t) => {
  const { TextBlock } = await import('../../lib/accumulate/text.js');
  // [deltas' length, deltas per group]: 256, or (256 of them holding 35,000 to 70,000
  // characters) as many as make 70,000 characters; Latin-1 text (one-byte strings), and
  // two-byte text in short deltas, stays in parts
  const cases = [[7, 256, 0xe0], [7, 256, 0x430], [100, 256, 0xe0], [183, 383, 0xe0], [300, 256, 0xe0], [40_000, 256, 0xe0]] as const;
  for (const [size, perGroup, first] of cases) {
    const block = new TextBlock('text', 0, 0, -1);
    const deltas = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(first + (i % 32)).repeat(size - 1) + (i % 10));
    for (const d of deltas) block.append(d);
    const groups = Math.floor(3000 / perGroup);
    t.notOk(block.utf16, `${size}-character deltas from U+${first.toString(16)}: kept in parts`);
    t.equal(block.parts.length, groups + (3000 - groups * perGroup), `${size}-character deltas: ${groups} groups and the rest pending`);
    t.ok(block.parts.slice(0, groups).every((g) => g.length === perGroup * size), `${size}-character deltas: groups of ${perGroup}`);
    t.equal(block.text(), deltas.join(''), `${size}-character deltas: the text is every delta in order`);
    t.equal(block.parts.length, 1, 'read once, kept joined');
    block.append('more');
    t.equal(block.text(), deltas.join('') + 'more', 'a delta after a read');
  }
});

t.test('long deltas of two-byte text are kept as UTF-16 code units: same text, same byte limit', async (t) => {
  const { TextBlock, TextStore } = await import('../../lib/accumulate/text.js');
  const { BlockCounter } = await import('../../lib/accumulate/limits.js');
  const cyrillic = (i: number, size: number): string => String.fromCharCode(0x430 + (i % 32)).repeat(size - 1) + (i % 10);
  // [what, deltas]: two-byte from the start; Latin-1 first and two-byte later (a later group switches);
  // surrogate pairs cut between deltas and lone surrogates (code units are kept as they are)
  const inputs: [string, string[]][] = [
    ['Cyrillic, 100 characters a delta', Array.from({ length: 3000 }, (_, i) => cyrillic(i, 100))],
    ['Cyrillic, 183 characters a delta', Array.from({ length: 3000 }, (_, i) => cyrillic(i, 183))],
    ['one 40,000-character delta after another', Array.from({ length: 300 }, (_, i) => cyrillic(i, 40_000))],
    ['Latin-1 for 2,000 deltas, then CJK', Array.from({ length: 3000 }, (_, i) => (i < 2000 ? 'caf\u00e9 '.repeat(20) : '\u6771\u4eac'.repeat(50)) + i)],
    ['surrogate pairs cut between deltas, lone surrogates', Array.from({ length: 3000 }, (_, i) => 'x'.repeat(80) + (i % 2 === 0 ? 'a\ud83d' : '\ude42b') + (i % 97 === 0 ? '\udc00' : ''))],
  ];
  for (const [name, deltas] of inputs) {
    const block = new TextBlock('text', 0, 0, -1);
    for (const d of deltas) block.append(d);
    t.ok(block.utf16, `${name}: kept as code units`);
    t.equal(block.parts.length, 0, `${name}: no parts meanwhile`);
    t.equal(block.utf8Bytes(), Buffer.byteLength(deltas.join(''), 'utf8'), `${name}: UTF-8 bytes measured from the code units`);
    t.equal(block.text(), deltas.join(''), `${name}: the text is every delta in order`);
    t.notOk(block.utf16, `${name}: read out once, kept as one part`);
    block.append('more');
    t.equal(block.text(), deltas.join('') + 'more', `${name}: a delta after a read`);
  }
  // the byte limit trips at the same delta as when every delta is measured
  const deltas = Array.from({ length: 3000 }, (_, i) => cyrillic(i, 100));
  // (the meter measures the block once when 3 × characters passes the limit: here after the switch)
  const max = 500_000;
  let total = 0;
  const expected = deltas.findIndex((d) => (total += Buffer.byteLength(d, 'utf8')) > max);
  const store = new TextStore(max, new BlockCounter(10));
  let tripped = -1;
  for (let i = 0; i < deltas.length && tripped < 0; i++) {
    try {
      store.add('text', 0, 0, -1, deltas[i]!);
    } catch {
      tripped = i;
    }
  }
  t.ok(store.blocks[0]!.utf16, 'the block was kept as code units before the limit');
  t.equal(tripped, expected, `maxTextBytes ${max}: tripped at delta ${expected}, as measured delta by delta`);
});

/** A JSON string body (no quotes) for `text`, with `\uXXXX` escapes for some characters as a provider may send them. */
function escapedBody(text: string, escapeEvery: number): string {
  let out = '';
  let i = 0;
  for (const ch of text) {
    const plain = JSON.stringify(ch).slice(1, -1);
    if (plain !== ch || i++ % escapeEvery !== 0) out += plain;
    else for (let k = 0; k < ch.length; k++) out += '\\u' + ch.charCodeAt(k).toString(16).padStart(4, '0');
  }
  return out;
}

/** The latin1 view of a body's UTF-8 bytes: what an SSE event template hands the raw text sink. */
const wire = (body: string): string => Buffer.from(body, 'utf8').toString('latin1');

t.test('deltas taken as wire bytes: unescaped in place, decoded once, in order with string deltas', async (t) => {
  const { TextBlock } = await import('../../lib/accumulate/text.js');
  const texts = ['Hello', ' w\u00f6rld\n', ' "q" \\ / \t\r\b\f', ' \u6771\u4eac', ' \ud83d\ude42!', ' \u0001\u001f\u007f', 'caf\u00e9 \u00c9 \u20ac'];
  for (const escapeEvery of [1, 2, 1000]) {
    const block = new TextBlock('text', 0, 0, -1);
    let bytes = 0;
    for (const text of texts) {
      const body = escapedBody(text, escapeEvery);
      t.equal(JSON.parse(`"${body}"`), text, 'the body is the text in JSON');
      const n = block.writeRaw(wire(body));
      if (/\\u[dD][89a-fA-F]/.test(body)) {
        t.equal(n, -1, `a surrogate escape is left to the string (${JSON.stringify(body)})`);
        block.append(text);
        bytes += Buffer.byteLength(text, 'utf8');
        continue;
      }
      t.equal(n, Buffer.byteLength(text, 'utf8'), `${JSON.stringify(body)}: its UTF-8 bytes`);
      block.commitRaw(n);
      bytes += n;
    }
    t.equal(block.utf8Bytes(), bytes, `escapes every ${escapeEvery}: UTF-8 bytes counted before decoding`);
    t.equal(block.text(), texts.join(''), `escapes every ${escapeEvery}: the text, in order`);
    t.equal(block.writeRaw(wire('more')), 4);
    block.commitRaw(4);
    block.append(' and a string');
    t.equal(block.text(), texts.join('') + 'more and a string', 'wire bytes, then a string: in order');
  }
  // string deltas first (before a template learned the layout), then wire bytes: one text, in order
  for (const first of [['Hi', ' caf\u00e9 \ud83d\ude42'], ['a lone \ud83d', ' surrogate'], ['x'.repeat(70_000)]]) {
    const block = new TextBlock('text', 0, 0, -1);
    for (const d of first) block.append(d);
    const n = block.writeRaw(wire(' then \\u00e9 \\"bytes\\"'));
    block.commitRaw(n);
    block.append(' and a string');
    const expected = first.join('') + ' then \u00e9 "bytes" and a string';
    t.equal(block.utf8Bytes(), Buffer.byteLength(expected, 'utf8'), `${JSON.stringify(first[0]!.slice(0, 10))}…: UTF-8 bytes`);
    t.equal(block.text(), expected, `${JSON.stringify(first[0]!.slice(0, 10))}…: strings, wire bytes, a string: in order`);
  }
  const block = new TextBlock('text', 0, 0, -1);
  const every = '\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u00C9\\u20AC\\u6771';
  const decoded = JSON.parse(`"${every}"`) as string;
  t.equal(block.writeRaw(wire(every)), Buffer.byteLength(decoded, 'utf8'), `every escape but a surrogate is undone in place: ${every}`);
  t.equal(block.text(), '', 'not kept until committed');
  t.equal(block.writeRaw(wire('bad \\x escape')), -1, 'an escape JSON does not have is left to the string path');
  t.equal(block.writeRaw(wire('\\u12g4')), -1, 'so is a \\u without four hex digits');
  t.equal(block.writeRaw(wire('\\uD83D')), -1, 'and a lone surrogate, uppercase hex');
  t.equal(block.text(), '', 'nothing was kept by a write not committed');
  // long text: the buffer grows many times, every byte kept
  const long = Array.from({ length: 5000 }, (_, i) => `${i} caf\u00e9 \u043f\u043e\u0442\u043e\u043a "q"\n`);
  for (const d of long) {
    const n = block.writeRaw(wire(JSON.stringify(d).slice(1, -1)));
    block.commitRaw(n);
  }
  t.equal(block.text(), long.join(''), `${long.length} deltas, ${long.join('').length} characters`);
});

t.test('wire bytes, a string delta, wire bytes: the string joins the bytes unless UTF-8 cannot carry it', async (t) => {
  const { TextBlock } = await import('../../lib/accumulate/text.js');
  for (const middle of ['plain', ' caf\u00e9 \u6771 \ud83d\ude42', 'a lone \ud83d', 'x'.repeat(70_000)]) {
    const block = new TextBlock('text', 0, 0, -1);
    const before = ' before \u00e9 "q"\n';
    const after = ' after \u20ac';
    block.commitRaw(block.writeRaw(wire(JSON.stringify(before).slice(1, -1))));
    block.append(middle);
    block.commitRaw(block.writeRaw(wire(JSON.stringify(after).slice(1, -1))));
    const expected = before + middle + after;
    t.equal(block.utf8Bytes(), Buffer.byteLength(expected, 'utf8'), `${JSON.stringify(middle.slice(0, 12))}: UTF-8 bytes`);
    t.equal(block.text(), expected, `${JSON.stringify(middle.slice(0, 12))}: in order`);
  }
});

t.test('long texts one after another (a buffer let go of is reused): each text intact', async (t) => {
  const { TextBlock } = await import('../../lib/accumulate/text.js');
  const texts: string[] = [];
  const read: string[] = [];
  // sizes that grow, shrink and grow past the spare, in wire bytes and in UTF-16 code units
  for (const [n, k] of [[3000, 'a'], [9000, 'b'], [2000, 'c'], [30000, 'd'], [500, 'e'], [9000, 'f']] as const) {
    const deltas = Array.from({ length: n }, (_, i) => `${k}${i} caf\u00e9 \u043f\u043e\u0442\u043e\u043a "q"\n`);
    const raw = new TextBlock('text', 0, 0, -1);
    for (const d of deltas) raw.commitRaw(raw.writeRaw(wire(JSON.stringify(d).slice(1, -1))));
    const units = new TextBlock('text', 0, 0, -1);
    for (const d of deltas) units.append(d + '\u6771'.repeat(64));
    texts.push(deltas.join(''), deltas.map((d) => d + '\u6771'.repeat(64)).join(''));
    read.push(raw.text(), units.text());
  }
  for (let i = 0; i < texts.length; i++) t.equal(read[i], texts[i], `text ${i} (${texts[i]!.length} characters) read correctly and unchanged since`);
});

t.test('deltas taken as wire bytes: maxTextBytes trips at the same delta as for strings', async (t) => {
  const { TextStore } = await import('../../lib/accumulate/text.js');
  const { BlockCounter } = await import('../../lib/accumulate/limits.js');
  const deltas = Array.from({ length: 3000 }, (_, i) => `\u043f\u043e\u0442\u043e\u043a ${i} "x"\n`);
  for (const max of [100, 5_000, 40_000]) {
    const trip = (raw: boolean): number => {
      const store = new TextStore(max, new BlockCounter(10));
      for (let i = 0; i < deltas.length; i++) {
        try {
          if (raw) store.addRaw('text', 0, 0, -1, wire(JSON.stringify(deltas[i]).slice(1, -1)));
          else store.add('text', 0, 0, -1, deltas[i]!);
        } catch {
          return i;
        }
      }
      return -1;
    };
    const expected = trip(false);
    t.ok(expected > 0, `maxTextBytes ${max}: strings trip at delta ${expected}`);
    t.equal(trip(true), expected, `maxTextBytes ${max}: wire bytes trip there too`);
  }
});
