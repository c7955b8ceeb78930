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
