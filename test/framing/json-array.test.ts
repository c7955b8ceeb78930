import t, { type Test } from 'tap';
import { createJsonArrayFramer } from '../../lib/framing/json-array.js';
import type { Frame } from '../../lib/events.js';
import { chunkings } from '../helpers/chunks.js';
import { runChunks, summary } from '../helpers/run.js';

const f = (data: string): Frame => ({ event: 'message', data, id: '' });

type ErrorSummary = { name: string; code: string; offset: number };

function check(t: Test, name: string, input: string, expected: Frame[], error: ErrorSummary | null = null, max = 400): void {
  t.test(name, (t) => {
    for (const { name: how, chunks } of chunkings(input, max)) {
      const r = summary(runChunks(createJsonArrayFramer(), chunks));
      t.same(r.items, expected, how);
      if (error === null) t.equal(r.error, null, how);
      else t.match(r.error, error, how);
    }
    t.end();
  });
}

// The exact shape Gemini streams: "[{", elements separated by "\n,\r\n", closed by "\n]".
const e1 = '{\n  "candidates": [\n    {\n      "content": {\n        "parts": [\n          {\n            "text": "Hi"\n          }\n        ]\n      }\n    }\n  ]\n}';
const e2 = '{\r\n  "candidates": [{"content": {"parts": [{"text": " there"}]}, "finishReason": "STOP"}],\r\n  "usageMetadata": {"promptTokenCount": 3}\r\n}';
check(t, 'Gemini pretty-printed array with mixed CRLF/LF', `[${e1}\n,\r\n${e2}\n]`, [f(e1), f(e2)]);

const tricky = '{"text": "brace } bracket ] [ { quote \\" backslash \\\\", "t2": "\\\\", "t3": "\\\\\\"}", "sig": "a}b]c"}';
check(t, 'braces, brackets, quotes and backslashes inside strings do not confuse it', `[${tricky},${tricky}]`, [f(tricky), f(tricky)]);

check(t, 'nested arrays and scalars as elements', '[ [1, [2, {"a": [3]}]], "s]", 12.5, true, null ]', [
  f('[1, [2, {"a": [3]}]]'),
  f('"s]"'),
  f('12.5'),
  f('true'),
  f('null'),
]);

check(t, 'empty array gives no frame', '  [ ]  ', []);

check(t, 'unicode in strings survives any split', '[{"t": "日本語 😀 é"}]', [f('{"t": "日本語 😀 é"}')]);

check(t, 'several arrays back to back (a log of responses)', '[{"a":1}]\n[{"b":2}]\n', [f('{"a":1}'), f('{"b":2}')]);

check(t, 'a leading BOM is skipped', '\uFEFF[{"a":1}]', [f('{"a":1}')]);

check(t, 'garbage between elements: complete elements first, then a typed error with the offset', '[{"a":1}, {"b":2} x {"c":3}]', [f('{"a":1}'), f('{"b":2}')], {
  name: 'JsonArrayError',
  code: 'invalid_json_array',
  offset: 18,
});

check(t, 'truncated inside an element', '[{"a":1},{"b":', [f('{"a":1}')], { name: 'JsonArrayError', code: 'invalid_json_array', offset: 14 });

check(t, 'truncated after an element', '[{"a":1}\n', [f('{"a":1}')], { name: 'JsonArrayError', code: 'invalid_json_array', offset: 9 });

check(t, 'not an array at all', '{"a":1}', [], { name: 'JsonArrayError', code: 'invalid_json_array', offset: 0 });

check(t, 'a trailing comma is an error', '[{"a":1},]', [f('{"a":1}')], { name: 'JsonArrayError', code: 'invalid_json_array', offset: 9 });

t.test('the error message says what was expected', (t) => {
  const r = runChunks(createJsonArrayFramer(), ['[{"a":1} x']);
  t.match(r.error?.message, /expected ',' or '\]', found "x"/);
  t.end();
});

t.test('an element larger than maxFrameBytes fails; the array as a whole may be larger', (t) => {
  const el = `{"t":"${'x'.repeat(50)}"}`;
  const ok = runChunks(createJsonArrayFramer({ maxFrameBytes: 100 }), [`[${Array(20).fill(el).join(',')}]`]);
  t.equal(ok.error, null);
  t.equal(ok.items.length, 20);
  const big = `{"t":"${'x'.repeat(200)}"}`;
  for (const { name, chunks } of chunkings(`[${el},${big}]`, 50)) {
    const r = runChunks(createJsonArrayFramer({ maxFrameBytes: 100 }), chunks);
    t.same(r.items, [f(el)], name);
    t.match(r.error, { name: 'FrameTooLargeError', offset: el.length + 2 }, name);
  }
  t.end();
});

t.test('positions give each element its frame number and byte offset', (t) => {
  const r = runChunks(createJsonArrayFramer({ positions: true }), ['[{"a":"é"},\n {"b":2}]']);
  t.same(
    r.items.map((x) => x.at),
    [
      { frame: 0, offset: 1 },
      { frame: 1, offset: 14 },
    ],
  );
  t.end();
});
