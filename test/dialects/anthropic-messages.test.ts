import t, { type Test } from 'tap';
import type { DialectOption, UnifiedEvent, UsageEvent } from '../../lib/events.js';
import { createFramer } from '../../lib/framing/detect.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { runStage } from '../../lib/stage.js';
import { chunkings } from '../helpers/chunks.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents, differingChunkings, stable, type Input } from '../helpers/decode.js';
import { typedSse as sse } from '../helpers/sse.js';

const DIALECT = 'anthropic-messages';

const decode = (input: Input, dialect: DialectOption = DIALECT): UnifiedEvent[] => decodeEvents(input, { dialect });

/** What a stream says, folded: text and reasoning per index, tool calls, signatures, last usage, done, errors. */
interface Summary {
  start: { id: string | null; model: string | null } | null;
  text: Record<number, string>;
  reasoning: Record<number, string>;
  tools: { index: number; id: string; name: string; arguments: string; deltas: string; provider: boolean }[];
  /** tool_result events: block index → the call id. */
  results: Record<number, string>;
  /** citation events per text block index. */
  citations: Record<number, number>;
  signatures: { index: number; kind: string; length: number }[];
  usage: Omit<UsageEvent, 'raw' | 'type' | 'at'> | null;
  usageCount: number;
  done: { stopReason: string; providerReason: string | null }[];
  errors: { code: string; terminal: boolean }[];
  raws: number;
}

function summarize(events: UnifiedEvent[]): Summary {
  const s: Summary = {
    start: null,
    text: {},
    reasoning: {},
    tools: [],
    results: {},
    citations: {},
    signatures: [],
    usage: null,
    usageCount: 0,
    done: [],
    errors: [],
    raws: 0,
  };
  const deltas = new Map<number, string[]>();
  for (const e of events) {
    switch (e.type) {
      case 'start':
        s.start = { id: e.id, model: e.model };
        break;
      case 'text_delta':
        s.text[e.index] = (s.text[e.index] ?? '') + e.text;
        break;
      case 'reasoning_delta':
        s.reasoning[e.index] = (s.reasoning[e.index] ?? '') + e.text;
        break;
      case 'tool_call_delta':
        deltas.set(e.index, [...(deltas.get(e.index) ?? []), e.argumentsDelta]);
        break;
      case 'tool_call_done':
        s.tools.push({
          index: e.index,
          id: e.id,
          name: e.name,
          arguments: e.arguments,
          deltas: (deltas.get(e.index) ?? []).join(''),
          provider: e.providerExecuted === true,
        });
        break;
      case 'tool_result':
        s.results[e.index] = e.id;
        break;
      case 'citation':
        s.citations[e.index] = (s.citations[e.index] ?? 0) + 1;
        break;
      case 'signature':
        s.signatures.push({ index: e.index, kind: e.kind, length: e.signature.length });
        break;
      case 'usage':
        s.usage = {
          inputTokens: e.inputTokens,
          outputTokens: e.outputTokens,
          totalTokens: e.totalTokens,
          reasoningTokens: e.reasoningTokens,
          cachedInputTokens: e.cachedInputTokens,
        };
        s.usageCount++;
        break;
      case 'done':
        s.done.push({ stopReason: e.stopReason, providerReason: e.providerReason });
        break;
      case 'error':
        s.errors.push({ code: e.code, terminal: e.terminal });
        break;
      case 'raw':
        s.raws++;
        break;
      default:
        break;
    }
  }
  return s;
}

/** Invariants every single-response stream must satisfy. */
function checkInvariants(t: Test, events: UnifiedEvent[], bytes: Buffer): void {
  t.equal(events.filter((e) => e.type === 'done').length, 1, 'exactly one done');
  t.equal(events.at(-1)?.type, 'done', 'done is last');
  t.same(events.filter((e) => e.type === 'error' && e.code === 'invalid_json'), [], 'no invalid_json');
  t.equal(events.filter((e) => e.type === 'start').length, 1, 'exactly one start');
  t.equal(events[0]?.type, 'start', 'start comes first');
  t.notOk(events.some((e) => (e.type === 'text_delta' || e.type === 'reasoning_delta') && e.text === ''), 'no empty text');
  const started = new Map<number, { id: string; name: string; provider: boolean }>();
  const deltas = new Map<number, string[]>();
  let doneCalls = 0;
  for (const e of events) {
    if (e.type === 'tool_call_start') started.set(e.index, { id: e.id, name: e.name, provider: e.providerExecuted === true });
    else if (e.type === 'tool_call_delta') {
      t.equal(e.id, started.get(e.index)?.id, 'delta id matches its start');
      t.equal(e.providerExecuted === true, started.get(e.index)?.provider, 'delta providerExecuted matches its start');
      deltas.set(e.index, [...(deltas.get(e.index) ?? []), e.argumentsDelta]);
    } else if (e.type === 'tool_call_done') {
      doneCalls++;
      t.same({ id: e.id, name: e.name, provider: e.providerExecuted === true }, started.get(e.index), 'done matches its start');
      t.equal(e.arguments, (deltas.get(e.index) ?? []).join(''), 'arguments = concatenated deltas');
    }
  }
  t.equal(doneCalls, started.size, 'every tool call ends');
  // Nothing is dropped: every frame produced at least one event.
  const frames = runStage(createFramer('sse'), [bytes]).length;
  const withAt = decodeAll([bytes], { dialect: DIALECT, positions: true });
  t.equal(new Set(withAt.map((e) => e.at?.frame)).size, frames, 'every frame yields an event');
}

