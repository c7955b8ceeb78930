import t from 'tap';
import { decodeWireBody } from '../../lib/framing/json-text.js';

/** A JSON string body as the latin1 view of its UTF-8 bytes (what an event template captures). */
const wire = (body: string): string => Buffer.from(body, 'utf8').toString('latin1');

t.test('decodeWireBody: a JSON string body as its wire bytes reads back as the string JSON.parse gives', (t) => {
  const bodies = ['plain', 'line\\nbreak \\"quoted\\" \\\\ \\/ \\t\\b\\f\\r', 'caf\\u00e9 \\u6771', 'Straße 東京 🚀', 'half \\ud83d', '\\ude80 other half'];
  for (const b of bodies) t.equal(decodeWireBody(wire(b)), JSON.parse(`"${b}"`) as string, `wire body ${JSON.stringify(b)}`);
  t.end();
});
