import t, { type Test } from 'tap';
import type { UnifiedEvent } from '../../lib/events.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents as decode, stable } from '../helpers/decode.js';
import { doneReasons as doneOf, ofType as of, texts as textOf, usageCounts as usageOf, withoutRaw } from '../helpers/events.js';
import { eventLine } from '../helpers/event-lines.js';
import { run as runFused } from '../helpers/fast-path.js';
import type { FinalResult } from '../../lib/accumulate/types.js';

type Ev = UnifiedEvent;

/** Compact view: raw payloads become their event_type (or the sentinel), usage/error drop `raw`. */
function view(evs: Ev[]): unknown[] {
  return evs.map((e) => {
    if (e.type === 'raw') {
      const ev = e.event;
      const kind = typeof ev === 'object' && ev !== null && !Array.isArray(ev) ? ev['event_type'] : ev;
      return e.cursor === undefined ? { type: 'raw', kind } : { type: 'raw', kind, cursor: e.cursor };
    }
    if (e.type === 'citation') {
      const { raw: _raw, ...rest } = e;
      return rest;
    }
    return withoutRaw(e);
  });
}

function invariants(t: Test, evs: Ev[]): void {
  t.equal(of(evs, 'error').filter((e) => e.code === 'invalid_json').length, 0, 'no invalid_json');
  t.equal(of(evs, 'done').length, Math.max(of(evs, 'start').length, 1), 'exactly one done per response');
  t.equal(of(evs, 'text_delta').filter((e) => e.text === '').length, 0, 'no empty text_delta');
  const deltas = new Map<string, string[]>();
  for (const e of evs) {
    if (e.type === 'tool_call_start') deltas.set(e.id, []);
    else if (e.type === 'tool_call_delta') deltas.get(e.id)?.push(e.argumentsDelta);
    else if (e.type === 'tool_call_done') t.equal(deltas.get(e.id)?.join(''), e.arguments, `deltas of ${e.id} make its arguments`);
  }
}

function check(t: Test, buf: Buffer, quick = false): Ev[] {
  const evs = stable(t, buf, {}, { quick });
  invariants(t, evs);
  t.same(decode(buf, { dialect: 'gemini-interactions' }), evs, 'explicit dialect gives the same events');
  return evs;
}

// ---------------------------------------------------------------------------
// fixtures

t.test('text: thought summary + signature, text deltas, usage incl. thoughts, event_id as cursor', (t) => {
  const evs = check(t, fixture('gemini-interactions/text.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'v1_fx1', model: 'gemini-3-flash-preview', cursor: 'e1', dialect: 'gemini-interactions' },
    { type: 'raw', kind: 'interaction.status_update', cursor: 'e2' },
    { type: 'raw', kind: 'step.start', cursor: 'e3' },
    { type: 'reasoning_delta', index: 0, text: 'Counting first.', cursor: 'e4' },
    { type: 'signature', index: 0, signature: 'c2lnLWl4', kind: 'thought_signature', cursor: 'e5' },
    { type: 'raw', kind: 'step.stop', cursor: 'e6' },
    { type: 'raw', kind: 'step.start', cursor: 'e7' },
    { type: 'text_delta', index: 1, text: '1, 2, ', cursor: 'e8' },
    { type: 'text_delta', index: 1, text: '3 — fin 😀', cursor: 'e9' },
    { type: 'raw', kind: 'step.stop', cursor: 'e10' },
    // input 20 + tool-use 5; output 10 + thoughts 25.
    { type: 'usage', inputTokens: 25, outputTokens: 35, totalTokens: 60, reasoningTokens: 25, cachedInputTokens: 8, cursor: 'e11' },
    { type: 'done', stopReason: 'end', providerReason: 'completed', cursor: 'e11' },
    // The sentinel after interaction.completed is outside the response.
    { type: 'raw', kind: '[DONE]' },
  ]);
  t.end();
});