/**
 * Independent oracle: a naive read of the data lines (no framing subtleties
 * in these files) gives the text, thinking and tool input per block index.
 */
interface Oracle {
  text: Record<number, string>;
  reasoning: Record<number, string>;
  tools: Record<number, string>;
  /** Tool blocks Anthropic runs (server_tool_use, mcp_tool_use), by index. */
  provider: Record<number, boolean>;
  /** `*_tool_result` blocks: index → tool_use_id. */
  results: Record<number, string>;
  /** citations_delta per block index. */
  citations: Record<number, number>;
}

function oracle(bytes: Buffer): Oracle {
  const out: Oracle = { text: {}, reasoning: {}, tools: {}, provider: {}, results: {}, citations: {} };
  for (const line of bytes.toString('utf8').split('\n')) {
    if (!line.startsWith('data:')) continue;
    const p = JSON.parse(line.slice(5)) as { type: string; index: number; delta?: Record<string, string>; content_block?: { type: string; tool_use_id?: string } };
    const block = p.content_block;
    if (p.type === 'content_block_start' && ['tool_use', 'server_tool_use', 'mcp_tool_use'].includes(block!.type)) {
      out.tools[p.index] = '';
      out.provider[p.index] = block!.type !== 'tool_use';
    }
    if (p.type === 'content_block_start' && block!.type.endsWith('_tool_result')) out.results[p.index] = block!.tool_use_id!;
    if (p.type !== 'content_block_delta') continue;
    if (p.delta!['type'] === 'citations_delta') out.citations[p.index] = (out.citations[p.index] ?? 0) + 1;
    const d = p.delta!;
    if (d['type'] === 'text_delta' && d['text'] !== '') out.text[p.index] = (out.text[p.index] ?? '') + d['text'];
    if (d['type'] === 'thinking_delta' && d['thinking'] !== '') out.reasoning[p.index] = (out.reasoning[p.index] ?? '') + d['thinking'];
    if (d['type'] === 'input_json_delta') out.tools[p.index] = (out.tools[p.index] ?? '') + d['partial_json'];
  }
  return out;
}

// ---------------------------------------------------------------- fixtures

const FIXTURES = [
  'text-with-ping.sse',
  'thinking-signature-text.sse',
  'parallel-tool-use.sse',
  'overloaded-error.sse',
  'missing-message-stop.sse',
  'cache-usage.sse',
  'programmatic-tool-call-at-message-start.sse',
];

t.test('fixtures give identical events under every chunking', (t) => {
  for (const name of FIXTURES) {
    const bytes = fixture(`${DIALECT}/${name}`);
    const { whole: expected, differ, ran } = differingChunkings((chunks) => decode(chunks), bytes, chunkings(bytes));
    t.same(differ, [], `${name}: ${ran} chunkings`);
    t.ok(expected.some((e) => e.type === 'done'), `${name} ends with done`);
  }
  t.end();
});

t.test('text with ping: exact events', (t) => {
  const events = decode(fixture(`${DIALECT}/text-with-ping.sse`));
  t.same(events, [
    { type: 'start', id: 'msg_01TextPingFixture000001', model: 'claude-haiku-4-5-20251001', dialect: DIALECT },
    { type: 'raw', event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { type: 'raw', event: { type: 'ping' } },
    { type: 'text_delta', index: 0, text: 'Bonjour ' },
    { type: 'text_delta', index: 0, text: 'à tous — 日本語 ' },
    { type: 'raw', event: { type: 'ping' } },
    { type: 'text_delta', index: 0, text: '🙂!' },
    { type: 'raw', event: { type: 'content_block_stop', index: 0 } },
    {
      type: 'usage',
      inputTokens: 12,
      outputTokens: 9,
      totalTokens: 21,
      reasoningTokens: null,
      cachedInputTokens: 0,
      raw: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 9, service_tier: 'standard' },
    },
    { type: 'raw', event: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } } },
    { type: 'done', stopReason: 'end', providerReason: 'end_turn' },
  ]);
  checkInvariants(t, events, fixture(`${DIALECT}/text-with-ping.sse`));
  t.end();
});

