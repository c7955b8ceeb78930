import t from 'tap';
import { createJsonValuesFramer } from '../../lib/framing/json-values.js';
import type { Frame } from '../../lib/events.js';
import { chunkings } from '../helpers/chunks.js';
import { runChunks, summary } from '../helpers/run.js';

const f = (data: string): Frame => ({ event: 'message', data, id: '' });

function check(name: string, input: string, expected: Frame[]): void {
  t.test(name, (t) => {
    for (const { name: how, chunks } of chunkings(input)) {
      t.same(summary(runChunks(createJsonValuesFramer(), chunks)), { items: expected, error: null }, how);
    }
    t.end();
  });
}

check('NDJSON lines', '{"a":1}\n{"b":"x\\ny"}\r\n\n{"c":[1,2]}\n', [f('{"a":1}'), f('{"b":"x\\ny"}'), f('{"c":[1,2]}')]);

const pretty1 = '{\n  "serverContent": {\n    "modelTurn": {"parts": [{"text": "}{"}]}\n  }\n}';
check('pretty-printed values spanning lines, any whitespace between', `${pretty1}\n\n   ${pretty1}{"x":1}`, [f(pretty1), f(pretty1), f('{"x":1}')]);

check('a pretty-printed JSON error body is one frame', '{\n  "error": {\n    "code": 400,\n    "message": "API key not valid."\n  }\n}\n', [
  f('{\n  "error": {\n    "code": 400,\n    "message": "API key not valid."\n  }\n}'),
]);

check('text that is not JSON becomes frames (the decoder reports it), never an exception', '{"a":1}\nnot json\n{"b":2}', [
  f('{"a":1}'),
  f('not'),
  f('json'),
  f('{"b":2}'),
]);

t.test('an unterminated value at end of input is an error after the complete values', (t) => {
  const r = runChunks(createJsonValuesFramer(), ['{"a":1}\n{"b":']);
  t.same(r.items, [f('{"a":1}')]);
  t.match(r.error, { code: 'invalid_json_array', offset: 13 });
  t.end();
});

// A broken value costs its own line only (issue 28, quirk 6): NDJSON logs read with framing 'auto' resynchronise at
// the next line, as the ndjson framer does, instead of swallowing the rest of the input into one invalid value.
check('an object left open on its line ends where the next line starts with {', '{"a":1}\n{"b":{"c":2\n{"d":3}\n', [
  f('{"a":1}'),
  f('{"b":{"c":2'),
  f('{"d":3}'),
]);
check('a string left open ends at its line feed (a raw line feed is never inside a JSON string)', '{"a":"x\n{"d":3}\r\n{"e":"y"}', [
  f('{"a":"x'),
  f('{"d":3}'),
  f('{"e":"y"}'),
]);
check('an escaped newline inside a string, and nested objects of a pretty-printed value, are not line starts', '{\n  "a": {\n    "b": "x\\ny"\n  },\n  "c": [\n    {"d": 1}\n  ]\n}\n{"e":2}', [
  f('{\n  "a": {\n    "b": "x\\ny"\n  },\n  "c": [\n    {"d": 1}\n  ]\n}'),
  f('{"e":2}'),
]);

t.test('an NDJSON log with broken lines: framing auto gives the events of framing ndjson, at every chunking', async (t) => {
  const { decodeAll } = await import('../../lib/pipeline/events-stage.js');
  const lines = [
    '{"type":"session.created","event_id":"event_1","session":{"model":"gpt-4o-realtime"}}',
    '{"type":"response.created","event_id":"event_2","response":{"id":"r1","object":"realtime.response"',
    '{"type":"response.output_text.delta","event_id":"event_3","response_id":"r1","item_id":"i","output_index":0,"content_index":0,"delta":"Hi"}',
    '{"type":"conversation.item.created","event_id":"event_4","item":{"id":"i","content":[{"text":"open',
    '{"type":"response.done","event_id":"event_5","response":{"id":"r1","object":"realtime.response","status":"completed","output":[]}}',
  ];
  const input = lines.join('\n') + '\n';
  const want = decodeAll([input], { framing: 'ndjson' });
  t.same(
    want.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.code),
    ['invalid_json', 'invalid_json'],
    'each broken line is one invalid_json',
  );
  t.ok(want.some((e) => e.type === 'text_delta'), 'the lines after them are read');
  for (const { name, chunks } of chunkings(input, 60)) t.same(decodeAll(chunks, { framing: 'auto' }), want, name);
});