t.test('function call with arguments_delta fragments; a call without deltas takes step.arguments', (t) => {
  const evs = check(t, fixture('gemini-interactions/function-call-fragments.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'v1_fx2', model: 'gemini-2.5-flash', dialect: 'gemini-interactions' },
    { type: 'tool_call_start', index: 0, id: 'fc1', name: 'getWeather' },
    { type: 'tool_call_delta', index: 0, id: 'fc1', argumentsDelta: '{"loca' },
    { type: 'tool_call_delta', index: 0, id: 'fc1', argumentsDelta: 'tion":"San ' },
    { type: 'tool_call_delta', index: 0, id: 'fc1', argumentsDelta: 'Francisco"}' },
    { type: 'tool_call_done', index: 0, id: 'fc1', name: 'getWeather', arguments: '{"location":"San Francisco"}' },
    { type: 'tool_call_start', index: 1, id: 'fc2', name: 'getTime' },
    { type: 'signature', index: 1, signature: 'c2lnLWZj', kind: 'thought_signature' },
    { type: 'tool_call_delta', index: 1, id: 'fc2', argumentsDelta: '{}' },
    { type: 'tool_call_done', index: 1, id: 'fc2', name: 'getTime', arguments: '{}' },
    { type: 'usage', inputTokens: 30, outputTokens: 10, totalTokens: 40, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'tool_use', providerReason: 'requires_action' },
    { type: 'raw', kind: '[DONE]' },
  ]);
  t.end();
});

t.test('event: error mid-stream: terminal error with the provider code, then done(error)', (t) => {
  const evs = check(t, fixture('gemini-interactions/error.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'v1_fx3', model: 'gemini-2.5-flash', cursor: 'e1', dialect: 'gemini-interactions' },
    { type: 'raw', kind: 'step.start', cursor: 'e2' },
    { type: 'text_delta', index: 0, text: 'Partial', cursor: 'e3' },
    { type: 'error', code: 'resource_exhausted', message: 'Quota exceeded.', terminal: true, cursor: 'e4' },
    { type: 'done', stopReason: 'error', providerReason: null, cursor: 'e4' },
  ]);
  t.end();
});

