/**
 * Library bugs the fuzzer found, each reduced to a minimal input and kept as a
 * regression test now that it is fixed.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { checkEvents, runOutput } from '../helpers/fuzz.js';
import { createGuardedEventsStage, type CreateStreamOptions } from '../../lib/pipeline/create-stream.js';
import { LimitExceededError } from '../../lib/errors.js';

function events(input: string, options: CreateStreamOptions = {}): UnifiedEvent[] {
  const r = runOutput<UnifiedEvent>([Buffer.from(input, 'utf8')], { ...options, output: 'events' });
  if (r.thrown !== undefined) throw r.thrown;
  return r.items;
}

function finals(input: string, options: CreateStreamOptions = {}): FinalResult[] {
  const r = runOutput<FinalResult>([Buffer.from(input, 'utf8')], { ...options, output: 'final' });
  if (r.thrown !== undefined) throw r.thrown;
  return r.items;
}

const sse = (type: string, fields: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

t.test('messages-delta-after-block-stop: a fragment after content_block_stop', async (tt) => {
  // A proxy replayed one input_json_delta after the block stopped.
  const input =
    sse('message_start', { message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 1, output_tokens: 1 } } }) +
    sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }) +
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } }) +
    sse('content_block_stop', { index: 0 }) +
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"late":1}' } }) +
    sse('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }) +
    sse('message_stop', {});
  const evs = events(input);
  tt.equal(evs.filter((e) => e.type === 'tool_call_done').length, 1, 'the call is done once');
  // The late fragment stays raw (as OpenAI Chat/Responses/Realtime do for fragments after a call closed).
  tt.equal(checkEvents(evs), null, 'no tool_call_delta after the tool_call_done');
  const [final] = finals(input);
  // (The bug gave the final a second, nameless call with arguments {"late":1}.)
  tt.same(final?.toolCalls, [{ id: 'toolu_1', name: 'f', arguments: {} }], 'one tool call, arguments {}');
});

t.test('limit-abandon-loses-done: a limit that trips again while the response is abandoned', async (tt) => {
  // Vertex streamed arguments: 10 bytes streamed, then 6 more trip maxToolArgumentBytes = 11;
  // closing the call on abandon streams the rest (`"}`), which trips the limit a second time.
  const chunk = (fc: object): string => `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: fc }] } }] })}\n\n`;
  const input =
    chunk({ name: 'f', partialArgs: [{ jsonPath: '$.a', stringValue: 'xxxx', willContinue: true }], willContinue: true }) +
    chunk({ partialArgs: [{ jsonPath: '$.a', stringValue: 'yyyyyy', willContinue: true }], willContinue: true });
  const evs = events(input, { maxToolArgumentBytes: 11 });
  const errors = evs.filter((e) => e.type === 'error');
  tt.same(
    errors.map((e) => e.type === 'error' && e.code),
    ['limit_exceeded'],
    'the limit is reported',
  );
  const last = evs[evs.length - 1];
  // The open response still closes with done(error).
  tt.same(last === undefined ? null : { type: last.type, stopReason: last.type === 'done' ? last.stopReason : null }, { type: 'done', stopReason: 'error' }, 'the response ends with done(error)');
});

t.test('limit-refused-call-gets-done: maxBlocks refuses a tool call that still gets its done', async (tt) => {
  const chunk = (toolCall: object): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: null }] })}\n\n`;
  const input =
    chunk({ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }) +
    chunk({ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } });
  const evs = events(input, { maxBlocks: 1 });
  tt.ok(
    evs.some((e) => e.type === 'error' && e.code === 'limit_exceeded'),
    'the second call trips maxBlocks',
  );
  tt.notOk(evs.some((e) => e.type === 'tool_call_start' && e.id === 'call_b'), 'the refused call has no tool_call_start');
  // No tool_call_done for call_b either (the bug emitted one, with arguments "", when the response was abandoned).
  tt.notOk(
    evs.some((e) => e.type === 'tool_call_done' && e.id === 'call_b'),
    'the refused call gets no tool_call_done',
  );
  const last = evs[evs.length - 1];
  tt.equal(last?.type, 'done', 'the response still ends with done');
});

t.test('limit-refused-call-gets-done: the same in Anthropic Messages (input whole on content_block_start)', async (tt) => {
  const input =
    sse('message_start', { message: { id: 'msg_1', model: 'claude-x' } }) +
    sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } } }) +
    sse('content_block_stop', { index: 0 }) +
    sse('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_2', name: 'g', input: { b: 2 } } });
  const evs = events(input, { maxBlocks: 1 });
  tt.ok(
    evs.some((e) => e.type === 'error' && e.code === 'limit_exceeded'),
    'the second call trips maxBlocks',
  );
  tt.notOk(evs.some((e) => e.type === 'tool_call_start' && e.id === 'toolu_2'), 'the refused call has no tool_call_start');
  // Nothing more for toolu_2 (the bug sent its whole input as tool_call_delta + tool_call_done on abandon).
  tt.notOk(
    evs.some((e) => (e.type === 'tool_call_delta' || e.type === 'tool_call_done') && e.id === 'toolu_2'),
    'the refused call gets no delta or done',
  );
  tt.equal(evs[evs.length - 1]?.type, 'done', 'the response still ends with done');
});

t.test('abandon-swallows-downstream-limit: a later stage failing on what the close after a fatal framing error flushes', async (tt) => {
  // A tool call with whole-JSON arguments is open when an overlong line ends the input: closing the
  // response emits its tool_call_done, and the final accumulator's limit trips on it. The guard
  // swallowed that failure (found as fused finals ≠ the finals of the same events, fuzz seed 2026 case 7048).
  const input =
    sse('message_start', { message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 1, output_tokens: 1 } } }) +
    sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }) +
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":"' + 'x'.repeat(40) + '"}' } }) +
    `data: ${'y'.repeat(300)}\n\n`;
  const stage = createGuardedEventsStage({ maxFrameBytes: 200 });
  const seen: string[] = [];
  const limit = new LimitExceededError('maxToolArgumentBytes', 10, 'a later stage');
  const emit = (ev: UnifiedEvent): void => {
    seen.push(ev.type);
    if (ev.type === 'tool_call_done') throw limit;
  };
  let thrown: unknown = null;
  try {
    stage.push(Buffer.from(input), emit);
    stage.end(emit);
  } catch (err) {
    thrown = err;
  }
  tt.ok(seen.includes('tool_call_done'), 'the close flushed the tool call');
  tt.equal(thrown, limit, "the later stage's failure fails the stream");
});