t.test('thinking + signature + text', (t) => {
  const events = decode(fixture(`${DIALECT}/thinking-signature-text.sse`));
  const typed = events.filter((e) => e.type !== 'raw');
  t.same(
    typed.map((e) => e.type),
    ['start', 'reasoning_delta', 'reasoning_delta', 'signature', 'text_delta', 'text_delta', 'usage', 'done'],
    'the empty thinking_delta yields no reasoning_delta',
  );
  t.same(typed[3], { type: 'signature', index: 0, signature: 'RXF3Zml4dHVyZS1zaWduYXR1cmUtbm90LXJlYWw=', kind: 'signature_delta' });
  const s = summarize(events);
  t.same(s.reasoning, { 0: 'The user wants 2+2. That is 4 — easy.' });
  t.same(s.text, { 1: '2 + 2 = 4' });
  t.same(s.usage, { inputTokens: 40, outputTokens: 57, totalTokens: 97, reasoningTokens: 31, cachedInputTokens: 0 });
  t.same(s.done, [{ stopReason: 'end', providerReason: 'end_turn' }]);
  t.ok(events.some((e) => e.type === 'raw' && JSON.stringify(e.event).includes('"thinking":""')), 'the empty delta is kept as raw');
  checkInvariants(t, events, fixture(`${DIALECT}/thinking-signature-text.sse`));
  t.end();
});

t.test('parallel tool_use with input_json_delta fragments', (t) => {
  const events = decode(fixture(`${DIALECT}/parallel-tool-use.sse`));
  const tools = events.filter((e) => e.type.startsWith('tool_call'));
  t.same(tools, [
    { type: 'tool_call_start', index: 1, id: 'toolu_01WeatherParis000000001', name: 'get_weather' },
    { type: 'tool_call_delta', index: 1, id: 'toolu_01WeatherParis000000001', argumentsDelta: '{"city": "Par' },
    { type: 'tool_call_delta', index: 1, id: 'toolu_01WeatherParis000000001', argumentsDelta: 'is", "unit": "°C"}' },
    { type: 'tool_call_done', index: 1, id: 'toolu_01WeatherParis000000001', name: 'get_weather', arguments: '{"city": "Paris", "unit": "°C"}' },
    { type: 'tool_call_start', index: 2, id: 'toolu_01WeatherTokyo000000002', name: 'get_weather' },
    { type: 'tool_call_delta', index: 2, id: 'toolu_01WeatherTokyo000000002', argumentsDelta: '{"ci' },
    { type: 'tool_call_delta', index: 2, id: 'toolu_01WeatherTokyo000000002', argumentsDelta: 'ty": "東京", "days": [1, ' },
    { type: 'tool_call_delta', index: 2, id: 'toolu_01WeatherTokyo000000002', argumentsDelta: '2]}' },
    { type: 'tool_call_done', index: 2, id: 'toolu_01WeatherTokyo000000002', name: 'get_weather', arguments: '{"city": "東京", "days": [1, 2]}' },
  ]);
  const s = summarize(events);
  t.same(s.text, { 0: 'Checking both cities.' });
  t.same(s.done, [{ stopReason: 'tool_use', providerReason: 'tool_use' }]);
  t.same(s.usage, { inputTokens: 610, outputTokens: 88, totalTokens: 698, reasoningTokens: null, cachedInputTokens: 0 });
  checkInvariants(t, events, fixture(`${DIALECT}/parallel-tool-use.sse`));
  t.end();
});

