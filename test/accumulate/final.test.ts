import t from 'tap';
import { LimitExceededError, OptionError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { objectStageTransform } from '../../lib/pipeline/transform.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { FinalAccumulatorOptions, FinalResult } from '../../lib/accumulate/types.js';
import {
  anthropicMaxTokensMidTool,
  anthropicRedactedThinking,
  anthropicThinkingToolUse,
  anthropicToolNoArgs,
  audio,
  done,
  error,
  geminiEmptyTextSignature,
  geminiThoughtFunctionCall,
  openaiChatParallelTools,
  openaiChatText,
  openaiChatTwoChoices,
  openaiResponsesReasoning,
  openaiResponsesRefusal,
  raw,
  reasoning,
  sig,
  start,
  text,
  toolDelta,
  toolDone,
  toolStart,
  usage,
} from './sequences.js';

const NO_USAGE = { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };

function finals(events: UnifiedEvent[], options?: FinalAccumulatorOptions): FinalResult[] {
  return runStage(createFinalAccumulator(options), events);
}

function only(events: UnifiedEvent[], options?: FinalAccumulatorOptions): FinalResult {
  const out = finals(events, options);
  if (out.length !== 1) throw new Error(`expected one final, got ${out.length}`);
  return out[0] as FinalResult;
}

t.test('OpenAI chat: text and usage', async (t) => {
  t.strictSame(only(openaiChatText()), {
    dialect: 'openai-chat',
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    model: 'gpt-4o-mini-2024-07-18',
    content: [{ type: 'text', text: 'Paris is the capital.' }],
    text: 'Paris is the capital.',
    refusal: null,
    reasoning: '',
    toolCalls: [],
    citations: [],
    usage: { inputTokens: 14, outputTokens: 4, totalTokens: 18, reasoningTokens: 0, cachedInputTokens: 0 },
    stopReason: 'end',
    providerReason: 'stop',
    signatures: [],
    errors: [],
    audio: null,
  });
});

t.test('OpenAI chat n=2: choice 0 at top level, every choice in `choices`', async (t) => {
  const final = only(openaiChatTwoChoices());
  t.equal(final.text, 'Red roses');
  t.strictSame(final.content, [{ type: 'text', text: 'Red roses' }]);
  t.equal(final.stopReason, 'end');
  t.strictSame(final.usage, { inputTokens: 9, outputTokens: 5, totalTokens: 14, reasoningTokens: null, cachedInputTokens: null });
  t.strictSame(final.choices, [
    {
      content: [{ type: 'text', text: 'Red roses' }],
      text: 'Red roses',
      refusal: null,
      reasoning: '',
      toolCalls: [],
      citations: [],
      stopReason: 'end',
      providerReason: 'stop',
    },
    {
      content: [{ type: 'text', text: 'Blue apples' }],
      text: 'Blue apples',
      refusal: null,
      reasoning: '',
      toolCalls: [],
      citations: [],
      stopReason: 'max_tokens',
      providerReason: 'length',
    },
  ]);
  t.notOk('choices' in only(openaiChatText()), 'no `choices` for a single-choice response');
});

t.test('n>1: the one done closes the response, its choices give each choice its stop reason', async (t) => {
  const stops = [
    { choice: 0, stopReason: 'end' as const, providerReason: 'stop' },
    { choice: 2, stopReason: 'tool_use' as const, providerReason: 'tool_calls' },
  ];
  const out = finals([start('c', 'm'), text(0, 'a'), text(0, 'c', { choice: 2 }), { ...done('end', 'stop'), choices: stops }, start('d', 'm')]);
  t.equal(out.length, 2, 'the next start opens another response (cut off at the end of input)');
  const final = out[0]!;
  t.strictSame(final.errors, [], 'the first ended at its done, not cut off by the second start');
  t.equal(final.stopReason, 'end');
  t.strictSame(
    final.choices?.map((c) => [c.text, c.stopReason, c.providerReason]),
    [
      ['a', 'end', 'stop'],
      ['', null, null],
      ['c', 'tool_use', 'tool_calls'],
    ],
    'choice 1 never appeared: no stop',
  );
  // A choice seen only in done.choices is still a choice of the final.
  const late = only([start('c', 'm'), text(0, 'a'), { ...done('end', 'stop'), choices: [{ choice: 1, stopReason: 'refusal', providerReason: 'content_filter' }] }]);
  t.match(late.choices, [{ text: 'a', stopReason: 'end' }, { text: '', stopReason: 'refusal', providerReason: 'content_filter' }]);
});

t.test('n>1 with per-choice dones (Gemini candidates): a choice index past the others fills the gaps; tool calls are keyed per choice', async (t) => {
  const final = only([
    start('c', 'm'),
    toolStart(0, 'call_0', 'f'),
    toolStart(0, 'call_0', 'g', { choice: 2 }),
    toolDelta(0, 'call_0', '{"x":1}'),
    toolDelta(0, 'call_0', '{"y":2}', { choice: 2 }),
    toolDone(0, 'call_0', 'f', '{"x":1}'),
    toolDone(0, 'call_0', 'g', '{"y":2}', { choice: 2 }),
    done('tool_use', 'tool_calls', { choice: 2 }),
    done('tool_use', 'tool_calls'),
  ]);
  t.strictSame(final.toolCalls, [{ id: 'call_0', name: 'f', arguments: { x: 1 } }]);
  t.equal(final.choices?.length, 3);
  t.strictSame(final.choices?.[1], {
    content: [],
    text: '',
    refusal: null,
    reasoning: '',
    toolCalls: [],
    citations: [],
    stopReason: null,
    providerReason: null,
  });
  t.strictSame(final.choices?.[2]?.toolCalls, [{ id: 'call_0', name: 'g', arguments: { y: 2 } }]);
  t.equal(final.choices?.[2]?.stopReason, 'tool_use');
});

t.test('parallel tool calls with fragmented, interleaved arguments', async (t) => {
  const acc = createFinalAccumulator();
  const out: FinalResult[] = [];
  const previews: unknown[] = [];
  for (const ev of openaiChatParallelTools()) {
    acc.push(ev, (f) => out.push(f));
    if (ev.type === 'tool_call_delta') previews.push(structuredClone(acc.preview(ev.id)));
  }
  acc.end((f) => out.push(f));
  t.strictSame(previews, [
    {},
    {},
    { location: 'Par' },
    { tz: 'Europe/Paris', fmt: [24] },
    { location: 'Paris', days: 3 },
    { tz: 'Europe/Paris', fmt: [24, true] },
  ]);
  t.equal(out.length, 1);
  const final = out[0] as FinalResult;
  t.strictSame(final.toolCalls, [
    { id: 'call_weather', name: 'get_weather', arguments: { location: 'Paris', days: 3 } },
    { id: 'call_time', name: 'get_time', arguments: { tz: 'Europe/Paris', fmt: [24, true] } },
  ]);
  t.strictSame(final.content, [
    { type: 'tool_call', id: 'call_weather', name: 'get_weather', arguments: { location: 'Paris', days: 3 } },
    { type: 'tool_call', id: 'call_time', name: 'get_time', arguments: { tz: 'Europe/Paris', fmt: [24, true] } },
  ]);
  t.equal(final.stopReason, 'tool_use');
  t.equal(final.text, '');
  t.strictSame(final.errors, []);
});

t.test('Anthropic: thinking + signature + text + tool_use, in block order', async (t) => {
  const final = only(anthropicThinkingToolUse());
  t.strictSame(final.content, [
    { type: 'reasoning', text: 'The user wants the weather in San Francisco.', signature: 'EqQBCkgIARABGAIiQL' },
    { type: 'text', text: 'Let me check the weather.' },
    {
      type: 'tool_call',
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      name: 'get_weather',
      arguments: { location: 'San Francisco, CA', unit: 'fahrenheit' },
    },
  ]);
  t.equal(final.text, 'Let me check the weather.');
  t.equal(final.reasoning, 'The user wants the weather in San Francisco.');
  t.strictSame(final.signatures, [{ index: 0, signature: 'EqQBCkgIARABGAIiQL', kind: 'signature_delta' }]);
  t.strictSame(final.usage, { inputTokens: 2679, outputTokens: 103, totalTokens: 2782, reasoningTokens: null, cachedInputTokens: 2048 });
  t.equal(final.stopReason, 'tool_use');
  t.equal(final.providerReason, 'tool_use');
  t.equal(final.dialect, 'anthropic-messages');
});

t.test('Anthropic: redacted_thinking becomes a reasoning block with empty text and its data', async (t) => {
  const final = only(anthropicRedactedThinking());
  t.strictSame(final.content, [
    { type: 'reasoning', text: 'Thinking it over.', signature: 'ErUBCkYIBRgCIkB' },
    { type: 'reasoning', text: '', signature: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
    { type: 'text', text: 'Done.' },
  ]);
  t.equal(final.reasoning, 'Thinking it over.');
  t.strictSame(
    final.signatures.map((s) => s.kind),
    ['signature_delta', 'redacted_thinking'],
  );
});

t.test('Gemini: the empty-text part signature is kept', async (t) => {
  const final = only(geminiEmptyTextSignature());
  t.strictSame(final.content, [{ type: 'text', text: 'Two plus two is four.' }], 'no reasoning block invented');
  t.strictSame(final.signatures, [{ index: 0, signature: 'CiQB0e2Kb3Z0aG91Z2h0LXNpZw==', kind: 'thought_signature' }]);
  t.strictSame(final.usage, { inputTokens: 8, outputTokens: 61, totalTokens: 69, reasoningTokens: 55, cachedInputTokens: null });
  t.equal(final.stopReason, 'end');
  t.equal(final.providerReason, 'STOP');
});

t.test('Gemini: thought + whole function call; the signature attaches to the thought part', async (t) => {
  const final = only(geminiThoughtFunctionCall());
  t.strictSame(final.content, [
    { type: 'reasoning', text: '**Looking up the weather**', signature: 'Cs0BAdHtim9fc2lnbmF0dXJl' },
    { type: 'tool_call', id: 'call_0', name: 'get_current_weather', arguments: { location: 'Boston, MA' } },
  ]);
  t.strictSame(final.signatures, [{ index: 0, signature: 'Cs0BAdHtim9fc2lnbmF0dXJl', kind: 'thought_signature' }]);
  t.equal(final.stopReason, 'tool_use');
});

t.test('OpenAI Responses: summary parts, encrypted_content on the reasoning item, text', async (t) => {
  const final = only(openaiResponsesReasoning());
  t.strictSame(final.content, [
    { type: 'reasoning', text: '**Planning** the answer.' },
    { type: 'reasoning', text: '**Checking**', signature: 'gAAAAABoEncrypted' },
    { type: 'text', text: 'Hello there.' },
  ]);
  t.equal(final.reasoning, '**Planning** the answer.**Checking**');
  t.equal(final.text, 'Hello there.');
  t.equal(final.usage.reasoningTokens, 128);
  // encrypted_content with no summary at all is still a reasoning item to echo.
  const bare = only([
    start('resp_2', 'o4-mini'),
    sig(0, 'gAAAAABoBare', 'encrypted_content'),
    text(1, 'Hi', { contentIndex: 0 }),
    done('end', 'completed'),
  ]);
  t.strictSame(bare.content, [
    { type: 'reasoning', text: '', signature: 'gAAAAABoBare' },
    { type: 'text', text: 'Hi' },
  ]);
});

t.test('refusal channel: its own block and field, not in text', async (t) => {
  const final = only(openaiResponsesRefusal());
  t.strictSame(final.content, [{ type: 'refusal', text: "I'm sorry, I can't help with that." }]);
  t.equal(final.refusal, "I'm sorry, I can't help with that.");
  t.equal(final.text, '');
  // Chat: text and refusal deltas on the same index are separate blocks.
  const chat = only([
    start('c', 'gpt-4o'),
    text(0, 'Sure. '),
    text(0, 'No.', { refusal: true }),
    text(0, ' Bye.'),
    done('refusal', 'content_filter'),
  ]);
  t.strictSame(chat.content, [
    { type: 'text', text: 'Sure.  Bye.' },
    { type: 'refusal', text: 'No.' },
  ]);
  t.equal(chat.text, 'Sure.  Bye.');
  t.equal(chat.refusal, 'No.');
  t.equal(chat.stopReason, 'refusal');
});

t.test('invalid tool arguments: raw text kept, invalid_tool_arguments error', async (t) => {
  const final = only(anthropicMaxTokensMidTool());
  t.strictSame(final.toolCalls, [
    { id: 'toolu_write', name: 'write_file', arguments: '{"path": "notes.txt", "content": "Hel' },
  ]);
  t.equal(final.errors.length, 1);
  t.equal(final.errors[0]?.code, 'invalid_tool_arguments');
  t.match(final.errors[0]?.message, /toolu_write \(write_file\): arguments are not valid JSON/);
  t.equal(final.stopReason, 'max_tokens');
  t.equal(final.text, 'Writing the file.');
});

t.test('empty arguments become {}', async (t) => {
  const final = only(anthropicToolNoArgs());
  t.strictSame(final.toolCalls, [{ id: 'toolu_now', name: 'get_current_time', arguments: {} }]);
  t.strictSame(final.errors, []);
  const blank = only([start('x', 'm'), toolStart(0, 'c1', 'ping'), toolDelta(0, 'c1', ' \n'), toolDone(0, 'c1', 'ping', ' \n'), done('tool_use', 'tool_calls')]);
  t.strictSame(blank.toolCalls, [{ id: 'c1', name: 'ping', arguments: {} }]);
});

t.test('authoritative arguments from tool_call_done win over the deltas', async (t) => {
  const final = only([
    start('resp', 'gpt-5'),
    toolStart(0, 'call_1', 'search'),
    toolDelta(0, 'call_1', '{"q": "cats"'),
    toolDone(0, 'call_1', 'search', '{"q": "cats", "limit": 5}'),
    done('tool_use', 'completed'),
  ]);
  t.strictSame(final.toolCalls, [{ id: 'call_1', name: 'search', arguments: { q: 'cats', limit: 5 } }]);
});

t.test('a call that never got tool_call_done uses its concatenated deltas at the end', async (t) => {
  const final = only([
    start('r', 'm'),
    toolStart(0, 'call_a', 'f'),
    toolDelta(0, 'call_a', '{"a":'),
    toolDelta(0, 'call_a', ' [1, 2]}'),
    toolStart(1, 'call_b', 'g'),
    toolDelta(1, 'call_b', '{"b": tr'),
    done('tool_use', 'tool_calls'),
  ]);
  t.strictSame(final.toolCalls, [
    { id: 'call_a', name: 'f', arguments: { a: [1, 2] } },
    { id: 'call_b', name: 'g', arguments: '{"b": tr' },
  ]);
  t.strictSame(
    final.errors.map((e) => e.code),
    ['invalid_tool_arguments'],
  );
});

t.test('incomplete response at end of input', async (t) => {
  const out = finals([start('msg_x', 'claude'), text(0, 'Half an ans'), toolStart(1, 'toolu_1', 'f'), toolDelta(1, 'toolu_1', '{"a": 1}')]);
  t.equal(out.length, 1);
  const final = out[0] as FinalResult;
  t.equal(final.stopReason, 'error');
  t.equal(final.providerReason, null);
  t.equal(final.text, 'Half an ans');
  t.strictSame(final.toolCalls, [{ id: 'toolu_1', name: 'f', arguments: { a: 1 } }]);
  t.strictSame(final.errors, [{ code: 'incomplete_stream', message: 'input ended before the response was done' }]);
  t.strictSame(finals([]), [], 'nothing for empty input');
  t.strictSame(finals(openaiChatText()).length, 1, 'nothing extra at end after a done');
});

t.test('a start inside an unfinished response: the first one is reported incomplete', async (t) => {
  const out = finals([start('r1', 'm'), text(0, 'one'), start('r2', 'm'), text(0, 'two'), done('end', 'stop')]);
  t.equal(out.length, 2);
  t.equal(out[0]?.id, 'r1');
  t.equal(out[0]?.text, 'one');
  t.equal(out[0]?.stopReason, 'error');
  t.strictSame(out[0]?.errors.map((e) => e.code), ['incomplete_stream']);
  t.equal(out[1]?.id, 'r2');
  t.equal(out[1]?.text, 'two');
  t.strictSame(out[1]?.errors, []);
});

t.test('two responses back to back give two independent finals; raw between them opens nothing', async (t) => {
  const events: UnifiedEvent[] = [
    raw({ type: 'session.created', session: { id: 'sess_1' } }),
    start('resp_1', 'gpt-realtime', 'openai-realtime'),
    text(0, 'First.', { contentIndex: 0 }),
    toolStart(1, 'call_1', 'lookup'),
    toolDone(1, 'call_1', 'lookup', '{"k":1}'),
    sig(2, 'enc-1', 'encrypted_content'),
    usage({ inputTokens: 10, outputTokens: 2, totalTokens: 12 }),
    done('tool_use', 'completed'),
    raw({ type: 'input_audio_buffer.speech_started' }),
    { type: 'session', kind: 'go_away', timeLeft: '10s' },
    { type: 'tool_call_cancel', ids: ['call_1'] },
    start('resp_2', 'gpt-realtime', 'openai-realtime'),
    text(0, 'Second.', { contentIndex: 0 }),
    done('end', 'completed'),
    raw({ type: 'rate_limits.updated' }),
  ];
  const out = finals(events);
  t.equal(out.length, 2);
  t.strictSame(
    out.map((f) => [f.id, f.text, f.toolCalls.length, f.signatures.length, f.usage.totalTokens, f.stopReason]),
    [
      ['resp_1', 'First.', 1, 1, 12, 'tool_use'],
      ['resp_2', 'Second.', 0, 0, null, 'end'],
    ],
  );
  t.strictSame(out[1]?.content, [{ type: 'text', text: 'Second.' }]);
});

t.test('audio: decoded byte count from base64 lengths, mimeType of the first delta', async (t) => {
  const chunks = [Buffer.alloc(4800, 1), Buffer.alloc(4801, 2), Buffer.alloc(4802, 3), Buffer.alloc(1, 4)];
  const final = only([
    start('resp_a', 'gpt-realtime'),
    audio(0, null, chunks[0]!.toString('base64')),
    audio(0, 'audio/pcm', chunks[1]!.toString('base64')),
    text(0, 'Hello', { contentIndex: 0, transcript: true }),
    audio(0, 'audio/pcm;rate=24000', chunks[2]!.toString('base64')),
    audio(0, 'audio/pcm', chunks[3]!.toString('base64url')),
    done('end', 'completed'),
  ]);
  t.strictSame(final.audio, { mimeType: 'audio/pcm', bytes: 4800 + 4801 + 4802 + 1 });
  t.equal(final.text, 'Hello', 'the transcript is the visible text');
  t.equal(only(openaiChatText()).audio, null);
});

t.test('errors: in the response, terminal with done, and outside any response', async (t) => {
  const overloaded = only([
    start('msg_o', 'claude'),
    text(0, 'Partial'),
    error('overloaded_error', 'Overloaded', true, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    done('error', null),
  ]);
  t.strictSame(overloaded.errors, [{ code: 'overloaded_error', message: 'Overloaded' }]);
  t.equal(overloaded.stopReason, 'error');
  t.equal(overloaded.text, 'Partial');

  // A plain JSON error body: the normalizer emits error + done with no start.
  const body = only([error('not_found_error', 'model: claude-nope', true), done('error', null)]);
  t.strictSame(body.errors, [{ code: 'not_found_error', message: 'model: claude-nope' }]);
  t.equal(body.id, null);
  t.equal(body.stopReason, 'error');
  t.strictSame(body.usage, NO_USAGE);

  // Errors between responses go to the next final, in order.
  const out = finals([
    ...openaiChatText(),
    error('invalid_json', 'frame 9: payload is not valid JSON', false),
    start('r2', 'm'),
    error('sequence_gap', 'expected 5, got 7', false),
    done('end', 'stop'),
    error('unknown_dialect', 'could not tell', false),
    usage({ inputTokens: 3 }),
    error('invalid_json', 'frame 12: payload is not valid JSON', false),
  ]);
  t.strictSame(out[0]?.errors, []);
  t.strictSame(
    out[1]?.errors.map((e) => e.code),
    ['invalid_json', 'sequence_gap'],
  );
  // Errors after the last response make a final of their own: final mode never drops them.
  t.equal(out.length, 3, 'one final for the trailing errors');
  t.match(out[2], { dialect: null, id: null, content: [], text: '', stopReason: 'error', providerReason: null, usage: { inputTokens: 3 } });
  t.strictSame(
    out[2]?.errors.map((e) => e.code),
    ['unknown_dialect', 'invalid_json'],
  );
  t.equal(finals([...openaiChatText(), usage({ inputTokens: 3 })]).length, 1, 'a trailing usage alone makes none');
  t.equal(finals([error('invalid_json', 'x', false)]).length, 1, 'nor does an input of errors only go without one');
});

t.test('usage: the last event replaces, never sums; usage outside a response goes to the next one', async (t) => {
  const final = only([
    start('g', 'gemini'),
    usage({ inputTokens: 8, outputTokens: 1, totalTokens: 9 }),
    text(0, 'a'),
    usage({ inputTokens: 8, outputTokens: 5, totalTokens: 13 }),
    done('end', 'STOP'),
  ]);
  t.strictSame(final.usage, { inputTokens: 8, outputTokens: 5, totalTokens: 13, reasoningTokens: null, cachedInputTokens: null });
  const out = finals([
    start('t1', null),
    text(0, 'x'),
    done('end', 'turnComplete'),
    usage({ inputTokens: 100, outputTokens: 10, totalTokens: 110 }),
    start('t2', null),
    text(0, 'y'),
    done('end', 'turnComplete'),
    usage({ inputTokens: 1, outputTokens: 1, totalTokens: 2 }),
  ]);
  t.equal(out.length, 2, 'a usage event alone does not open a response');
  t.strictSame(out[0]?.usage, NO_USAGE);
  t.equal(out[1]?.usage.totalTokens, 110);
});

t.test('a bare done still gives a final; empty deltas create no block', async (t) => {
  t.strictSame(only([done('end', null)]), {
    dialect: null,
    id: null,
    model: null,
    content: [],
    text: '',
    refusal: null,
    reasoning: '',
    toolCalls: [],
    citations: [],
    usage: NO_USAGE,
    stopReason: 'end',
    providerReason: null,
    signatures: [],
    errors: [],
    audio: null,
  });
  const final = only([start('r', 'm'), text(0, ''), reasoning(1, ''), text(2, 'x'), done('end', 'stop')]);
  t.strictSame(final.content, [{ type: 'text', text: 'x' }]);
});

t.test('a tool call id reused after its done is a new call', async (t) => {
  const final = only([
    start('r', 'm'),
    toolStart(0, 'call_0', 'f'),
    toolDone(0, 'call_0', 'f', '{"n":1}'),
    toolStart(1, 'call_0', 'f'),
    toolDone(1, 'call_0', 'f', '{"n":2}'),
    done('tool_use', 'STOP'),
  ]);
  t.strictSame(final.toolCalls, [
    { id: 'call_0', name: 'f', arguments: { n: 1 } },
    { id: 'call_0', name: 'f', arguments: { n: 2 } },
  ]);
});

t.test('limits: each one throws its typed error naming the limit, after emitting the partial final', async (t) => {
  function failing(events: UnifiedEvent[], options: FinalAccumulatorOptions): { out: FinalResult[]; err: unknown } {
    const acc = createFinalAccumulator(options);
    const out: FinalResult[] = [];
    try {
      for (const ev of events) acc.push(ev, (f) => out.push(f));
      acc.end((f) => out.push(f));
    } catch (err) {
      return { out, err };
    }
    return { out, err: null };
  }

  // maxTextBytes counts UTF-8 bytes of text + refusal + reasoning: 8 + 8 + 4 = 20 fits.
  const fits = [start('r', 'm'), text(0, 'abcdefgh'), reasoning(1, 'éééé'), text(2, '😀', { refusal: true })];
  t.equal(failing([...fits, done('end', 'stop')], { maxTextBytes: 20 }).err, null);
  const text1 = failing([...fits, text(0, 'x'), done('end', 'stop')], { maxTextBytes: 20 });
  t.type(text1.err, LimitExceededError);
  t.equal((text1.err as LimitExceededError).limit, 'maxTextBytes');
  t.equal((text1.err as LimitExceededError).code, 'limit_exceeded');
  t.match((text1.err as Error).message, /maxTextBytes = 20/);
  t.equal(text1.out.length, 1);
  t.equal(text1.out[0]?.text, 'abcdefgh', 'the text that fit');
  t.equal(text1.out[0]?.stopReason, 'error');
  t.strictSame(text1.out[0]?.errors.map((e) => e.code), ['limit_exceeded']);

  // Large enough to pass the cheap bound first, then measured exactly.
  const big = failing([start('r', 'm'), text(0, 'é'.repeat(50)), text(0, 'é'.repeat(50)), text(0, 'a')], { maxTextBytes: 200 });
  t.equal((big.err as LimitExceededError).limit, 'maxTextBytes');
  t.equal(big.out[0]?.text.length, 100);

  // maxBlocks counts text, reasoning and tool-call blocks of all choices together.
  const blocks = [start('r', 'm'), reasoning(0, 'a'), text(1, 'b'), toolStart(2, 'c', 'f'), text(0, 'd', { choice: 1 })];
  t.equal(failing([...blocks, done('end', 'stop')], { maxBlocks: 4 }).err, null);
  const b1 = failing([...blocks, text(3, 'e'), done('end', 'stop')], { maxBlocks: 4 });
  t.type(b1.err, LimitExceededError);
  t.equal((b1.err as LimitExceededError).limit, 'maxBlocks');
  t.strictSame(b1.out[0]?.content.map((c) => c.type), ['reasoning', 'text', 'tool_call']);
  const b2 = failing([start('r', 'm'), sig(0, 's0', 'redacted_thinking'), sig(1, 's1', 'redacted_thinking')], { maxBlocks: 1 });
  t.equal((b2.err as LimitExceededError).limit, 'maxBlocks', 'signature-only blocks count');
  const b3 = failing([start('r', 'm'), text(0, 'x', { choice: 1_000_000 })], {});
  t.equal((b3.err as LimitExceededError).limit, 'maxBlocks', 'an absurd choice index');

  // maxToolArgumentBytes: per call, deltas and the authoritative text alike.
  const args = [start('r', 'm'), toolStart(0, 'call_1', 'f'), toolDelta(0, 'call_1', '{"a":"'), toolDelta(0, 'call_1', 'ü"}')];
  t.equal(failing([...args, toolStart(1, 'call_2', 'g'), toolDelta(1, 'call_2', '{"b":"12"}'), done('tool_use', 'x')], { maxToolArgumentBytes: 10 }).err, null);
  const a1 = failing([...args, toolDelta(0, 'call_1', ' '), done('tool_use', 'x')], { maxToolArgumentBytes: 10 });
  t.type(a1.err, LimitExceededError);
  t.equal((a1.err as LimitExceededError).limit, 'maxToolArgumentBytes');
  t.match((a1.err as Error).message, /call_1/);
  const a2 = failing([start('r', 'm'), toolStart(0, 'call_1', 'f'), toolDone(0, 'call_1', 'f', '{"a":"ééééé"}')], { maxToolArgumentBytes: 12 });
  t.equal((a2.err as LimitExceededError).limit, 'maxToolArgumentBytes');
});

t.test('limits destroy the stream, after the partial final is delivered', async (t) => {
  const stream = objectStageTransform(createFinalAccumulator({ maxTextBytes: 5 }));
  const got: FinalResult[] = [];
  stream.on('data', (f: FinalResult) => got.push(f));
  const failed = new Promise<Error>((resolve) => stream.on('error', resolve));
  stream.write(start('r', 'm'));
  stream.write(text(0, 'abc'));
  stream.write(text(0, 'def'));
  stream.end();
  const err = await failed;
  t.type(err, LimitExceededError);
  t.equal((err as LimitExceededError).limit, 'maxTextBytes');
  t.equal(got.length, 1);
  t.equal(got[0]?.text, 'abc');
  t.equal(got[0]?.stopReason, 'error');
});

t.test('options are validated', async (t) => {
  t.throws(() => createFinalAccumulator({ maxBlocks: -1 }), OptionError);
  t.throws(() => createFinalAccumulator({ maxTextBytes: 1.5 }), OptionError);
  t.throws(() => createFinalAccumulator({ maxToolArgumentBytes: Number.NaN }), OptionError);
  t.doesNotThrow(() => createFinalAccumulator({ maxTextBytes: Infinity, maxBlocks: 0, maxToolArgumentBytes: 1 }));
  const unlimited = only([start('r', 'm'), text(0, 'x'.repeat(1000)), done('end', 'stop')], { maxTextBytes: Infinity });
  t.equal(unlimited.text.length, 1000);
});

t.test('a log of many responses: every final is complete and independent', async (t) => {
  const sequences = [
    openaiChatText(),
    anthropicThinkingToolUse(),
    geminiEmptyTextSignature(),
    openaiResponsesReasoning(),
    anthropicMaxTokensMidTool(),
    openaiChatTwoChoices(),
  ];
  const out = finals(sequences.flat());
  t.strictSame(
    out.map((f) => f.id),
    sequences.map((s) => (s[0] as { id: string }).id),
  );
  // The same as each sequence alone.
  sequences.forEach((s, i) => t.strictSame(out[i], only(s), `response ${i}`));
});

t.test('provider-executed calls: in content with their results and files, never in toolCalls', async (t) => {
  const P = { providerExecuted: true } as const;
  const final = only([
    start('r', 'm'),
    { ...toolStart(0, 'srv_1', 'web_search'), ...P },
    { ...toolDelta(0, 'srv_1', '{"query":"x"}'), ...P },
    { ...toolDone(0, 'srv_1', 'web_search', '{"query":"x"}'), ...P },
    { type: 'tool_result', index: 1, id: 'srv_1', name: 'web_search', result: [{ url: 'https://a.example' }] },
    text(2, 'See A.'),
    { type: 'citation', index: 2, url: 'https://a.example', title: 'A', citedText: 'a', raw: { type: 'x' } },
    { type: 'file', index: 3, id: 'ig_1', mimeType: 'image/png', data: 'iVBO', partial: true },
    { type: 'file', index: 3, id: 'ig_1', mimeType: 'image/png', data: 'iVBORw0K' },
    { type: 'tool_result', index: 4, id: 'srv_2', name: 'code_execution', result: { error_code: 'unavailable' }, isError: true },
    toolStart(5, 'call_1', 'get_weather'),
    toolDone(5, 'call_1', 'get_weather', '{}'),
    done('tool_use', 'tool_use'),
  ]);
  t.strictSame(final.toolCalls, [{ id: 'call_1', name: 'get_weather', arguments: {} }], 'only the client call');
  t.strictSame(final.content, [
    { type: 'tool_call', id: 'srv_1', name: 'web_search', arguments: { query: 'x' }, providerExecuted: true },
    { type: 'tool_result', id: 'srv_1', name: 'web_search', result: [{ url: 'https://a.example' }] },
    { type: 'text', text: 'See A.' },
    { type: 'file', mimeType: 'image/png', data: 'iVBORw0K', id: 'ig_1' },
    { type: 'tool_result', id: 'srv_2', name: 'code_execution', result: { error_code: 'unavailable' }, isError: true },
    { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: {} },
  ]);
  t.strictSame(final.citations, [{ index: 2, url: 'https://a.example', title: 'A', citedText: 'a' }]);
  t.equal(final.text, 'See A.');
});

t.test('citations, results and files count against maxBlocks', async (t) => {
  const events: UnifiedEvent[] = [start('r', 'm')];
  for (let i = 0; i < 5; i++) events.push({ type: 'citation', index: 0, url: `u${i}`, raw: null });
  events.push(done('end', 'stop'));
  t.throws(() => finals(events, { maxBlocks: 3 }), LimitExceededError);
  t.equal(only(events, { maxBlocks: 5 }).citations.length, 5);
});