t.test('[DONE] while the response is open: calls with complete arguments close, then incomplete_stream', (t) => {
  const evs = check(t, fixture('gemini-interactions/done-without-completed.sse'));
  t.same(view(evs), [
    { type: 'start', id: '', model: 'gemini-2.5-flash', dialect: 'gemini-interactions' },
    { type: 'tool_call_start', index: 0, id: 'fc9', name: 'lookup' },
    { type: 'tool_call_delta', index: 0, id: 'fc9', argumentsDelta: '{"q":"x"}' },
    { type: 'tool_call_start', index: 1, id: 'fc10', name: 'lookup' },
    { type: 'tool_call_delta', index: 1, id: 'fc10', argumentsDelta: '{"q":' },
    { type: 'tool_call_done', index: 0, id: 'fc9', name: 'lookup', arguments: '{"q":"x"}' },
    { type: 'error', code: 'incomplete_stream', message: 'the stream ended before interaction.completed', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('input that ends without interaction.completed or [DONE]: the normalizer reports incomplete_stream', (t) => {
  const text = fixture('gemini-interactions/text.sse').toString('utf8');
  const cut = Buffer.from(text.slice(0, text.indexOf('event: step.stop')));
  const evs = check(t, cut);
  t.same(view(evs).slice(-2), [
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('status mapping of interaction.completed', (t) => {
  const cases: [string, string][] = [
    ['completed', 'end'],
    ['requires_action', 'tool_use'],
    ['incomplete', 'max_tokens'],
    ['budget_exceeded', 'max_tokens'],
    ['failed', 'error'],
    ['cancelled', 'other'],
    ['something_new', 'other'],
  ];
  for (const [status, stop] of cases) {
    const evs = decode(
      Buffer.from(
        'event: interaction.created\ndata: {"interaction":{"id":"i","status":"in_progress"},"event_type":"interaction.created"}\n\n' +
          `event: interaction.completed\ndata: {"interaction":{"id":"i","status":"${status}"},"event_type":"interaction.completed"}\n\n`,
      ),
    );
    t.same(doneOf(evs), [{ stopReason: stop, providerReason: status }], status);
    t.equal(of(evs, 'error').length, status === 'failed' ? 1 : 0, `${status}: error event only when failed`);
  }
  t.end();
});

t.test('a server call step, an image delta; other deltas and steps are raw; a trailing status update does not open a response', (t) => {
  const lines = [
    { event_type: 'interaction.created', interaction: { id: 'i9', model: 'm' } },
    { event_type: 'step.start', index: 0, step: { type: 'code_execution_call', id: 'x' } },
    { event_type: 'step.delta', index: 0, delta: { type: 'code_execution_call', arguments: { code: 'print(1)' } } },
    { event_type: 'step.delta', index: 1, delta: { type: 'text', text: '' } },
    { event_type: 'step.delta', index: 1, delta: { type: 'image', data: 'AAAA', mime_type: 'image/png' } },
    { event_type: 'step.delta', index: 2, delta: { type: 'arguments_delta', arguments: '{}' } },
    { event_type: 'something.new', index: 3 },
    { event_type: 'interaction.completed', interaction: { id: 'i9', status: 'completed' } },
    { event_type: 'interaction.status_update', interaction_id: 'i9', status: 'completed' },
  ];
  const buf = Buffer.from(lines.map((l) => `event: ${l.event_type}\ndata: ${JSON.stringify(l)}\n\n`).join('') + 'event: done\ndata: [DONE]\n\n');
  const evs = check(t, buf);
  t.same(view(evs), [
    { type: 'start', id: 'i9', model: 'm', dialect: 'gemini-interactions' },
    // the code execution step: a provider-executed call whose arguments come whole in its delta
    { type: 'tool_call_start', index: 0, id: 'x', name: 'code_execution', providerExecuted: true },
    { type: 'raw', kind: 'step.delta' },
    { type: 'file', index: 1, mimeType: 'image/png', data: 'AAAA' },
    // arguments for a step never started as a function_call: nothing to attach them to.
    { type: 'raw', kind: 'step.delta' },
    { type: 'raw', kind: 'something.new' },
    // no step.stop: the call ends with the interaction
    { type: 'tool_call_delta', index: 0, id: 'x', argumentsDelta: '{"code":"print(1)"}', providerExecuted: true },
    { type: 'tool_call_done', index: 0, id: 'x', name: 'code_execution', arguments: '{"code":"print(1)"}', providerExecuted: true },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
    { type: 'raw', kind: 'interaction.status_update' },
    { type: 'raw', kind: '[DONE]' },
  ]);
  t.end();
});

t.test('payloads of an unexpected shape are raw, nothing lost; an error object without event_type is an error', (t) => {
  const payloads: unknown[] = [
    { event_type: 'interaction.created', interaction: { id: 'i7', model: 'm' } },
    { event_type: 'step.start', index: 0, step: { type: 'model_output' } },
    { event_type: 'step.delta', delta: { type: 'text', text: 'no index' } },
    { event_type: 'step.delta', index: 0 },
    { event_type: 'step.delta', index: 0, delta: { type: 'text', text: 'kept' } },
    [1, 2],
    'a string',
    { error: { code: 'unavailable', message: 'Try again.' } },
  ];
  const buf = Buffer.from(payloads.map((p) => `data: ${JSON.stringify(p)}\n\n`).join(''));
  const evs = check(t, buf);
  t.same(view(evs), [
    { type: 'start', id: 'i7', model: 'm', dialect: 'gemini-interactions' },
    { type: 'raw', kind: 'step.start' },
    { type: 'raw', kind: 'step.delta' },
    { type: 'raw', kind: 'step.delta' },
    { type: 'text_delta', index: 0, text: 'kept' },
    { type: 'raw', kind: [1, 2] },
    { type: 'raw', kind: 'a string' },
    { type: 'error', code: 'unavailable', message: 'Try again.', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  // the payloads that are not text come out as received
  t.same(
    of(evs, 'raw').map((e) => e.event),
    [payloads[1], payloads[2], payloads[3], payloads[5], payloads[6]],
  );
  t.end();
});

t.test('a resumed stream (no interaction.created) starts at its first step with the id from the status update', (t) => {
  const lines = [
    { event_type: 'interaction.status_update', interaction_id: 'v1_resumed', status: 'in_progress', event_id: 'e7' },
    { event_type: 'step.delta', index: 1, delta: { type: 'text', text: 'rest' }, event_id: 'e8' },
    { event_type: 'interaction.completed', interaction: { id: 'v1_resumed', status: 'completed' }, event_id: 'e9' },
  ];
  const buf = Buffer.from(lines.map((l) => `event: ${l.event_type}\ndata: ${JSON.stringify(l)}\n\n`).join(''));
  const evs = check(t, buf);
  t.same(view(evs), [
    { type: 'raw', kind: 'interaction.status_update', cursor: 'e7' },
    { type: 'start', id: 'v1_resumed', model: null, cursor: 'e8', dialect: 'gemini-interactions' },
    { type: 'text_delta', index: 1, text: 'rest', cursor: 'e8' },
    { type: 'done', stopReason: 'end', providerReason: 'completed', cursor: 'e9' },
  ]);
  t.end();
});

t.test('server tool steps: provider-executed calls and their results, citations with byte offsets as UTF-16, an image', (t) => {
  const evs = check(t, fixture('gemini-interactions/server-tools.sse'));
  t.same(
    evs.filter((e) => e.type.startsWith('tool_') || e.type === 'citation' || e.type === 'file').map((e) => view([e])[0]),
    [
      { type: 'tool_call_start', index: 0, id: 'ce1', name: 'code_execution', providerExecuted: true, cursor: 'e2' },
      { type: 'tool_call_delta', index: 0, id: 'ce1', argumentsDelta: '{"language":"python","code":"print(157*2)"}', providerExecuted: true, cursor: 'e3' },
      { type: 'tool_call_done', index: 0, id: 'ce1', name: 'code_execution', arguments: '{"language":"python","code":"print(157*2)"}', providerExecuted: true, cursor: 'e3' },
      { type: 'tool_result', index: 1, id: 'ce1', name: 'code_execution', result: '314\n', cursor: 'e6' },
      { type: 'tool_call_start', index: 2, id: 'uc1', name: 'url_context', providerExecuted: true, cursor: 'e7' },
      { type: 'tool_call_delta', index: 2, id: 'uc1', argumentsDelta: '{"urls":["https://example.com/dom"]}', providerExecuted: true, cursor: 'e9' },
      { type: 'tool_call_done', index: 2, id: 'uc1', name: 'url_context', arguments: '{"urls":["https://example.com/dom"]}', providerExecuted: true, cursor: 'e9' },
      // two result deltas: their arrays joined
      {
        type: 'tool_result',
        index: 3,
        id: 'uc1',
        name: 'url_context',
        result: [
          { url: 'https://example.com/dom', status: 'success' },
          { url: 'https://example.com/paywall', status: 'paywall' },
        ],
        cursor: 'e13',
      },
      // an MCP call is named after its tool
      { type: 'tool_call_start', index: 4, id: 'm1', name: 'get_height', providerExecuted: true, cursor: 'e14' },
      { type: 'tool_call_delta', index: 4, id: 'm1', argumentsDelta: '{"name":"Kölner Dom"}', providerExecuted: true, cursor: 'e15' },
      { type: 'tool_call_done', index: 4, id: 'm1', name: 'get_height', arguments: '{"name":"Kölner Dom"}', providerExecuted: true, cursor: 'e15' },
      { type: 'tool_result', index: 5, id: 'm1', name: 'get_height', result: [{ type: 'text', text: '157 m' }], cursor: 'e17' },
      // at the text step's stop, once each (the second annotation delta repeats the first citation)
      { type: 'citation', index: 6, url: 'https://example.com/dom', title: 'example.com', start: 0, end: 30, cursor: 'e23' },
      { type: 'citation', index: 6, title: 'dom.pdf', source: 'fileSearchStores/baudaten', start: 31, end: 55, cursor: 'e23' },
      { type: 'citation', index: 6, title: 'Kölner Dom', source: 'places/ChIJ', start: 0, end: 30, cursor: 'e23' },
      { type: 'file', index: 7, mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', cursor: 'e25' },
    ],
  );
  const text = textOf(evs);
  t.equal(text.slice(0, 30), 'Der Kölner Dom ist 157 m hoch.');
  t.equal(text.slice(31, 55), 'Er wurde 1880 fertig 🏰.');
  t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'completed' }]);
  t.end();
});

t.test('a result step with is_error, and a result whose call never came: the result\'s own call_id', (t) => {
  const lines = [
    { event_type: 'interaction.created', interaction: { id: 'i5', model: 'm' } },
    { event_type: 'step.start', index: 0, step: { type: 'code_execution_result', call_id: 'gone', is_error: true, result: 'Traceback' } },
    { event_type: 'step.stop', index: 0 },
    { event_type: 'step.start', index: 1, step: { type: 'google_search_result', call_id: 'g' } },
    { event_type: 'interaction.completed', interaction: { id: 'i5', status: 'completed' } },
  ];
  const buf = Buffer.from(lines.map((l) => `event: ${l.event_type}\ndata: ${JSON.stringify(l)}\n\n`).join(''));
  const evs = check(t, buf);
  t.same(view(of(evs, 'tool_result')), [
    { type: 'tool_result', index: 0, id: 'gone', name: 'code_execution', result: 'Traceback', isError: true },
    // never stopped, no result: closed by interaction.completed with what came (nothing)
    { type: 'tool_result', index: 1, id: 'g', name: 'google_search', result: null },
  ]);
  t.end();
});

t.test('[DONE] before interaction.completed: a server call whose arguments came whole closes, then incomplete_stream', (t) => {
  const lines = [
    { event_type: 'interaction.created', interaction: { id: 'i6', model: 'm' } },
    { event_type: 'step.start', index: 0, step: { type: 'google_search_call', id: 's1' } },
    { event_type: 'step.delta', index: 0, delta: { type: 'google_search_call', arguments: { queries: ['q'] } } },
  ];
  const buf = Buffer.from(lines.map((l) => `event: ${l.event_type}\ndata: ${JSON.stringify(l)}\n\n`).join('') + 'event: done\ndata: [DONE]\n\n');
  const evs = check(t, buf);
  t.same(view(evs).slice(1), [
    { type: 'tool_call_start', index: 0, id: 's1', name: 'google_search', providerExecuted: true },
    { type: 'tool_call_delta', index: 0, id: 's1', argumentsDelta: '{"queries":["q"]}', providerExecuted: true },
    { type: 'tool_call_done', index: 0, id: 's1', name: 'google_search', arguments: '{"queries":["q"]}', providerExecuted: true },
    { type: 'error', code: 'incomplete_stream', message: 'the stream ended before interaction.completed', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('annotation offsets after many non-ASCII deltas that the fused final took as wire bytes: fast path on = off', (t) => {
  const parts = Array.from({ length: 200 }, (_, i) => `Ça coûte ${i} € 😀 "q"\n`);
  const text = parts.join('');
  const last = parts[199]!;
  const lines: object[] = [
    { event_type: 'interaction.created', interaction: { id: 'i8', model: 'm' } },
    { event_type: 'step.start', index: 0, step: { type: 'model_output' } },
    ...parts.map((p, i) => ({ event_type: 'step.delta', index: 0, delta: { type: 'text', text: p }, event_id: `e${i}` })),
    {
      event_type: 'step.delta',
      index: 0,
      delta: { type: 'text_annotation_delta', annotations: [{ type: 'url_citation', url: 'https://example.com/x', start_index: Buffer.byteLength(text) - Buffer.byteLength(last), end_index: Buffer.byteLength(text) }] },
    },
    { event_type: 'step.stop', index: 0 },
    { event_type: 'interaction.completed', interaction: { id: 'i8', status: 'completed' } },
  ];
  const buf = Buffer.from(lines.map((l) => `event: ${(l as { event_type: string }).event_type}\ndata: ${JSON.stringify(l)}\n\n`).join(''));
  const slices = [buf.subarray(0, 30000), buf.subarray(30000)];
  const on = runFused(slices, { dialect: 'gemini-interactions' }, 'final', false, true) as FinalResult[];
  t.strictSame(on, runFused(slices, { dialect: 'gemini-interactions' }, 'final', false, false), 'same finals');
  const [cite] = on[0]!.citations;
  t.equal(on[0]!.text.slice(cite!.start, cite!.end), last);
  t.end();
});

// ---------------------------------------------------------------------------
// corpus

const corpusChecks: Record<string, (t: Test, evs: Ev[]) => void> = {
  'gemini-interactions/vercel-ai--after-function-result.sse': (t, evs) => {
    t.equal(textOf(evs), 'The weather in San Francisco right now is sunny with a temperature of 27 degrees Celsius.');
    t.same(usageOf(evs), [{ inputTokens: 161, outputTokens: 19, totalTokens: 180, reasoningTokens: 0, cachedInputTokens: 0 }]);
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'completed' }]);
  },
  'gemini-interactions/vercel-ai--basic.sse': (t, evs) => {
    const start = of(evs, 'start')[0]!;
    t.match(start.id, /^v1_ChdUR3NIYXVyQkFlYVA2ZGtQajZERThBVRIX/);
    t.equal(start.model, 'gemini-2.5-flash');
    t.same(
      evs.map((e) => e.type),
      ['start', 'raw', 'raw', 'signature', 'raw', 'raw', 'text_delta', 'raw', 'usage', 'done', 'raw'],
      'created, status_update, thought step (signature), model_output step (text), completed, [DONE]',
    );
    t.same(of(evs, 'signature').map((s) => [s.index, s.signature.length]), [[0, 744]]);
    t.match(textOf(evs), /^I'm doing great, thank you for asking!/);
    t.equal(of(evs, 'text_delta')[0]!.index, 1);
    // total 148 = input 7 + output 26 + thoughts 115.
    t.same(usageOf(evs), [{ inputTokens: 7, outputTokens: 26 + 115, totalTokens: 148, reasoningTokens: 115, cachedInputTokens: 0 }]);
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'completed' }]);
  },
  'gemini-interactions/vercel-ai--function-call.sse': (t, evs) => {
    t.same(
      evs.filter((e) => e.type.startsWith('tool_call')).map((e) => view([e])[0]),
      [
        { type: 'tool_call_start', index: 1, id: '61nzpsv4', name: 'getWeather' },
        { type: 'tool_call_delta', index: 1, id: '61nzpsv4', argumentsDelta: '{"location":"San Francisco"}' },
        { type: 'tool_call_done', index: 1, id: '61nzpsv4', name: 'getWeather', arguments: '{"location":"San Francisco"}' },
      ],
    );
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'requires_action' }]);
    t.same(usageOf(evs), [{ inputTokens: 53, outputTokens: 15 + 65, totalTokens: 133, reasoningTokens: 65, cachedInputTokens: 0 }]);
  },
  'gemini-interactions/vercel-ai--google-search.sse': (t, evs) => {
    const text = textOf(evs);
    t.match(text, /^Here's a notable AI development/);
    t.match(text, /biologically plausible mechanisms\.$/);
    const args = '{"queries":["notable AI developments last week May 8-15 2026","AI news May 8 2026","AI breakthroughs May 2026","major AI announcements May 2026"]}';
    t.same(
      evs.filter((e) => e.type.startsWith('tool_')).map((e) => eventLine(e)),
      [
        'tool_start 2 7xveqyd2 google_search provider',
        `tool_delta 2 7xveqyd2 ${args} provider`,
        `tool_done 2 7xveqyd2 google_search ${args} provider`,
        'tool_result 3 7xveqyd2 google_search',
      ],
    );
    const [result] = of(evs, 'tool_result');
    t.equal((result!.result as unknown[]).length, 8, 'the eight search_suggestions snippets, as received');
    const cites = of(evs, 'citation');
    t.same(
      cites.map((c) => `${c.index} ${c.title} ${c.start}-${c.end}`),
      [
        '1 coaio.com 346-439',
        '1 marketingprofs.com 441-633',
        '1 substack.com 441-633',
        '1 youtube.com 635-754',
        '1 youtube.com 635-754',
        '1 neuralbuddies.com 635-754',
        '1 marketingprofs.com 757-984',
        '1 youtube.com 757-984',
        '1 marketingprofs.com 986-1074',
        '1 youtube.com 1075-1170',
        '1 marketingprofs.com 1173-1467',
        '1 youtube.com 1173-1467',
        '1 techdg.in 1688-1903',
        '1 etcjournal.com 2205-2405',
      ],
      'the 14 url_citation annotations (an ASCII text: bytes are UTF-16 units)',
    );
    t.equal(text.slice(cites[0]!.start, cites[0]!.end), 'These updates aim to enable AI agents to manage complex tasks with reduced human intervention');
    t.ok(cites.every((c) => c.url?.startsWith('https://vertexaisearch.cloud.google.com/grounding-api-redirect/')));
    t.equal(of(evs, 'raw').filter((e) => JSON.stringify(e.event).includes('annotations')).length, 0, 'the annotations are not raw any more');
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'completed' }], 'only a provider-executed call: end');
    // total 1983 = input 22 + tool use 198 + output 590 + thoughts 1173.
    t.same(usageOf(evs), [{ inputTokens: 22 + 198, outputTokens: 590 + 1173, totalTokens: 1983, reasoningTokens: 1173, cachedInputTokens: 0 }]);
  },
  'gemini-interactions/vercel-ai--stateful-turn1.sse': (t, evs) => {
    t.match(textOf(evs), /^The three largest cities in Spain by population/);
    t.match(textOf(evs), /\*\*Valencia\*\*$/);
    t.same(usageOf(evs), [{ inputTokens: 10, outputTokens: 31 + 137, totalTokens: 178, reasoningTokens: 137, cachedInputTokens: 0 }]);
  },
  'gemini-interactions/vercel-ai--stateful-turn2.sse': (t, evs) => {
    t.match(textOf(evs), /^The most famous landmark in \*\*Barcelona\*\*/);
    t.match(textOf(evs), /Sagrada Familia/);
    t.same(usageOf(evs), [{ inputTokens: 12, outputTokens: 54 + 391, totalTokens: 457, reasoningTokens: 391, cachedInputTokens: 0 }]);
  },
  'gemini-interactions/vercel-ai--stateless-turn1.sse': (t, evs) => {
    t.equal(of(evs, 'start')[0]!.id, '', 'store=false: the interaction id is an empty string');
    t.match(textOf(evs), /^The three largest cities in Spain are:/);
    t.same(usageOf(evs), [{ inputTokens: 10, outputTokens: 29 + 174, totalTokens: 213, reasoningTokens: 174, cachedInputTokens: 0 }]);
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'completed' }]);
  },
  'gemini-interactions/vercel-ai--stateless-turn2.sse': (t, evs) => {
    t.equal(of(evs, 'start')[0]!.id, '');
    t.match(textOf(evs), /is undoubtedly the \*\*Sagrada Familia\*\*\.$/);
    t.same(usageOf(evs), [{ inputTokens: 52, outputTokens: 22 + 395, totalTokens: 469, reasoningTokens: 395, cachedInputTokens: 0 }]);
  },
};

t.test('corpus', (t) => {
  const files = corpusFiles(['gemini-interactions']);
  t.equal(files.length, 8, 'all 8 corpus files are found');
  for (const file of files) {
    t.test(file.name, (t) => {
      const evs = check(t, file.bytes, true);
      t.same(evs.map((e) => e.type).slice(-3), ['usage', 'done', 'raw'], 'completed → usage, done; then [DONE] outside the response');
      t.equal(of(evs, 'start').length, 1);
      t.equal(of(evs, 'raw').at(-1)?.event, '[DONE]');
      const checkFile = corpusChecks[file.name];
      t.ok(checkFile, 'has documented checks');
      checkFile?.(t, evs);
      t.end();
    });
  }
  t.end();
});