t.test('overloaded_error mid-stream: terminal error then done(error)', (t) => {
  const events = decode(fixture(`${DIALECT}/overloaded-error.sse`));
  t.same(events.slice(-2), [
    {
      type: 'error',
      code: 'overloaded_error',
      message: 'Overloaded',
      terminal: true,
      raw: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.same(summarize(events).text, { 0: 'Once upon a' });
  t.equal(events.filter((e) => e.type === 'done').length, 1);
  t.notOk(events.some((e) => e.type === 'error' && e.code === 'incomplete_stream'), 'the handler closed the response itself');
  t.end();
});

t.test('missing message_stop: complete tool call and usage owed, then incomplete_stream', (t) => {
  const events = decode(fixture(`${DIALECT}/missing-message-stop.sse`));
  t.same(events.slice(-4), [
    { type: 'tool_call_done', index: 0, id: 'toolu_01LookupWhole0000000001', name: 'lookup', arguments: '{"q": "wirefold"}' },
    {
      type: 'usage',
      inputTokens: 500,
      outputTokens: 1,
      totalTokens: 501,
      reasoningTokens: null,
      cachedInputTokens: 200,
      raw: { input_tokens: 300, cache_creation_input_tokens: 0, cache_read_input_tokens: 200, output_tokens: 1 },
    },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  const done = events.filter((e) => e.type === 'tool_call_done');
  t.equal(done.length, 1, 'the cut-off call (incomplete JSON) gets no done');
  t.ok(events.some((e) => e.type === 'tool_call_delta' && e.id === 'toolu_01LookupCutOff000000002'), 'its fragment was still streamed');
  t.end();
});

t.test('cache usage: inputTokens sums input, cache reads and cache writes', (t) => {
  const events = decode(fixture(`${DIALECT}/cache-usage.sse`));
  const usage = events.filter((e) => e.type === 'usage');
  t.equal(usage.length, 1);
  t.same(usage[0], {
    type: 'usage',
    // message_delta omits cache_creation_input_tokens: the message_start value (1200) is kept.
    inputTokens: 5 + 8000 + 1200,
    outputTokens: 14,
    totalTokens: 5 + 8000 + 1200 + 14,
    reasoningTokens: null,
    cachedInputTokens: 8000,
    raw: {
      input_tokens: 5,
      cache_creation_input_tokens: 1200,
      cache_read_input_tokens: 8000,
      cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 0 },
      output_tokens: 14,
      service_tier: 'standard',
    },
  });
  t.same(summarize(events).done, [{ stopReason: 'end', providerReason: 'stop_sequence' }]);
  checkInvariants(t, events, fixture(`${DIALECT}/cache-usage.sse`));
  t.end();
});

// ------------------------------------------------------------ inline cases

const MSG = { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 3, output_tokens: 1 } } };
const STOP = { type: 'message_stop' };

t.test('block starts carrying content', (t) => {
  const events = decode(
    sse(
      MSG,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: 'pre-filled', signature: '' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'Hello' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ' world' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_A', name: 'f', input: { a: 1 } } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', name: 'g', input: {} } },
      { type: 'content_block_stop', index: 3 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
      STOP,
    ),
  );
  t.same(
    events.filter((e) => e.type !== 'raw'),
    [
      { type: 'start', id: 'msg_1', model: 'claude-x', dialect: DIALECT },
      { type: 'reasoning_delta', index: 0, text: 'pre-filled' },
      { type: 'text_delta', index: 1, text: 'Hello' },
      { type: 'text_delta', index: 1, text: ' world' },
      { type: 'tool_call_start', index: 2, id: 'toolu_A', name: 'f' },
      { type: 'tool_call_delta', index: 2, id: 'toolu_A', argumentsDelta: '{"a":1}' },
      { type: 'tool_call_done', index: 2, id: 'toolu_A', name: 'f', arguments: '{"a":1}' },
      { type: 'tool_call_start', index: 3, id: 'call_3', name: 'g' },
      { type: 'tool_call_done', index: 3, id: 'call_3', name: 'g', arguments: '' },
      // message_delta carried no usage: message_start's is emitted before done.
      { type: 'usage', inputTokens: 3, outputTokens: 1, totalTokens: 4, reasoningTokens: null, cachedInputTokens: null, raw: { input_tokens: 3, output_tokens: 1 } },
      { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
    ],
  );
  t.end();
});

t.test('stop reasons', (t) => {
  const cases: [string | null, string][] = [
    ['end_turn', 'end'],
    ['stop_sequence', 'end'],
    ['max_tokens', 'max_tokens'],
    // No client call in this message: nothing is pending (see anthropic-hosted-tools.test.ts).
    ['tool_use', 'other'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
    ['model_context_window_exceeded', 'other'],
    [null, 'other'],
  ];
  for (const [reason, expected] of cases) {
    const events = decode(sse(MSG, { type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 2 } }, STOP));
    t.same(events.at(-1), { type: 'done', stopReason: expected, providerReason: reason }, String(reason));
  }
  t.end();
});

t.test('unknown types, unknown deltas and non-tool blocks are raw, never dropped', (t) => {
  const payloads = [
    MSG,
    { type: 'content_block_start', index: 0, content_block: { type: 'compaction', content: 'Summary.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: null } },
    { type: 'content_block_delta', index: 1, delta: { type: 'brand_new_delta', x: 1 } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'brand_new_event', foo: [1, 2] },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
    STOP,
  ];
  const events = decode(sse(...payloads));
  const raws = events.filter((e) => e.type === 'raw').map((e) => (e as { event: unknown }).event);
  t.same(raws, payloads.slice(1, 9).concat([payloads[9]!]), 'each payload without a unified meaning is raw, as received');
  t.notOk(events.some((e) => e.type === 'text_delta'), 'the empty text_delta emits no text');
  t.end();
});

t.test('a thinking block start with text and signature, an empty signature_delta, a second message_start, a non-object payload', (t) => {
  const payloads: object[] = [
    MSG,
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: 'carried', signature: 'SIG0' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: '' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_stop', index: 1 },
    { ...MSG, message: { ...MSG.message, id: 'msg_2' } },
    [1, 2],
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    STOP,
  ];
  const events = decode(sse(...payloads));
  t.same(
    events.filter((e) => e.type !== 'raw' && e.type !== 'usage'),
    [
      { type: 'start', id: 'msg_1', model: 'claude-x', dialect: DIALECT },
      { type: 'reasoning_delta', index: 0, text: 'carried' },
      { type: 'signature', index: 0, signature: 'SIG0', kind: 'signature_delta' },
      { type: 'done', stopReason: 'end', providerReason: 'end_turn' },
    ],
    'the block start carries its text and signature',
  );
  t.same(
    events.filter((e) => e.type === 'raw').map((e) => (e as { event: unknown }).event),
    payloads.slice(2, 9),
    'the rest is raw as received: an empty signature, an empty thinking block start, the stops, a second message_start inside the response, an array (and message_delta, as always)',
  );
  t.equal(events.filter((e) => e.type === 'start').length, 1, 'the second message_start opens no response');
  t.end();
});

t.test('redacted_thinking becomes a signature', (t) => {
  const events = decode(
    sse(MSG, { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'EqkOPAQUE' } }, { type: 'content_block_stop', index: 0 }, STOP),
  );
  t.same(events[1], { type: 'signature', index: 0, signature: 'EqkOPAQUE', kind: 'redacted_thinking' });
  t.end();
});

t.test('usage: message_delta fields override, absent ones keep message_start values', (t) => {
  const start = {
    type: 'message_start',
    message: { id: 'm', model: 'c', usage: { input_tokens: 10, cache_read_input_tokens: 20, cache_creation_input_tokens: 30, output_tokens: 1 } },
  };
  const events = decode(
    sse(start, { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { cache_read_input_tokens: 5, output_tokens: 40, output_tokens_details: { reasoning_tokens: 12 } } }, STOP),
  );
  const u = events.find((e) => e.type === 'usage');
  t.match(u, { inputTokens: 10 + 5 + 30, cachedInputTokens: 5, outputTokens: 40, totalTokens: 85, reasoningTokens: 12 });
  t.end();
});

t.test('error before message_start (HTTP error body with a forced dialect)', (t) => {
  const body = '{"type":"error","error":{"type":"not_found_error","message":"model: nope"},"request_id":"req_1"}';
  const events = decode(body);
  t.same(events, [
    { type: 'error', code: 'not_found_error', message: 'model: nope', terminal: true, raw: JSON.parse(body) },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('two messages in one input give two responses', (t) => {
  const events = decode(
    sse(MSG, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'one' } }, STOP) +
      sse(
        { type: 'message_start', message: { id: 'msg_2', model: 'claude-x' } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'two' } },
        STOP,
      ),
  );
  t.same(
    events.filter((e) => e.type === 'start' || e.type === 'text_delta' || e.type === 'done').map((e) => (e.type === 'start' ? e.id : e.type === 'text_delta' ? e.text : e.type)),
    ['msg_1', 'one', 'done', 'msg_2', 'two', 'done'],
  );
  t.end();
});

t.test('a [DONE] appended by a proxy', (t) => {
  const after = decode(sse(MSG, { type: 'message_delta', delta: { stop_reason: 'end_turn' } }) + 'data: [DONE]\n\n');
  t.same(after.at(-1), { type: 'done', stopReason: 'end', providerReason: 'end_turn' }, 'after message_delta it ends the response');
  const early = decode(sse(MSG) + 'data: [DONE]\n\n');
  t.same(early.slice(1), [
    { type: 'raw', event: '[DONE]' },
    { type: 'usage', inputTokens: 3, outputTokens: 1, totalTokens: 4, reasoningTokens: null, cachedInputTokens: null, raw: { input_tokens: 3, output_tokens: 1 } },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ], 'before it, the stream is incomplete');
  t.end();
});

t.test('auto-detection picks this dialect', (t) => {
  const bytes = fixture(`${DIALECT}/text-with-ping.sse`);
  t.same(decode(bytes, 'auto'), decode(bytes));
  t.end();
});

// ------------------------------------------------------------------ corpus

/** What PROVENANCE.md says each file exercises, as concrete values. */
interface Expect {
  stop: [string, string];
  usage?: [number, number, number | null, number | null];
  text?: Record<number, string | RegExp>;
  reasoning?: number[];
  tools?: [number, string, string | RegExp][];
  signatures?: [number, string][];
  check?: (t: Test, events: UnifiedEvent[], s: Summary) => void;
}

const EXPECT: Record<string, Expect> = {
  'anthropic-sdk-python--max-tokens-mid-tool-input.sse': {
    stop: ['max_tokens', 'max_tokens'],
    usage: [450, 124, null, 0],
    text: { 0: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now." },
    tools: [[1, 'make_file', /^\{"filename": "taxes\.txt", "lines_of_text": \[\n.*\n"Filing taxes$/s]],
    check(t, _events, s) {
      t.throws(() => JSON.parse(s.tools[0]!.arguments), 'the cut-off arguments are incomplete JSON (the accumulator reports it)');
    },
  },
  'anthropic-sdk-python--refusal-during-thinking.sse': {
    stop: ['refusal', 'refusal'],
    usage: [28, 106, 67, 0],
    text: { 1: 'Hi' },
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    check(t, events) {
      const md = events.find((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'message_delta');
      t.match(md, { event: { delta: { stop_details: { type: 'refusal', fallback_credit_token: 'tok_synthetic_fixture_a' } } } }, 'stop_details kept in raw');
    },
  },
  'anthropic-sdk-python--text-then-tool-use.sse': {
    stop: ['tool_use', 'tool_use'],
    usage: [377, 65, null, 0],
    text: { 0: "I'll check the current weather in Paris for you." },
    tools: [[1, 'get_weather', '{"location": "Paris"}']],
  },
  'anthropic-sdk-python--tool-refusal.sse': {
    stop: ['refusal', 'refusal'],
    usage: [28, 106, 67, 0],
    text: { 2: "Here's a summary of this year's solar eclipses and how" },
    tools: [[0, 'web_search', '{"query": "solar eclipse viewing safety news 2026"}']],
  },
  'llm-anthropic--adaptive-thinking.sse': {
    stop: ['end', 'end_turn'],
    usage: [34, 44, null, 0],
    text: { 0: '\n\n', 2: '1. **Captain Scoop**\n2. **Gullet**' },
    reasoning: [1],
    signatures: [[1, 'signature_delta']],
  },
  'llm-anthropic--parallel-tool-use.sse': {
    stop: ['tool_use', 'tool_use'],
    usage: [542, 62, null, 0],
    tools: [
      [0, 'pelican_name_generator', ''],
      [1, 'pelican_name_generator', ''],
    ],
  },
  'llm-anthropic--stop-sequence.sse': {
    stop: ['end', 'stop_sequence'],
    usage: [16, 28, null, 0],
    text: { 0: /^\ndef pelican\(\):\n {4}return "A large waterbird/ },
    check(t, events) {
      const md = events.find((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'message_delta');
      t.match(md, { event: { delta: { stop_sequence: '```' } } }, 'stop_sequence value kept in raw');
    },
  },
  'llm-anthropic--text-basic.sse': {
    stop: ['end', 'end_turn'],
    usage: [17, 10, null, 0],
    text: { 0: '- Captain\n- Scoop' },
    check(t, events) {
      t.ok(events.some((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'ping'), 'ping is raw');
    },
  },
  'llm-anthropic--thinking-then-tool-use.sse': {
    stop: ['tool_use', 'tool_use'],
    usage: [598, 92, 53, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    tools: [[1, 'fixed_version', '']],
  },
  'pydantic-ai--advisor-tool.sse': {
    stop: ['end', 'end_turn'],
    usage: [2411, 145, 47, 0],
    text: { 1: /^The task asks "What's 2\+2\?"/, 4: 'The answer is **4**.' },
    signatures: [[0, 'signature_delta']],
    tools: [[2, 'advisor', '']],
    check(t, events) {
      t.match(
        events.find((e) => e.type === 'tool_result'),
        { index: 3, id: 'srvtoolu_01DgsKYsJWQfJxubLmaKLEj6', name: 'advisor', result: { type: 'advisor_result', stop_reason: 'end_turn' } },
        'advisor_tool_result is the advisor call\'s tool_result',
      );
    },
  },
  'pydantic-ai--code-execution-bash.sse': {
    stop: ['end', 'end_turn'],
    usage: [4714, 304, null, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    tools: [[2, 'bash_code_execution', '{"command": "echo \\"65465-6544 * 65464-6+1.02255\\" | bc -l"}']],
    text: { 1: "I'll calculate that expression for you right away!", 4: /Answer: \*\*-428,330,955\.97745\*\*$/ },
    check(t, events) {
      t.match(
        events.find((e) => e.type === 'tool_result'),
        { index: 3, id: 'srvtoolu_01MwXaweAHve88x6s3Fc8x6Q', name: 'bash_code_execution', result: { type: 'bash_code_execution_result', return_code: 0 } },
        'bash_code_execution_tool_result is the call\'s tool_result',
      );
    },
  },
  'pydantic-ai--compaction-block.sse': {
    stop: ['end', 'end_turn'],
    // message_delta's cumulative input (181, no cache read) replaces message_start's (100 + 55096 cache read).
    usage: [181, 8, null, 0],
    text: { 1: 'Hello! 👋' },
    check(t, events) {
      t.ok(events.some((e) => e.type === 'raw' && JSON.stringify(e.event).includes('"compaction_delta"')), 'compaction_delta is raw');
      t.notOk(events.some((e) => (e.type === 'text_delta' || e.type === 'reasoning_delta') && e.index === 0), 'compaction is not text');
    },
  },
  'pydantic-ai--mcp-tool-use.sse': {
    stop: ['end', 'end_turn'],
    usage: [3042, 354, null, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    tools: [[1, 'ask_question', /^\{"repoName": "pydantic\/pydantic-ai", "question": "What is this repository about\?/]],
    text: { 3: /^\*\*Pydantic-AI\*\* is a framework/ },
    check(t, events) {
      t.match(events.find((e) => e.type === 'tool_result'), { index: 2, id: 'mcptoolu_01FZmJ5UspaX5BB9uU339UT1', name: 'ask_question' }, 'mcp_tool_result is the call\'s tool_result');
      t.notOk(events.some((e) => e.type === 'tool_result' && e.isError), 'is_error: false is no error');
    },
  },
  'pydantic-ai--pause-turn-continuation.sse': {
    stop: ['end', 'end_turn'],
    usage: [482529, 1310, 0, 0],
    tools: [
      [2, 'web_search', '{"query": "latest news on the events in San Francisco this week"}'],
      [5, 'web_search', '{"query": "latest news on the ferry schedule in San Francisco today"}'],
      [8, 'web_search', '{"query": "latest news on quantum computing in San Francisco today"}'],
      [11, 'web_search', '{"query": "latest news on the stock market in San Francisco today"}'],
    ],
    check(t, events) {
      t.equal(events.filter((e) => e.type === 'citation').length, 19, 'each citations_delta is a citation');
      t.notOk(events.some((e) => e.type === 'raw' && JSON.stringify(e.event).includes('"citations_delta"')), 'none is raw');
    },
  },
  'pydantic-ai--pause-turn.sse': {
    stop: ['other', 'pause_turn'],
    usage: [404500, 943, 261, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    check(t, _events, s) {
      t.equal(s.tools.length, 11, 'eleven web searches');
      t.ok(s.tools.every((c) => c.name === 'web_search' && c.id.startsWith('srvtoolu_')), 'all server tool calls');
      t.same(s.tools[0], { index: 2, id: 'srvtoolu_01FGPZ2P6yPXWdiD1Cxjpix3', name: 'web_search', arguments: '{"query": "San Francisco weather today"}', deltas: '{"query": "San Francisco weather today"}', provider: true });
    },
  },
  'pydantic-ai--redacted-thinking.sse': {
    stop: ['end', 'end_turn'],
    usage: [92, 189, null, 0],
    signatures: [
      [0, 'redacted_thinking'],
      [1, 'redacted_thinking'],
    ],
    text: { 2: /^I notice that you've sent what appears to be/ },
  },
  'pydantic-ai--text-editor-code-execution.sse': {
    stop: ['end', 'end_turn'],
    usage: [7621, 384, null, 0],
    tools: [
      [1, 'text_editor_code_execution', '{"command": "create", "path": "/tmp/hello.txt", "file_text": "Hello, world!"}'],
      [2, 'text_editor_code_execution', '{"command": "view", "path": "/tmp/hello.txt"}'],
      [6, 'text_editor_code_execution', '{"command": "view", "path": "/tmp/hello.txt"}'],
    ],
  },
  'pydantic-ai--text-only.sse': { stop: ['end', 'end_turn'], usage: [20, 5, null, 0], text: { 0: '2' } },
  'pydantic-ai--thinking-signature-text.sse': {
    stop: ['end', 'end_turn'],
    usage: [43, 282, null, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    text: { 1: /^Here are the basic steps for safely crossing the street:/ },
    check(t, events) {
      const i = events.findIndex((e) => e.type === 'signature');
      t.same(events[i - 1], { type: 'raw', event: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: '' } } }, 'empty thinking_delta before the signature is raw');
      t.equal(events.filter((e) => e.type === 'text_delta').length, 95, 'one text_delta per text delta (padding ignored)');
    },
  },
  'pydantic-ai--tool-search-then-tool-use.sse': {
    stop: ['tool_use', 'tool_use'],
    usage: [1591, 175, null, 0],
    tools: [
      [1, 'tool_search_tool_bm25', '{"query": "USD EUR exchange rate currency conversion"}'],
      [4, 'get_exchange_rate', '{"from_currency": "USD", "to_currency": "EUR"}'],
    ],
  },
  'pydantic-ai--web-fetch.sse': {
    stop: ['end', 'end_turn'],
    usage: [7244, 153, null, 0],
    reasoning: [0],
    tools: [[1, 'web_fetch', '{"url": "https://ai.pydantic.dev"}']],
    text: { 3: /^Pydantic AI is a Python agent framework/ },
  },
  'pydantic-ai--web-search-no-ping.sse': {
    stop: ['end', 'end_turn'],
    usage: [31772, 644, null, 0],
    tools: [
      [0, 'web_search', '{"query": "top world news today"}'],
      [3, 'web_search', '{"query": "breaking news headlines August 14 2025"}'],
    ],
    check(t, events) {
      t.notOk(events.some((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'ping'), 'no ping in this stream');
    },
  },
  'pydantic-ai--web-search-thinking-citations.sse': {
    stop: ['end', 'end_turn'],
    usage: [22397, 637, null, 0],
    reasoning: [0],
    tools: [
      [1, 'web_search', '{"query": "San Francisco weather today"}'],
      [4, 'web_search', '{"query": "San Francisco weather September 16 2025"}'],
    ],
    text: { 7: 'today (September 16) shows a high of 76°F and low of 59°F' },
  },
  'vercel-ai--code-execution-20250825.sse': {
    stop: ['end', 'end_turn'],
    usage: [8050, 771, null, 0],
    tools: [
      [1, 'text_editor_code_execution', /^\{"command": "create", "path": "\/tmp\/fibonacci\.py", "file_text": "def fibonacci\(n\):/],
      [4, 'bash_code_execution', '{"command": "python /tmp/fibonacci.py"}'],
    ],
    check(t, events, s) {
      t.equal(events.filter((e) => e.type === 'tool_call_delta' && e.index === 1).length, 197, '197 argument fragments');
      t.doesNotThrow(() => JSON.parse(s.tools[0]!.arguments), 'reassembled arguments are valid JSON');
      const md = events.find((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'message_delta');
      t.match(md, { event: { delta: { container: { id: 'container_011CU6pTr2hLT47seQ5Xs4yj' } } } }, 'container kept in raw');
    },
  },
  'vercel-ai--context-management.sse': {
    stop: ['end', 'end_turn'],
    usage: [69, 53, null, 0],
    reasoning: [0],
    signatures: [[0, 'signature_delta']],
    text: { 1: '925 ÷ 5 = 185' },
  },
  'vercel-ai--fallback-block.sse': {
    stop: ['end', 'end_turn'],
    usage: [412, 264, null, 0],
    text: { 1: 'The printing press was invented by Johannes Gutenberg around 1440.' },
    check(t, events) {
      t.same(events[1], { type: 'raw', event: { type: 'content_block_start', index: 0, content_block: { type: 'fallback', from: { model: 'claude-fable-5' }, to: { model: 'claude-opus-4-8' } } } });
    },
  },
  'vercel-ai--refusal-no-content.sse': {
    stop: ['refusal', 'refusal'],
    usage: [18, 5, null, 0],
    check(t, events) {
      t.notOk(events.some((e) => e.type === 'text_delta' || e.type.startsWith('tool_call')), 'no content blocks');
      const md = events.find((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'message_delta');
      t.match(md, { event: { delta: { stop_details: { category: 'cyber' } } } });
    },
  },
  'vercel-ai--tool-use-no-args.sse': {
    stop: ['tool_use', 'tool_use'],
    usage: [565, 48, null, 0],
    text: { 0: "I'll update the issue list for you." },
    tools: [[1, 'updateIssueList', '']],
    check(t, events) {
      t.notOk(events.some((e) => e.type === 'tool_call_delta'), 'the empty partial_json emits no delta');
    },
  },
};

t.test('corpus', (t) => {
  // One response each; the .ndjson log of 15 responses is tested in anthropic-hosted-tools.test.ts.
  const all = corpusFiles([DIALECT]);
  const files = all.filter((f) => f.name.endsWith('.sse') || f.name.endsWith('.body'));
  t.equal(files.length, 29, 'all 29 single-response capture files');
  t.strictSame(
    all.filter((f) => !files.includes(f)).map((f) => f.name),
    [`${DIALECT}/vercel-ai--programmatic-tool-calling.ndjson`],
    'and the one log',
  );
  for (const file of files) {
    const base = file.name.slice(DIALECT.length + 1);
    t.test(base, (t) => {
      const events = stable(t, file.bytes, { dialect: DIALECT }, { quick: true });

      if (base.endsWith('.body')) {
        // HTTP 404 body: the error is reported, not waited on.
        t.same(events, [
          { type: 'error', code: 'not_found_error', message: 'model: this-model-does-not-exist-12345', terminal: true, raw: JSON.parse(file.bytes.toString()) },
          { type: 'done', stopReason: 'error', providerReason: null },
        ]);
        t.same(decode(file.bytes, 'auto').map((e) => e.type), ['error', 'done'], 'also under auto');
        t.end();
        return;
      }

      checkInvariants(t, events, file.bytes);
      const s = summarize(events);
      const o = oracle(file.bytes);
      t.same(s.text, o.text, 'text per block matches a naive read');
      t.same(s.reasoning, o.reasoning, 'thinking per block matches a naive read');
      t.same(Object.fromEntries(s.tools.map((c) => [c.index, c.arguments])), o.tools, 'tool arguments per block match a naive read');
      t.same(Object.fromEntries(s.tools.map((c) => [c.index, c.provider])), o.provider, 'server_tool_use / mcp_tool_use blocks, and only they, are providerExecuted');
      t.same(s.results, o.results, 'one tool_result per result block, with its call id');
      t.same(s.citations, o.citations, 'one citation per citations_delta, on its text block');
      t.equal(s.usageCount, 1, 'one usage event');
      t.same(decode(file.bytes, 'auto'), events, 'auto-detection gives the same events');

      const x = EXPECT[base];
      if (x === undefined) {
        t.fail(`no expectations written for ${base}`);
        t.end();
        return;
      }
      t.same(s.done, [{ stopReason: x.stop[0], providerReason: x.stop[1] }], 'stop reason');
      if (x.usage) {
        const [input, output, reasoning, cached] = x.usage;
        t.same(s.usage, { inputTokens: input, outputTokens: output, totalTokens: input + output, reasoningTokens: reasoning, cachedInputTokens: cached }, 'usage');
      }
      for (const [index, text] of Object.entries(x.text ?? {})) {
        if (typeof text === 'string') t.equal(s.text[Number(index)], text, `text[${index}]`);
        else t.match(s.text[Number(index)], text, `text[${index}]`);
      }
      if (x.reasoning) t.same(Object.keys(s.reasoning).map(Number), x.reasoning, 'reasoning blocks');
      if (x.signatures) t.same(s.signatures.map((g) => [g.index, g.kind]), x.signatures, 'signatures');
      if (x.tools) {
        t.same(s.tools.map((c) => [c.index, c.name]), x.tools.map(([i, n]) => [i, n]), 'tool calls');
        x.tools.forEach(([, , args], i) => {
          if (typeof args === 'string') t.equal(s.tools[i]?.arguments, args, `tool ${i} arguments`);
          else t.match(s.tools[i]?.arguments, args, `tool ${i} arguments`);
        });
      }
      x.check?.(t, events, s);
      t.end();
    });
  }
  t.end();
});
