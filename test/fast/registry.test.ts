/**
 * The fast twins (lib/fast/registry.ts): the dialects that have a raw-text
 * fast path, and the look-alikes that share one (xAI's Messages and
 * Responses, which the generated benchmark fixtures of fast-path.test.ts do
 * not cover) take their deltas through it with the same output.
 */
import t, { type Test } from 'tap';
import { dialectNames } from '../../lib/dialects/registry.js';
import { fastDialects, fastOf } from '../../lib/fast/registry.js';
import { parsedTexts, run, type Config } from '../helpers/fast-path.js';

const WITH_FAST = ['xai-chat', 'openai-chat', 'gemini-interactions', 'xai-responses', 'openai-responses', 'xai-messages', 'anthropic-messages', 'gemini'];

t.test('the dialects with a fast path, and those without', async (t) => {
  t.same([...fastDialects].sort(), [...WITH_FAST].sort());
  for (const name of dialectNames) t.equal(fastOf(name) !== null, WITH_FAST.includes(name), name);
  t.equal(fastOf('xai-chat'), fastOf('openai-chat'), 'xai-chat reads through the Chat twin');
  t.equal(fastOf('xai-messages'), fastOf('anthropic-messages'), 'xai-messages reads through the Messages twin');
  t.equal(fastOf('xai-responses'), fastOf('openai-responses'), 'xai-responses reads through the Responses twin');
});

function sse(events: [string, object][]): Buffer {
  return Buffer.from(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
}

/** Fast on = off (events and finals, chunked whole and per byte), and the `taken` payloads never reach JSON.parse. */
function check(t: Test, name: string, bytes: Buffer, config: Config, taken: object[]): void {
  const bytewise = [...bytes].map((b) => Buffer.from([b]));
  for (const chunks of [[bytes], bytewise]) {
    for (const positions of [false, true]) {
      t.strictSame(run(chunks, config, 'events', positions, true), run(chunks, config, 'events', positions, false), `${name}: same events (${chunks.length} chunks, positions=${positions})`);
    }
    t.strictSame(run(chunks, config, 'final', false, true), run(chunks, config, 'final', false, false), `${name}: same final (${chunks.length} chunks)`);
  }
  const seen = parsedTexts(bytes, config);
  for (const p of taken) t.notOk(seen.has(JSON.stringify(p)), `${name}: ${JSON.stringify(p)} taken by a template`);
}

t.test('xai-messages: text, thinking and tool-argument deltas through the Messages twin', async (t) => {
  const later = [
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: ' more' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ' world' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"x"}' } },
  ];
  const bytes = sse([
    ['message_start', { type: 'message_start', message: { id: 'msg_1', model: 'grok-3', usage: { input_tokens: 3 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm' } }],
    ['content_block_delta', later[0]!],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hello' } }],
    ['content_block_delta', later[1]!],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } }],
    ['content_block_delta', later[2]!],
    ['content_block_stop', { type: 'content_block_stop', index: 2 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  for (const dialect of ['xai-messages', 'auto'] as const) check(t, dialect, bytes, { dialect }, later);
  const [final] = run([bytes], { dialect: 'xai-messages' }, 'final', false, true) as { dialect: string; text: string; reasoning: string }[];
  t.equal(final!.dialect, 'xai-messages');
  t.equal(final!.text, 'Hello world');
  t.equal(final!.reasoning, 'Hmm more');
});

t.test('xai-responses: text and function-argument deltas through the Responses twin', async (t) => {
  let seq = 0;
  const ev = (p: object): [string, object] => {
    const payload = { ...p, sequence_number: seq++ };
    return [(p as { type: string }).type, payload];
  };
  const events = [
    ev({ type: 'response.created', response: { id: 'resp_1', model: 'grok-4', status: 'in_progress' } }),
    ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello' }),
    ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: ' world' }),
    ev({ type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '' } }),
    ev({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"a":' }),
    ev({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '1}' }),
    ev({ type: 'response.completed', response: { id: 'resp_1', model: 'grok-4', status: 'completed', usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 } } }),
  ];
  const bytes = sse(events);
  const later = [events[2]![1], events[5]![1]];
  for (const dialect of ['xai-responses', 'auto'] as const) check(t, dialect, bytes, { dialect }, later);
  const [final] = run([bytes], { dialect: 'xai-responses' }, 'final', false, true) as { dialect: string; text: string }[];
  t.equal(final!.dialect, 'xai-responses');
  t.equal(final!.text, 'Hello world');
});
