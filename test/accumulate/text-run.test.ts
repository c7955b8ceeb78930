import t from 'tap';
import { TextRun } from '../../lib/accumulate/final.js';

/** A JSON string body as the latin1 view of its UTF-8 bytes (what an event template captures). */
const wire = (body: string): string => Buffer.from(body, 'utf8').toString('latin1');

t.test('TextRun: decoded and wire-byte deltas read back as the strings JSON.parse gives', (t) => {
  const bodies = ['plain', 'line\\nbreak \\"quoted\\" \\\\ \\/ \\t\\b\\f\\r', 'caf\\u00e9 \\u6771', 'Straße 東京 🚀', 'half \\ud83d', '\\ude80 other half'];
  const run = new TextRun();
  run.add(false, 0, -1, 'as a string \\n');
  bodies.forEach((b, i) => run.add(i % 2 === 0, 1, i, wire(b), true));
  t.equal(run.text(0), 'as a string \\n', 'a decoded delta is taken as it is');
  bodies.forEach((b, i) => t.equal(run.text(i + 1), JSON.parse(`"${b}"`) as string, `wire body ${JSON.stringify(b)}`));
  t.same(run.event(0), { type: 'text_delta', index: 0, text: 'as a string \\n' });
  t.same(run.event(1), { type: 'reasoning_delta', index: 1, contentIndex: 0, text: 'plain' });
  t.same(run.event(2), { type: 'text_delta', index: 1, contentIndex: 1, text: 'line\nbreak "quoted" \\ / \t\b\f\r' });
  t.same(run.event(4), { type: 'text_delta', index: 1, contentIndex: 3, text: 'Straße 東京 🚀' });
  t.end();
});
