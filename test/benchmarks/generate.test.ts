import { createHash } from 'node:crypto';
import t from 'tap';
import {
  FIXTURE_DIALECTS,
  FIXTURE_SHAPES,
  formatSize,
  generateChunks,
  generateToBuffer,
  wirefoldOptions,
  parseSize,
  replayChunks,
  type FixtureStats,
} from '../../benchmarks/generate.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

t.test('sizes parse in binary units and print back', async (t) => {
  t.equal(parseSize('5MB'), 5 * 1024 * 1024);
  t.equal(parseSize('512KiB'), 512 * 1024);
  t.equal(parseSize('1GB'), 1024 ** 3);
  t.equal(parseSize('1.5kb'), 1536);
  t.equal(parseSize('1048576'), 1048576);
  t.throws(() => parseSize('five'));
  t.equal(formatSize(50 * 1024 * 1024), '50MB');
  t.equal(formatSize(1536), '1536B');
});

t.test('the same seed gives the same bytes; another seed does not', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const a = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 42 });
      const b = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 42 });
      const c = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 43 });
      t.equal(sha256(a.data), sha256(b.data), `${dialect} ${shape}: stable`);
      t.same(a.stats, b.stats, `${dialect} ${shape}: same expectations`);
      t.not(sha256(a.data), sha256(c.data), `${dialect} ${shape}: seed matters`);
      t.equal(a.stats.bytes, a.data.length, `${dialect} ${shape}: byte count exact`);
      t.ok(a.data.length >= 48 * 1024 * 0.9, `${dialect} ${shape}: close to the requested size`);
    }
  }
});

t.test('a pinned fixture keeps its hash (changing the generator changes every benchmark input)', async (t) => {
  const { data } = generateToBuffer({ dialect: 'openai-chat', shape: 'log', size: 16 * 1024, seed: 1 });
  t.equal(sha256(data), 'fb8d05469b2ba30a0b38c11ff07df2fa4f2be544d6d783dd771895b0e80215d4', 'openai-chat log 16 KiB seed 1');
});

t.test('generateChunks yields the same bytes in exact chunk sizes', async (t) => {
  for (const dialect of ['anthropic-messages', 'gemini-json-array'] as const) {
    const whole = generateToBuffer({ dialect, shape: 'log', size: 600 * 1024, seed: 5 });
    const chunks = [...generateChunks({ dialect, shape: 'log', size: 600 * 1024, seed: 5 }, 1536)];
    t.ok(chunks.slice(0, -1).every((c) => c.length === 1536), `${dialect}: every chunk but the last is 1536 bytes`);
    t.equal(sha256(Buffer.concat(chunks)), sha256(whole.data), `${dialect}: same bytes`);
  }
});

t.test('replayChunks repeats a log segment and multiplies the expectations', async (t) => {
  const stats = { ...generateToBuffer({ dialect: 'openai-chat', shape: 'log', size: 100 * 1024, seed: 1 }).stats };
  const out: FixtureStats = { ...stats, bytes: 0, responses: 0, frames: 0, textDeltas: 0, textChars: 0, reasoningDeltas: 0, reasoningChars: 0, toolCalls: 0, toolArgDeltas: 0, toolArgChars: 0, firstResponseTextChars: 0 };
  const chunks = [...replayChunks({ dialect: 'openai-chat', shape: 'log', size: 250 * 1024, seed: 1 }, 100 * 1024, 4096, out)];
  const bytes = chunks.reduce((a, c) => a + c.length, 0);
  const replays = Math.ceil((250 * 1024) / stats.bytes);
  t.ok(replays >= 2);
  t.equal(out.bytes, bytes);
  t.equal(out.bytes, stats.bytes * replays);
  t.equal(out.responses, stats.responses * replays);
  t.equal(out.textChars, stats.textChars * replays);
  t.ok(chunks.every((c) => c.length <= 4096));
});

/** What wirefold finds in a fixture, in the generator's terms. */
function tally(events: UnifiedEvent[]) {
  const s = { starts: 0, done: 0, textDeltas: 0, textChars: 0, reasoningChars: 0, toolCalls: 0, toolArgChars: 0, errors: [] as string[], firstText: 0 };
  for (const e of events) {
    switch (e.type) {
      case 'start':
        s.starts++;
        break;
      case 'done':
        s.done++;
        break;
      case 'text_delta':
        if (e.text.length > 0) s.textDeltas++;
        s.textChars += e.text.length;
        if (s.done === 0) s.firstText += e.text.length;
        break;
      case 'reasoning_delta':
        s.reasoningChars += e.text.length;
        break;
      case 'tool_call_done':
        s.toolCalls++;
        s.toolArgChars += e.arguments.length;
        break;
      case 'error':
        s.errors.push(`${e.code}: ${e.message}`);
        break;
      default:
        break;
    }
  }
  return s;
}

t.test('wirefold decodes every generated fixture into the expected events', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const size = shape === 'single' ? 200 * 1024 : 400 * 1024;
      const { data, stats } = generateToBuffer({ dialect, shape, size, seed: 3 });
      const name = `${dialect} ${shape}`;
      const whole = tally(decodeAll([data], wirefoldOptions(dialect)));
      t.same(whole.errors, [], `${name}: no error events`);
      t.equal(whole.starts, stats.responses, `${name}: one start per response`);
      t.equal(whole.done, stats.responses, `${name}: one done per response`);
      t.equal(whole.textDeltas, stats.textDeltas, `${name}: text deltas`);
      t.equal(whole.textChars, stats.textChars, `${name}: text length`);
      t.equal(whole.reasoningChars, stats.reasoningChars, `${name}: reasoning length`);
      t.equal(whole.toolCalls, stats.toolCalls, `${name}: tool calls`);
      t.equal(whole.toolArgChars, stats.toolArgChars, `${name}: tool argument text`);
      t.equal(whole.firstText, stats.firstResponseTextChars, `${name}: first response's text`);
      if (shape === 'log') t.ok(stats.responses > 3, `${name}: a log holds many responses`);
      // 1.5 KiB cuts land inside code points, CRLF pairs and field names: same result
      const cut = tally(decodeAll(generateChunks({ dialect, shape, size, seed: 3 }, 1536), wirefoldOptions(dialect)));
      t.same(cut, whole, `${name}: same events at 1.5 KiB chunks`);
    }
  }
});
