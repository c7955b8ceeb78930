/**
 * xAI's deprecated Anthropic-compatible /v1/messages. No capture exists in the
 * corpus; the fixture follows the workplace's spec (shared/spec/xai-streaming.md §3): the text
 * block reuses index 0 after the thinking block stopped, deltas carry no
 * `index`, no ping, no [DONE].
 */
import t from 'tap';
import type { DialectOption, UnifiedEvent } from '../../lib/events.js';
import { chunkings } from '../helpers/chunks.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, differingChunkings, type Input } from '../helpers/decode.js';
import { startDialect } from '../helpers/events.js';
import { typedSse as sse } from '../helpers/sse.js';

const DIALECT = 'xai-messages';

const decode = (input: Input, dialect: DialectOption = DIALECT): UnifiedEvent[] => decodeEvents(input, { dialect });

/** Non-raw events, for sequences where only the unified meaning matters. */
function meaningful(events: UnifiedEvent[]): UnifiedEvent[] {
  return events.filter((e) => e.type !== 'raw');
}

const FIXTURE = `${DIALECT}/thinking-text-index-reuse.sse`;

t.test('thinking then text with index reuse and index-less deltas: exact events', (t) => {
  const bytes = fixture(FIXTURE);
  const events = decode(bytes);
  t.same(events, [
    { type: 'start', id: '3f1c2a7e-0d4b-4c59-9e1a-5b7f2c8d9e01', model: 'grok-4.3', dialect: DIALECT },
    { type: 'raw', event: { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } } },
    { type: 'reasoning_delta', index: 0, text: 'Calculating 17 times' },
    { type: 'reasoning_delta', index: 0, text: ' 23 → 391.' },
    { type: 'raw', event: { type: 'content_block_stop', index: 0 } },
    { type: 'raw', event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    // Provider index 0 again: a separate block under a fresh unified index.
    { type: 'text_delta', index: 1, text: '17 × 23 ' },
    { type: 'text_delta', index: 1, text: '= 391' },
    { type: 'raw', event: { type: 'content_block_stop', index: 0 } },
    {
      type: 'usage',
      inputTokens: 196,
      outputTokens: 147,
      totalTokens: 343,
      reasoningTokens: null,
      cachedInputTokens: null,
      raw: { input_tokens: 196, output_tokens: 147 },
    },
    { type: 'raw', event: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 147 } } },
    { type: 'done', stopReason: 'end', providerReason: 'end_turn' },
  ]);
  t.end();
});

t.test('fixture gives identical events under every chunking', (t) => {
  const bytes = fixture(FIXTURE);
  const { differ, ran } = differingChunkings((chunks) => decode(chunks), bytes, chunkings(bytes));
  t.same(differ, [], `${ran} chunkings`);
  t.end();
});

t.test('auto-detection tells xAI from Anthropic by the grok model', (t) => {
  const bytes = fixture(FIXTURE);
  const events = decode(bytes, 'auto');
  t.same(events, decode(bytes));
  t.equal(startDialect(events), DIALECT);
  t.end();
});

const START = { type: 'message_start', message: { id: 'x1', model: 'grok-4.3', usage: { input_tokens: 9, output_tokens: 0 } } };
const STOP = { type: 'message_stop' };

t.test('deltas that do carry index 0 after the reuse go to the new block', (t) => {
  const events = decode(
    sse(
      START,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'say' } },
      { type: 'content_block_stop' },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
      STOP,
    ),
  );
  t.same(
    meaningful(events).filter((e) => e.type === 'reasoning_delta' || e.type === 'text_delta'),
    [
      { type: 'reasoning_delta', index: 0, text: 'think' },
      { type: 'text_delta', index: 1, text: 'say' },
    ],
  );
  t.equal(events.filter((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'content_block_stop').length, 2, 'the index-less stop closes the open block');
  t.end();
});

t.test('a tool block reusing index 0 with index-less input deltas', (t) => {
  const events = decode(
    sse(
      START,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'need weather' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'Checking.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call-abc', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
      { type: 'content_block_stop' },
      // A provider index never seen before, but 1 and 2 are taken by the remapped blocks.
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Done.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } },
      STOP,
    ),
  );
  t.same(meaningful(events), [
    { type: 'start', id: 'x1', model: 'grok-4.3', dialect: DIALECT },
    { type: 'reasoning_delta', index: 0, text: 'need weather' },
    { type: 'text_delta', index: 1, text: 'Checking.' },
    { type: 'tool_call_start', index: 2, id: 'call-abc', name: 'get_weather' },
    { type: 'tool_call_delta', index: 2, id: 'call-abc', argumentsDelta: '{"city":' },
    { type: 'tool_call_delta', index: 2, id: 'call-abc', argumentsDelta: '"Paris"}' },
    { type: 'tool_call_done', index: 2, id: 'call-abc', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'text_delta', index: 3, text: 'Done.' },
    { type: 'usage', inputTokens: 9, outputTokens: 30, totalTokens: 39, reasoningTokens: null, cachedInputTokens: null, raw: { input_tokens: 9, output_tokens: 30 } },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
  ]);
  t.end();
});

t.test('a start on an index that is still open also gets a fresh index; index-less deltas follow the newest', (t) => {
  const events = decode(
    sse(
      START,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'a' } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'b' } },
      { type: 'content_block_stop' },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'c' } },
      STOP,
    ),
  );
  t.same(
    events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? [e.index, e.text] : null)),
    [
      [0, 'a'],
      [1, 'b'],
      [0, 'c'],
    ],
    'after the newest block stops, index-less deltas go back to the one still open',
  );
  t.end();
});

t.test('cut off after the reused block started: usage so far, then incomplete_stream', (t) => {
  const events = decode(
    sse(
      START,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'partial' } },
    ),
  );
  t.same(meaningful(events).slice(-4), [
    { type: 'text_delta', index: 1, text: 'partial' },
    { type: 'usage', inputTokens: 9, outputTokens: 0, totalTokens: 9, reasoningTokens: null, cachedInputTokens: null, raw: { input_tokens: 9, output_tokens: 0 } },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});
