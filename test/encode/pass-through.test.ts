/**
 * createStream({ to }) of a source that already speaks the target wire: its
 * frames are written out as they came (payloads byte for byte), so reading
 * the output gives the very events of the input, and nothing is lost.
 */
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import type { DialectName, Frame, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { createFramer } from '../../lib/framing/detect.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import type { LossReport, TargetName } from '../../lib/encode/types.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { fixedChunks } from '../helpers/chunks.js';

const noAt = (events: UnifiedEvent[]): unknown[] => events.map(({ at: _at, ...rest }) => rest);

function transcode(chunks: Buffer[], to: TargetName, extra: { dialect?: DialectName; framing?: 'sse' | 'json-array' } = {}): { text: string; losses: LossReport[] } {
  const losses: LossReport[] = [];
  const stage = createOutputStage({ to, onLoss: (r) => losses.push(r), ...extra });
  const out = runStage(stage, chunks) as string[];
  return { text: out.join(''), losses };
}

const PASSING: [string, TargetName, 'sse' | 'json-array'][] = [
  ['openai-chat', 'openai-chat', 'sse'],
  ['xai-chat', 'openai-chat', 'sse'],
  ['openai-responses', 'openai-responses', 'sse'],
  ['xai-responses', 'openai-responses', 'sse'],
  ['anthropic-messages', 'anthropic-messages', 'sse'],
  ['gemini-sse', 'gemini', 'sse'],
  ['gemini-json-array', 'gemini-json-array', 'json-array'],
  ['gemini-interactions', 'gemini-interactions', 'sse'],
];

for (const [dir, to, framing] of PASSING) {
  t.test(`${dir} → ${to}: the same payloads, the same events, nothing lost`, async (t) => {
    const files = corpusFiles([dir]).filter((f) => f.name.endsWith(framing === 'sse' ? '.sse' : '.json'));
    t.ok(files.length > 0, `${files.length} captures`);
    for (const f of files) {
      const { text, losses } = transcode([f.bytes], to);
      const payloads = (bytes: Buffer | string): string[] => (runStage(createFramer(framing), [bytes]) as Frame[]).map((fr) => fr.data);
      t.strictSame(payloads(text), payloads(f.bytes), `${f.name}: every payload byte for byte`);
      const before = runStage(createOutputStage({ output: 'events' }), [f.bytes]) as UnifiedEvent[];
      const after = runStage(createOutputStage({ output: 'events' }), [text]) as UnifiedEvent[];
      t.ok(isDeepStrictEqual(noAt(after), noAt(before)), `${f.name}: the same events`);
      t.strictSame(losses, [], `${f.name}: no loss report`);
      // named by the caller (the gateway does), its frames pass without being decoded: the same bytes
      const named = transcode([f.bytes], to, { dialect: dialectOf(before), framing });
      t.equal(named.text, text, `${f.name}: the same bytes when the dialect and framing are given`);
      t.equal(transcode(fixedChunks(f.bytes, 7), to, { dialect: dialectOf(before), framing }).text, text, `${f.name}: and at 7-byte chunks`);
    }
  });
}

/** The dialect of a capture's first response (the one its frames pass as). */
function dialectOf(events: UnifiedEvent[]): DialectName {
  const start = events.find((e) => e.type === 'start');
  return start?.type === 'start' && start.dialect !== undefined ? start.dialect : 'openai-chat';
}

t.test('the same output at every chunking (1-byte and 7-byte chunks)', async (t) => {
  const bytes = fixture('quickstart/anthropic-tool-use.sse');
  const whole = transcode([bytes], 'anthropic-messages').text;
  t.equal(transcode(fixedChunks(bytes, 1), 'anthropic-messages').text, whole);
  t.equal(transcode(fixedChunks(bytes, 7), 'anthropic-messages').text, whole);
});

t.test('a log of two wires: the response already in the target wire passes, the other is encoded', async (t) => {
  const anthropic = fixture('quickstart/anthropic-tool-use.sse');
  const chat = corpusFiles(['openai-chat']).find((f) => f.name.endsWith('openai-python--text-usage.sse'))!.bytes;
  const log = Buffer.concat([anthropic, Buffer.from('\n'), chat]);
  const { text, losses } = transcode([log], 'anthropic-messages');
  const finals = runStage(createOutputStage({ output: 'final', dialect: 'anthropic-messages' }), [text]) as { text: string; dialect: string }[];
  const originals = runStage(createOutputStage({ output: 'final' }), [log]) as { text: string }[];
  t.equal(finals.length, 2);
  t.strictSame(
    finals.map((f) => f.text),
    originals.map((f) => f.text),
  );
  t.ok(text.startsWith(anthropic.toString('utf8').split('\n\n')[0]!.replace(/\r/g, '')), 'the first response as it came');
  t.ok(losses.every((r) => r.id !== null), 'reports only for the encoded response');
});

t.test('another framing is encoded, not passed: a Gemini JSON array into the gemini SSE wire', async (t) => {
  const f = corpusFiles(['gemini-json-array']).find((c) => c.name.endsWith('llm-gemini--function-call.json'))!;
  const { text } = transcode([f.bytes], 'gemini');
  t.match(text, /^data: \{"candidates":/, 'SSE chunks, not the array');
  t.notOk(text.startsWith('['));
  const back = runStage(createOutputStage({ output: 'final', dialect: 'gemini' }), [text]) as { text: string; toolCalls: unknown[] }[];
  const original = runStage(createOutputStage({ output: 'final' }), [f.bytes]) as { text: string; toolCalls: unknown[] }[];
  t.strictSame(back.map((b) => [b.text, b.toolCalls]), original.map((o) => [o.text, o.toolCalls]));
});

t.test('passThrough: false encodes a source already in the target wire, as encoder({ to }) does from its events', async (t) => {
  const bytes = fixture('quickstart/anthropic-tool-use.sse');
  const losses: LossReport[] = [];
  const encoded = (runStage(createOutputStage({ to: 'anthropic-messages', passThrough: false, onLoss: (r) => losses.push(r) }), [bytes]) as string[]).join('');
  const events = runStage(createOutputStage({ output: 'events' }), [bytes]) as UnifiedEvent[];
  const fromEvents = (runStage(createEncoder({ to: 'anthropic-messages' }), events) as string[]).join('');
  t.equal(encoded, fromEvents, 'the bytes encoder({ to }) writes from the events');
  t.not(encoded, bytes.toString('utf8'), 'not the bytes that came');
  const unified = (evs: UnifiedEvent[]) => noAt(evs.filter((e) => e.type !== 'raw'));
  t.strictSame(unified(runStage(createOutputStage({ output: 'events' }), [encoded]) as UnifiedEvent[]), unified(events), 'read back: the same events but the pings');
  const pings = events.filter((e) => e.type === 'raw').length;
  t.ok(pings > 0, `${pings} pings`);
  t.strictSame(
    losses.flatMap((r) => r.dropped.map((d) => [d.what, d.count])),
    [['raw', pings]],
    'the pings reported lost (raw), nothing else',
  );
  t.throws(() => createOutputStage({ passThrough: false }), { name: 'OptionError' }, 'passThrough without to is refused');
});

t.test('a source named as the target wire that holds no response: answered in the target\'s error form, as when detected', async (t) => {
  for (const input of ['<html>502 Bad Gateway</html>', '']) {
    const named = transcode([Buffer.from(input)], 'anthropic-messages', { dialect: 'anthropic-messages', framing: 'sse' });
    t.equal(named.text, transcode([Buffer.from(input)], 'anthropic-messages').text, JSON.stringify(input));
  }
  const named = transcode([Buffer.from('<html>502 Bad Gateway</html>')], 'anthropic-messages', { dialect: 'anthropic-messages', framing: 'sse' });
  t.match(named.text, /event: error/, 'an error event');
});
