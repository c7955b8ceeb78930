import t from 'tap';
import { createAutoFramer } from '../../lib/framing/detect.js';
import { corpusFiles } from '../helpers/corpus.js';
import { quickChunkings } from '../helpers/chunks.js';
import { runChunks } from '../helpers/run.js';

const expectedFraming: Record<string, string> = {
  'claude-agent-sdk': 'json-array',
  'gemini-json-array': 'json-array',
  'gemini-live': 'json-values',
  'openai-realtime': 'json-values',
};

t.test('every corpus file frames without error, identically at any chunking', (t) => {
  for (const file of corpusFiles()) {
    const whole = createAutoFramer();
    const ref = runChunks(whole, [file.bytes]);
    t.equal(ref.error, null, `${file.name}: no error`);
    t.ok(ref.items.length > 0, `${file.name}: has frames`);
    // .body: a JSON error body; .ndjson: events one per line as the source stored them
    const framing = file.name.endsWith('.body') || file.name.endsWith('.ndjson') ? 'json-values' : (expectedFraming[file.dir] ?? 'sse');
    t.equal(whole.framing, framing, `${file.name}: detected ${framing}`);
    for (const { name, chunks } of quickChunkings(file.bytes)) {
      if (name === 'whole') continue;
      const r = runChunks(createAutoFramer(), chunks);
      t.same(r.items, ref.items, `${file.name} @ ${name}`);
      t.equal(r.error, null);
    }
  }
  t.end();
});
