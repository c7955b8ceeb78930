/**
 * createStream({ to }) with a named source: text deltas the reading side's templates recognise go to the
 * encoder without their event, with the source's escaped text, written as it came when JSON.stringify
 * would write the same. The bytes out must not depend on it: the same as with the templates off
 * (fastPath: false, every delta an event), and the same whatever escapes the source chose for a text.
 */
import t from 'tap';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import type { TargetName } from '../../lib/encode/types.js';
import type { DialectName } from '../../lib/events.js';

const TARGETS: TargetName[] = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini', 'ai-sdk-ui', 'gemini-interactions'];

/**
 * Delta bodies as JSON string bodies (escaped), by pairs: the second spells the first's text with other
 * escapes, ones JSON.stringify would not write (`\/`, `\u` for a printable or non-ASCII character, an
 * uppercase hex digit, a surrogate pair escaped, a short-form control written as `\u`).
 */
const BODIES: [string, string][] = [
  ['plain words ', 'plain words '],
  ['a \\"quote\\" and a \\\\ backslash\\n', 'a \\u0022quote\\" and a \\\\ backslash\\u000a'],
  ['café — naïve 東京 🙂 ', 'caf\\u00e9 \\u2014 na\\u00EFve \\u6771\\u4eac \\ud83d\\ude42 '],
  ['a/b <tag> ', 'a\\/b \\u003ctag\\u003e '],
  ['tab\\tcr\\rff\\fbs\\b ', 'tab\\u0009cr\\u000dff\\u000cbs\\u0008 '],
  ['ctl \\u0001\\u001f\\u000b ', 'ctl \\u0001\\u001F\\u000b '],
  ['\u2028line sep\u2029 del\u007f ', '\\u2028line sep\\u2029 del\\u007f '],
  // an escaped backslash before a slash or a u is no escape of theirs
  ['a \\\\/ b \\\\u00e9 \\\\u0001 ', 'a \\\\\\/ b \\u005cu00e9 \\\\u0001 '],
];

function interactions(bodies: string[]): string {
  const ev = (type: string, data: object | string): string => `event: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  let s = ev('interaction.created', { interaction: { id: 'v1_raw', status: 'in_progress', object: 'interaction', model: 'gemini-2.5-flash' }, event_type: 'interaction.created' });
  s += ev('step.start', { index: 0, step: { type: 'thought' }, event_type: 'step.start' });
  for (const b of bodies) s += ev('step.delta', `{"index":0,"delta":{"type":"thought_summary","content":{"text":"${b}"}},"event_type":"step.delta"}`);
  s += ev('step.stop', { index: 0, event_type: 'step.stop' });
  s += ev('step.start', { index: 1, step: { type: 'model_output' }, event_type: 'step.start' });
  for (const b of bodies) s += ev('step.delta', `{"index":1,"delta":{"text":"${b}","type":"text"},"event_type":"step.delta"}`);
  s += ev('step.stop', { index: 1, event_type: 'step.stop' });
  s += ev('interaction.completed', { interaction: { id: 'v1_raw', status: 'completed', object: 'interaction', model: 'gemini-2.5-flash', usage: { total_input_tokens: 3, total_output_tokens: 40 } }, event_type: 'interaction.completed' });
  return s;
}

function anthropic(bodies: string[]): string {
  const ev = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;
  let s = ev('message_start', '{"type":"message_start","message":{"id":"msg_raw","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}');
  s += ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
  for (const b of bodies) s += ev('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${b}"}}`);
  s += ev('content_block_stop', '{"type":"content_block_stop","index":0}');
  s += ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}');
  s += ev('message_stop', '{"type":"message_stop"}');
  return s;
}

/** A Gemini JSON array (generateContent's default framing): its payload templates hand the text over decoded, with its body. */
function geminiArray(bodies: string[]): string {
  const el = (b: string): string => `{"candidates": [{"content": {"parts": [{"text": "${b}"}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "r_raw"}`;
  const last = '{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 3,"candidatesTokenCount": 40,"totalTokenCount": 43},"modelVersion": "gemini-2.5-flash","responseId": "r_raw"}';
  return `[${[...bodies.map(el), last].join('\n,\r\n')}\n]`;
}

function run(input: Buffer, dialect: DialectName, to: TargetName, size: number, fastPath: boolean): string {
  let out = '';
  const stage = createOutputStage({ dialect, framing: dialect === 'gemini' ? 'json-array' : 'sse', to, fastPath });
  const emit = (s: unknown): void => {
    out += String(s);
  };
  for (let i = 0; i < input.length; i += size) stage.push(input.subarray(i, i + size), emit);
  stage.end(emit);
  return out;
}

t.test('the same bytes with the source escaped text taken as with every delta an event, and whatever escapes the source wrote', (t) => {
  const realNow = Date.now;
  Date.now = () => 1_764_700_000_000; // (Chat and Responses chunks carry the time they are written)
  t.teardown(() => {
    Date.now = realNow;
  });
  // each body several times over: the templates learn a layout from the first events that have it
  const canonical = BODIES.flatMap(([c]) => [c, c, c]);
  const other = BODIES.flatMap(([c, o]) => [c, o, o]);
  for (const [dialect, make] of [['gemini-interactions', interactions], ['anthropic-messages', anthropic], ['gemini', geminiArray]] as const) {
    const a = Buffer.from(make(canonical));
    const b = Buffer.from(make(other));
    // (into its own wire a source passes as it came, escapes and all: pass-through.test.ts)
    for (const to of TARGETS.filter((x) => x !== dialect)) {
      const expected = run(a, dialect, to, a.length, false);
      t.ok(expected.includes('東京'), `${dialect} → ${to}: the text is written`);
      for (const size of [a.length, 65536, 7, 1]) {
        t.equal(run(a, dialect, to, size, true), expected, `${dialect} → ${to}, ${size}-byte chunks`);
        t.equal(run(b, dialect, to, size, true), expected, `${dialect} → ${to}, ${size}-byte chunks, other escapes`);
      }
    }
  }
  t.end();
});
