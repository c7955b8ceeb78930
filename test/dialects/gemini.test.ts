import t, { type Test } from 'tap';
import type { EventsStageOptions } from '../../lib/pipeline/events-stage.js';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { PartialArgsAssembler, parseJsonPath } from '../../lib/dialects/gemini.js';
import { TextLedger } from '../../lib/dialects/text-offsets.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents as decode, stable } from '../helpers/decode.js';
import { doneReasons as doneOf, ofType as of, texts, usageCounts as usageOf, withoutRaw } from '../helpers/events.js';
import { eventLine } from '../helpers/event-lines.js';
import { run as runFused } from '../helpers/fast-path.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { base64DecodedBytes } from '../../lib/accumulate/audio.js';
import type { FinalResult } from '../../lib/accumulate/types.js';

// ---------------------------------------------------------------------------
// helpers

type Ev = UnifiedEvent;

/** Compact view for exact-sequence assertions: raw payloads become their top-level keys, usage/error/citation drop `raw`. */
function view(evs: Ev[]): unknown[] {
  return evs.map((e) => {
    if (e.type === 'citation') {
      const { raw: _raw, ...rest } = e;
      return rest;
    }
    if (e.type === 'raw') {
      const ev = e.event;
      const keys = typeof ev === 'object' && ev !== null && !Array.isArray(ev) ? Object.keys(ev).join(',') : ev;
      return e.choice === undefined ? { type: 'raw', keys } : { type: 'raw', keys, choice: e.choice };
    }
    return withoutRaw(e);
  });
}

/** The finals of these events (the final accumulator's view). */
function finalsOf(evs: Ev[]): FinalResult[] {
  const acc = createFinalAccumulator();
  const out: FinalResult[] = [];
  for (const e of evs) acc.push(e, (f) => out.push(f));
  acc.end((f) => out.push(f));
  return out;
}

/** The provider-executed calls, tool results, citations and files, one line each. */
const hosted = (evs: Ev[]): string[] =>
  evs.filter((e) => e.type.startsWith('tool_') || e.type === 'citation' || e.type === 'file').map((e) => eventLine(e));

/** The tool_result of an MCP capture (its result, for an exact comparison). */
const mcpResult = (evs: Ev[]): Json => of(evs, 'tool_result')[0]!.result;

/** The text of one choice (candidate 0 when none is given). */
const textOf = (evs: Ev[], choice?: number): string => texts(evs, (e) => e.choice === choice);

const reasoningOf = (evs: Ev[]): string =>
  of(evs, 'reasoning_delta')
    .map((e) => e.text)
    .join('');

const calls = (evs: Ev[]): { name: string; arguments: string }[] =>
  of(evs, 'tool_call_done').map((e) => ({ name: e.name, arguments: e.arguments }));

/** Invariants every Gemini output must satisfy. */
function invariants(t: Test, evs: Ev[]): void {
  t.equal(of(evs, 'error').filter((e) => e.code === 'invalid_json').length, 0, 'no invalid_json');
  const starts = of(evs, 'start').length;
  const finals = of(evs, 'done').filter((e) => e.choice === undefined).length;
  t.equal(finals, Math.max(starts, 1), 'exactly one done per response');
  t.equal(evs[evs.length - 1]?.type, 'done', 'the last event is a done');
  t.equal(of(evs, 'text_delta').filter((e) => e.text === '').length, 0, 'no empty text_delta');
  t.equal(of(evs, 'reasoning_delta').filter((e) => e.text === '').length, 0, 'no empty reasoning_delta');
  // Deltas of each call concatenate to its arguments, and every started call is done once.
  const deltas = new Map<string, string[]>();
  for (const e of evs) {
    const key = `${e.choice ?? 0}/${'id' in e ? e.id : ''}`;
    if (e.type === 'tool_call_start') {
      t.notOk(deltas.has(key), `call ${key} started once`);
      t.ok(e.id.length > 0, 'call id is non-empty');
      deltas.set(key, []);
    } else if (e.type === 'tool_call_delta') deltas.get(key)?.push(e.argumentsDelta);
    else if (e.type === 'tool_call_done') {
      t.equal(deltas.get(key)?.join(''), e.arguments, `deltas of ${key} make its arguments`);
      deltas.delete(key);
    }
  }
  t.same([...deltas.keys()], [], 'every started call is done');
}

function check(t: Test, buf: Buffer, options: EventsStageOptions = {}, quick = false): Ev[] {
  const evs = stable(t, buf, options, { quick });
  invariants(t, evs);
  return evs;
}

const G = { dialect: 'gemini' as const };

// ---------------------------------------------------------------------------
// fixtures

t.test('text with usageMetadata on every chunk: one usage, the last, never summed', (t) => {
  const evs = check(t, fixture('gemini/text-usage-every-chunk.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-1', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Bonjour' },
    { type: 'text_delta', index: 0, text: ' le monde' },
    { type: 'text_delta', index: 0, text: ' — ça va ? 😀' },
    // prompt 120 (100 of them cached) + candidates 9 + thoughts 10; summing would give 27 candidates.
    { type: 'usage', inputTokens: 120, outputTokens: 19, totalTokens: 139, reasoningTokens: 10, cachedInputTokens: 100 },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ]);
  const usage = of(evs, 'usage')[0]!;
  t.same((usage.raw as { candidatesTokenCount: number }).candidatesTokenCount, 9, 'raw is the last usageMetadata');
  t.same(decode(fixture('gemini/text-usage-every-chunk.sse'), G), evs, 'explicit dialect gives the same events');
  t.end();
});

t.test('thought parts, then text, then an empty-text part that carries only the signature', (t) => {
  const evs = check(t, fixture('gemini/thought-empty-signature.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-2', model: 'gemini-3-pro-preview', dialect: 'gemini' },
    { type: 'reasoning_delta', index: 0, text: '**Planning**\n\nI will count.' },
    { type: 'reasoning_delta', index: 0, text: ' Then answer.' },
    { type: 'text_delta', index: 1, text: 'There are 3.' },
    { type: 'signature', index: 1, signature: 'c2lnLWVtcHR5LXRleHQ=', kind: 'thought_signature' },
    { type: 'usage', inputTokens: 12, outputTokens: 46, totalTokens: 58, reasoningTokens: 40, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ]);
  t.end();
});

t.test('functionCall parts with thoughtSignature: whole calls through start/delta/done, synthetic and provider ids', (t) => {
  const evs = check(t, fixture('gemini/function-call-signature.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-3', model: 'gemini-3-pro-preview', dialect: 'gemini' },
    { type: 'tool_call_start', index: 0, id: 'call_0', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '{"city":"Paris","units":"celsius"}' },
    { type: 'tool_call_done', index: 0, id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris","units":"celsius"}' },
    { type: 'signature', index: 0, signature: 'c2lnLWNhbGwtMQ==', kind: 'thought_signature' },
    { type: 'tool_call_start', index: 1, id: 'fc-abc', name: 'get_time' },
    { type: 'tool_call_delta', index: 1, id: 'fc-abc', argumentsDelta: '{"tz":"Europe/Paris"}' },
    { type: 'tool_call_done', index: 1, id: 'fc-abc', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
    { type: 'usage', inputTokens: 29, outputTokens: 212, totalTokens: 241, reasoningTokens: 202, cachedInputTokens: null },
    { type: 'done', stopReason: 'tool_use', providerReason: 'STOP' },
  ]);
  t.end();
});

t.test('MAX_TOKENS', (t) => {
  const evs = check(t, fixture('gemini/max-tokens.sse'));
  t.equal(textOf(evs), 'The sky is blue because of Rayleigh');
  t.same(doneOf(evs), [{ stopReason: 'max_tokens', providerReason: 'MAX_TOKENS' }]);
  t.same(usageOf(evs), [{ inputTokens: 7, outputTokens: 8, totalTokens: 15, reasoningTokens: null, cachedInputTokens: null }]);
  t.end();
});

t.test('SAFETY: refusal, and the safety ratings are kept in a raw', (t) => {
  const evs = check(t, fixture('gemini/safety.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-5', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Here is how' },
    { type: 'raw', keys: 'candidates,usageMetadata,modelVersion,responseId' },
    { type: 'usage', inputTokens: 9, outputTokens: 3, totalTokens: 12, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'refusal', providerReason: 'SAFETY' },
  ]);
  t.end();
});

t.test('promptFeedback.blockReason without candidates: refusal with the block reason', (t) => {
  const evs = check(t, fixture('gemini/prompt-blocked.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-6', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'raw', keys: 'promptFeedback,usageMetadata,modelVersion,responseId' },
    { type: 'usage', inputTokens: 21, outputTokens: null, totalTokens: 21, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'refusal', providerReason: 'PROHIBITED_CONTENT' },
  ]);
  t.end();
});

t.test('an error chunk mid-stream: terminal error with the status, then done(error)', (t) => {
  const evs = check(t, fixture('gemini/error-mid-stream.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-7', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Partial' },
    { type: 'usage', inputTokens: 4, outputTokens: 1, totalTokens: 5, reasoningTokens: null, cachedInputTokens: null },
    { type: 'error', code: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.same((of(evs, 'error')[0]!.raw as { error: { code: number } }).error.code, 503, 'raw keeps the numeric code');
  t.end();
});

t.test('a stream that closes without finishReason: pending usage, then incomplete_stream', (t) => {
  const evs = check(t, fixture('gemini/missing-finish-reason.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-8', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'One' },
    { type: 'text_delta', index: 0, text: ' two' },
    { type: 'usage', inputTokens: 4, outputTokens: 2, totalTokens: 6, reasoningTokens: null, cachedInputTokens: null },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('a [DONE] sentinel (added by a proxy) before finishReason ends the response as incomplete', (t) => {
  const buf = Buffer.concat([fixture('gemini/missing-finish-reason.sse'), Buffer.from('data: [DONE]\r\n\r\n')]);
  const evs = check(t, buf);
  t.same(of(evs, 'error').map((e) => e.code), ['incomplete_stream']);
  t.same(doneOf(evs), [{ stopReason: 'error', providerReason: null }]);
  t.end();
});

t.test('[DONE] before any chunk is raw; a candidate or a payload that is not an object is kept raw', (t) => {
  const alone = decode(Buffer.from('data: [DONE]\r\n\r\n'), { dialect: 'gemini' });
  t.same(alone, [{ type: 'raw', event: '[DONE]' }], 'no response began: the sentinel alone, raw');
  const chunk = (cands: unknown[], finish = false): string =>
    `data: ${JSON.stringify({ candidates: finish ? cands.map((c) => (typeof c === 'object' && c !== null ? { ...c, finishReason: 'STOP' } : c)) : cands, modelVersion: 'gemini-x', responseId: 'r1' })}\r\n\r\n`;
  const part = (text: string): object => ({ content: { role: 'model', parts: [{ text }] } });
  const buf = Buffer.from(chunk([part('Hello')]) + chunk(['not a candidate', { index: 0, ...part(' there') }]) + 'data: 42\r\n\r\n' + chunk([part('.')], true));
  const evs = check(t, buf, { dialect: 'gemini' });
  t.equal(textOf(evs), 'Hello there.', 'the text of the good candidates');
  const raws = of(evs, 'raw').map((e) => e.event);
  t.ok(
    raws.some((r) => typeof r === 'object' && r !== null && !Array.isArray(r) && JSON.stringify(r).includes('not a candidate')),
    'the chunk holding a candidate that is not an object is kept raw',
  );
  t.ok(raws.includes(42), 'a payload that is not an object is raw as received');
  t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  t.end();
});

t.test('JSON-array framing of a two-element response (CRLF inside, "\\n,\\r\\n" between)', (t) => {
  const buf = fixture('gemini/json-array-two-elements.json');
  const evs = check(t, buf);
  t.same(check(t, buf, { framing: 'json-array' }), evs, 'explicit json-array framing gives the same events');
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-9', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Hello' },
    { type: 'text_delta', index: 0, text: ' there.' },
    { type: 'usage', inputTokens: 3, outputTokens: 3, totalTokens: 6, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ]);
  t.end();
});

t.test('two candidates: choice 1 is stamped; one done, each candidate\'s stop in its choices', (t) => {
  const evs = check(t, fixture('gemini/two-candidates.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-10', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Red' },
    { type: 'text_delta', index: 0, text: 'Blue', choice: 1 },
    { type: 'text_delta', index: 0, text: '.' },
    { type: 'text_delta', index: 0, text: ' and green', choice: 1 },
    { type: 'usage', inputTokens: 5, outputTokens: 6, totalTokens: 11, reasoningTokens: null, cachedInputTokens: null },
    {
      type: 'done',
      stopReason: 'end',
      providerReason: 'STOP',
      choices: [
        { choice: 0, stopReason: 'end', providerReason: 'STOP' },
        { choice: 1, stopReason: 'max_tokens', providerReason: 'MAX_TOKENS' },
      ],
    },
  ]);
  t.end();
});

t.test('two candidates cut off: the response ends incomplete, every choice with it', (t) => {
  const text = fixture('gemini/two-candidates.sse').toString('utf8');
  const first = Buffer.from(text.slice(0, text.indexOf('\r\n\r\n') + 4));
  const evs = check(t, first);
  t.same(view(evs).slice(3), [
    { type: 'usage', inputTokens: 5, outputTokens: 2, totalTokens: 7, reasoningTokens: null, cachedInputTokens: null },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    {
      type: 'done',
      stopReason: 'error',
      providerReason: null,
      choices: [
        { choice: 0, stopReason: 'error', providerReason: null },
        { choice: 1, stopReason: 'error', providerReason: null },
      ],
    },
  ]);
  t.end();
});

t.test('Vertex streamed arguments with number/bool/null values, nested containers and the {} terminator', (t) => {
  const evs = check(t, fixture('gemini/partial-args-types.sse'));
  const args = '{"light":{"brightness":50,"on":true,"color":null},"tags":["ab","c"]}';
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-12', model: 'gemini-3.1-pro-preview', dialect: 'gemini' },
    { type: 'tool_call_start', index: 0, id: 'call_0', name: 'configure' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '{"light":{"brightness":50,"on":true' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: ',"color":null},"tags":["a' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: 'b","c"' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: ']}' },
    { type: 'tool_call_done', index: 0, id: 'call_0', name: 'configure', arguments: args },
    { type: 'usage', inputTokens: 10, outputTokens: 20, totalTokens: 30, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'tool_use', providerReason: 'STOP' },
  ]);
  t.end();
});

t.test('Vertex streamed arguments cut off mid-string: onIncomplete closes the call with what was assembled', (t) => {
  const evs = check(t, fixture('gemini/partial-args-cut.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'fx-resp-11', model: 'gemini-3.1-pro-preview', dialect: 'gemini' },
    { type: 'tool_call_start', index: 0, id: 'call_0', name: 'plan' },
    { type: 'signature', index: 0, signature: 'c2lnLXBsYW4=', kind: 'thought_signature' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '{"steps":[{"title":"Pre' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: 'heat \\"oven\\"' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '"}]}' },
    { type: 'tool_call_done', index: 0, id: 'call_0', name: 'plan', arguments: '{"steps":[{"title":"Preheat \\"oven\\""}]}' },
    // No usage: the `{trafficType}`-only usageMetadata has no count.
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('chunks that map to nothing become raw; empty groundingMetadata does not; an image part is a file, citationMetadata a citation', (t) => {
  const lines = [
    '{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0,"groundingMetadata": {}}],"responseId": "r","modelVersion": "m"}',
    '{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 1,"totalTokenCount": 1}}',
    '{"candidates": [{"content": {"parts": [{"inlineData": {"mimeType": "image/png","data": "AAAA"}}],"role": "model"},"index": 0}]}',
    '{"candidates": [{"content": {"parts": [{"text": " there"}],"role": "model"},"index": 0,"citationMetadata": {"citationSources": [{"uri": "https://example.com"}]}}]}',
    '{"candidates": [{"content": {"parts": [{"thoughtSignature": "c2ln"}],"role": "model"},"finishReason": "MALFORMED_FUNCTION_CALL","finishMessage": "bad call","index": 0}]}',
  ];
  const buf = Buffer.from(lines.map((l) => `data: ${l}\r\n\r\n`).join(''));
  const evs = check(t, buf);
  t.same(view(evs), [
    { type: 'start', id: 'r', model: 'm', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'raw', keys: 'candidates,usageMetadata' },
    { type: 'file', index: 1, mimeType: 'image/png', data: 'AAAA' },
    { type: 'text_delta', index: 2, text: ' there' },
    // A signature-only part belongs to the current block.
    { type: 'signature', index: 2, signature: 'c2ln', kind: 'thought_signature' },
    { type: 'raw', keys: 'candidates' },
    // No offsets given: the citation is the first text block's.
    { type: 'citation', index: 0, url: 'https://example.com' },
    { type: 'usage', inputTokens: 1, outputTokens: null, totalTokens: 1, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'other', providerReason: 'MALFORMED_FUNCTION_CALL' },
  ]);
  t.end();
});

t.test('finishReason mapping', (t) => {
  const cases: [string, string][] = [
    ['STOP', 'end'],
    ['MAX_TOKENS', 'max_tokens'],
    ['SAFETY', 'refusal'],
    ['RECITATION', 'refusal'],
    ['BLOCKLIST', 'refusal'],
    ['PROHIBITED_CONTENT', 'refusal'],
    ['SPII', 'refusal'],
    ['IMAGE_SAFETY', 'refusal'],
    ['IMAGE_PROHIBITED_CONTENT', 'refusal'],
    ['IMAGE_RECITATION', 'refusal'],
    ['LANGUAGE', 'other'],
    ['OTHER', 'other'],
    ['UNEXPECTED_TOOL_CALL', 'other'],
    ['FINISH_REASON_UNSPECIFIED', 'other'],
  ];
  for (const [reason, stop] of cases) {
    const evs = decode(Buffer.from(`data: {"candidates": [{"content": {"parts": [{"text": "x"}]},"finishReason": "${reason}"}]}\r\n\r\n`));
    t.same(doneOf(evs), [{ stopReason: stop, providerReason: reason }], reason);
  }
  t.end();
});

t.test('several responses in one input each get their start and done', (t) => {
  const one = fixture('gemini/max-tokens.sse');
  const evs = check(t, Buffer.concat([one, fixture('gemini/function-call-signature.sse')]));
  t.same(of(evs, 'start').map((e) => e.id), ['fx-resp-4', 'fx-resp-3']);
  t.same(doneOf(evs).map((d) => d.stopReason), ['max_tokens', 'tool_use']);
  t.same(usageOf(evs).map((u) => u.totalTokens), [15, 241]);
  t.end();
});

t.test('an error object before anything else, with the dialect given: error and done, no start', (t) => {
  const evs = check(t, Buffer.from('data: {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}\r\n\r\n'), G);
  t.same(evs.map((e) => e.type), ['error', 'done']);
  const err = of(evs, 'error')[0]!;
  // The normalizer reports an error before any response itself (numeric code); the handler would use the status.
  t.ok(err.code === '429' || err.code === 'RESOURCE_EXHAUSTED', `provider code (${err.code})`);
  t.equal(err.message, 'Resource exhausted');
  t.same(doneOf(evs), [{ stopReason: 'error', providerReason: null }]);
  t.end();
});

// ---------------------------------------------------------------------------
// issue 28: provider-executed calls, a STOP that is not the end, citations, files, integer enums

/** An SSE body of these chunks. */
const sseOf = (...chunks: object[]): Buffer => Buffer.from(chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(''));
const fcChunk = (responseId: string | undefined, name: string, args: object, extra: object = {}) => ({
  candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP', index: 0, ...extra }],
  ...(responseId === undefined ? {} : { responseId }),
  modelVersion: 'gemini-2.5-flash',
});
const textChunk = (responseId: string | undefined, text: string, finish?: string) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish === undefined ? {} : { finishReason: finish }) }],
  ...(responseId === undefined ? {} : { responseId }),
  modelVersion: 'gemini-2.5-flash',
});
const frChunk = (responseId: string, fr: object) => ({
  candidates: [{ content: { role: 'model', parts: [{ functionResponse: fr }] }, index: 0 }],
  responseId,
  modelVersion: 'gemini-2.5-flash',
});
const framesOf = (evs: Ev[], type: Ev['type']) => evs.filter((e) => e.type === type).map((e) => e.at?.frame);

t.test('server-side MCP: the call waits for the next chunk, the done for the end of the input', (t) => {
  const buf = corpusFile('gemini-sse/js-genai--server-side-mcp.sse');
  const evs = decode(buf, { positions: true });
  // Frames: 0 functionCall + STOP, 1 functionResponse, 2 text, 3 text + STOP.
  t.same(framesOf(evs, 'tool_call_start'), [1], 'the call goes out with the functionResponse that makes it the server\'s');
  t.same(framesOf(evs, 'tool_result'), [1]);
  t.same(framesOf(evs, 'done'), [3], 'held at the second STOP, emitted at the end of the input');
  t.same(evs.filter((e) => e.type === 'start').length, 1);
  t.end();
});

t.test('a plain text response is not held: its done comes with its STOP chunk', (t) => {
  const evs = decode(corpusFile('gemini-sse/pydantic-ai--text-basic.sse'), { positions: true });
  const lastFrame = Math.max(...evs.map((e) => e.at?.frame ?? -1));
  t.same(framesOf(evs, 'done'), [lastFrame]);
  // Two responses in a row, the first ending in text: its done before the second's start.
  const two = decode(Buffer.concat([fixture('gemini/max-tokens.sse'), corpusFile('gemini-sse/js-genai--server-side-mcp.sse')]));
  t.same(two.filter((e) => e.type === 'start' || e.type === 'done').map((e) => e.type), ['start', 'done', 'start', 'done']);
  t.end();
});

t.test('a client functionCall with STOP: held until the end, then the client\'s (tool_use)', (t) => {
  const evs = check(t, corpusFile('gemini-sse/pydantic-ai--function-calls.sse'));
  t.same(
    evs.filter((e) => e.type.startsWith('tool_call')).map((e) => 'providerExecuted' in e),
    [false, false, false],
  );
  t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
  t.same(finalsOf(evs)[0]!.toolCalls, [{ id: 'call_0', name: 'get_capital', arguments: { country: 'France' } }]);
  t.end();
});

t.test('a held done ends when the next payload has another responseId: the call was the client\'s', (t) => {
  const buf = sseOf(fcChunk('r1', 'get_weather', { city: 'Paris' }), textChunk('r2', 'Hi', 'STOP'));
  const evs = check(t, buf);
  t.same(view(evs), [
    { type: 'start', id: 'r1', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'tool_call_start', index: 0, id: 'call_0', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '{"city":"Paris"}' },
    { type: 'tool_call_done', index: 0, id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'done', stopReason: 'tool_use', providerReason: 'STOP' },
    { type: 'start', id: 'r2', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ]);
  const finals = finalsOf(evs);
  t.same(finals.map((f) => f.toolCalls.length), [1, 0]);
  t.end();
});

t.test('without a responseId a STOP ends the response, as before (nothing can say the next chunk continues it)', (t) => {
  const buf = sseOf(fcChunk(undefined, 'get_weather', { city: 'Paris' }), textChunk(undefined, 'Hi', 'STOP'));
  const evs = check(t, buf);
  t.same(doneOf(evs), [
    { stopReason: 'tool_use', providerReason: 'STOP' },
    { stopReason: 'end', providerReason: 'STOP' },
  ]);
  const at = decode(buf, { positions: true });
  t.same(framesOf(at, 'done'), [0, 1], 'the first done comes with its own chunk');
  t.end();
});

t.test('a held done, then a [DONE] from a proxy: done, then the sentinel as raw', (t) => {
  const buf = Buffer.concat([sseOf(fcChunk('r1', 'get_weather', {})), Buffer.from('data: [DONE]\r\n\r\n')]);
  const evs = stable(t, buf);
  t.same(evs.slice(-2).map((e) => (e.type === 'raw' ? e.event : e.type)), ['done', '[DONE]']);
  t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
  t.end();
});

t.test('two server-side MCP turns in one log: two responses, each one start and one done', (t) => {
  const buf = Buffer.concat([corpusFile('gemini-sse/js-genai--server-side-mcp-chat-turn1.sse'), corpusFile('gemini-sse/js-genai--server-side-mcp-chat-turn2.sse')]);
  const evs = check(t, buf, {}, true);
  t.same(of(evs, 'start').map((e) => e.id), ['OmuSafudI6atjrEPnv_wsA4', 'PmuSafLFBeCsjrEPiOG92QU']);
  t.same(doneOf(evs), [
    { stopReason: 'end', providerReason: 'STOP' },
    { stopReason: 'end', providerReason: 'STOP' },
  ]);
  t.same(usageOf(evs).map((u) => u.totalTokens), [913, 4301]);
  const finals = finalsOf(evs);
  t.same(finals.map((f) => f.content.map((b) => b.type)), [
    ['tool_call', 'tool_result', 'text'],
    ['tool_call', 'tool_result', 'text'],
  ]);
  t.same(finals.map((f) => f.toolCalls), [[], []]);
  t.end();
});

t.test('functionResponse pairing: by id first, then by name; an MCP isError is the result\'s', (t) => {
  const mcpError = { call_tool_result_json: JSON.stringify({ content: [{ type: 'text', text: 'boom' }], isError: true }) };
  const buf = sseOf(
    {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { id: 'a', name: 'lookup', args: { q: 1 } } }, { functionCall: { id: 'b', name: 'lookup', args: { q: 2 } } }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      responseId: 'r1',
    },
    frChunk('r1', { id: 'b', name: 'lookup', response: { output: 2 } }),
    frChunk('r1', { name: 'lookup', response: mcpError }),
    textChunk('r1', 'Done.', 'STOP'),
  );
  const evs = check(t, buf);
  t.same(hosted(evs), [
    'tool_start 1 b lookup provider',
    'tool_delta 1 b {"q":2} provider',
    'tool_done 1 b lookup {"q":2} provider',
    'tool_result 2 b lookup',
    'tool_start 0 a lookup provider',
    'tool_delta 0 a {"q":1} provider',
    'tool_done 0 a lookup {"q":1} provider',
    'tool_result 3 a lookup error',
  ]);
  t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  t.equal(of(evs, 'start').length, 1);
  t.end();
});

t.test('code execution: a result pairs by id, else with the last code call still without one; synthetic ids', (t) => {
  const code = (id: string | undefined, src: string) => ({ executableCode: { language: 'PYTHON', code: src, ...(id ? { id } : {}) } });
  const result = (id: string | undefined, outcome: string | number, output: string) => ({ codeExecutionResult: { outcome, output, ...(id ? { id } : {}) } });
  const buf = sseOf(
    { candidates: [{ content: { role: 'model', parts: [code(undefined, 'print(1)'), result(undefined, 'OUTCOME_OK', '1\n')] }, index: 0 }], responseId: 'r' },
    { candidates: [{ content: { role: 'model', parts: [code('x', 'print(2)'), code('y', 'sleep()')] }, index: 0 }], responseId: 'r' },
    { candidates: [{ content: { role: 'model', parts: [result('x', 'OUTCOME_OK', '2\n'), result(undefined, 'OUTCOME_DEADLINE_EXCEEDED', '')] }, index: 0 }], responseId: 'r' },
    textChunk('r', 'ok', 'STOP'),
  );
  const evs = check(t, buf);
  t.same(
    hosted(evs).filter((l) => !l.startsWith('tool_delta')),
    [
      'tool_start 0 code_0 code_execution provider',
      'tool_done 0 code_0 code_execution {"language":"PYTHON","code":"print(1)"} provider',
      'tool_result 1 code_0 code_execution',
      'tool_start 2 x code_execution provider',
      'tool_done 2 x code_execution {"language":"PYTHON","code":"print(2)"} provider',
      'tool_start 3 y code_execution provider',
      'tool_done 3 y code_execution {"language":"PYTHON","code":"sleep()"} provider',
      'tool_result 4 x code_execution',
      'tool_result 5 y code_execution error',
    ],
  );
  t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  t.end();
});

t.test('Vertex enum-encoding=int: language, outcome, finishReason and harm enums are numbers', (t) => {
  const evs = check(t, fixture('gemini/vertex-int-enums.sse'));
  const args = '{"language":"PYTHON","code":"print(1/0)"}';
  t.same(view(evs), [
    { type: 'start', id: 'vx-int-1', model: 'gemini-2.5-flash', dialect: 'gemini' },
    { type: 'tool_call_start', index: 0, id: 'code_0', name: 'code_execution', providerExecuted: true },
    { type: 'tool_call_delta', index: 0, id: 'code_0', argumentsDelta: args, providerExecuted: true },
    { type: 'tool_call_done', index: 0, id: 'code_0', name: 'code_execution', arguments: args, providerExecuted: true },
    // outcome 2 = OUTCOME_FAILED; the result stays as received.
    { type: 'tool_result', index: 1, id: 'code_0', name: 'code_execution', result: { outcome: 2, output: 'ZeroDivisionError: division by zero' }, isError: true },
    { type: 'text_delta', index: 2, text: 'Dividing by zero fails.' },
    // the safety ratings (integer categories and probabilities) are kept as received
    { type: 'raw', keys: 'candidates,usageMetadata,modelVersion,createTime,responseId' },
    { type: 'usage', inputTokens: 12, outputTokens: 20, totalTokens: 32, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ]);
  const blocked = check(t, fixture('gemini/vertex-int-prompt-blocked.sse'));
  t.same(doneOf(blocked), [{ stopReason: 'refusal', providerReason: 'PROHIBITED_CONTENT' }], 'blockReason 4');
  const cases: [number, string, string][] = [
    [1, 'end', 'STOP'],
    [2, 'max_tokens', 'MAX_TOKENS'],
    [3, 'refusal', 'SAFETY'],
    [4, 'refusal', 'RECITATION'],
    [5, 'other', 'OTHER'],
    [8, 'refusal', 'SPII'],
    [9, 'other', 'MALFORMED_FUNCTION_CALL'],
    [11, 'refusal', 'IMAGE_SAFETY'],
    [15, 'other', 'UNEXPECTED_TOOL_CALL'],
    [99, 'other', '99'],
  ];
  for (const [reason, stop, name] of cases) {
    const evs = decode(Buffer.from(`data: {"candidates": [{"content": {"parts": [{"text": "x"}]},"finishReason": ${reason}}]}\r\n\r\n`));
    t.same(doneOf(evs), [{ stopReason: stop, providerReason: name }], `finishReason ${reason}`);
  }
  t.end();
});

t.test('groundingMetadata repeated and growing: each citation once, byte offsets as UTF-16 ones, an uncited chunk without offsets', (t) => {
  const evs = check(t, fixture('gemini/grounding-repeated.sse'));
  const text = textOf(evs);
  t.equal(text, 'Le café coûte 2 €. Ouvert dès 7 h 😀.');
  t.same(view(of(evs, 'citation')), [
    { type: 'citation', index: 0, url: 'https://example.com/cafe', title: 'example.com', start: 0, end: 18 },
    { type: 'citation', index: 0, url: 'https://example.org/horaires', title: 'example.org', start: 19, end: 37 },
    { type: 'citation', index: 0, url: 'https://example.com/cafe', title: 'example.com', start: 19, end: 37 },
    { type: 'citation', index: 0, title: 'Carte 2026', source: 'corpora/menus/documents/carte-2026', citedText: 'Café : 2 €' },
  ]);
  t.equal(text.slice(0, 18), 'Le café coûte 2 €.');
  t.equal(text.slice(19, 37), 'Ouvert dès 7 h 😀.');
  t.same(finalsOf(evs)[0]!.citations.length, 4, 'in the final');
  t.end();
});

t.test('citation offsets that do not match the text are left out; Vertex citationMetadata.citations; a second text block', (t) => {
  const buf = sseOf(
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Intro. ' }] }, index: 0 }], responseId: 'r' },
    { candidates: [{ content: { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'x' } }] }, index: 0 }], responseId: 'r' },
    {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Über alles.' }] },
          finishReason: 'STOP',
          index: 0,
          citationMetadata: { citations: [{ startIndex: 7, endIndex: 19, uri: 'https://example.com/u', license: 'mit' }] },
          groundingMetadata: {
            groundingChunks: [{ web: { uri: 'https://example.com/w', title: 'w' } }, { maps: { placeId: 'places/1', title: 'Cafe' } }],
            groundingSupports: [
              { segment: { startIndex: 0, endIndex: 6, text: 'Wrong.' }, groundingChunkIndices: [0] },
              { segment: { startIndex: 0, endIndex: 6, text: 'Intro.' }, groundingChunkIndices: [1] },
            ],
          },
        },
      ],
      responseId: 'r',
    },
  );
  const evs = check(t, buf);
  t.same(view(of(evs, 'citation')), [
    // 'Über alles.' is bytes 7-19 of the answer text ('Intro. ' + 'Über alles.'): block 2 from 0, in UTF-16 units.
    { type: 'citation', index: 2, url: 'https://example.com/u', start: 0, end: 11 },
    { type: 'citation', index: 0, url: 'https://example.com/w', title: 'w' },
    { type: 'citation', index: 0, title: 'Cafe', source: 'places/1', start: 0, end: 6 },
  ]);
  t.end();
});

t.test('inlineData: an image part is a file event and a final content block; audio parts are audio deltas', (t) => {
  const evs = check(t, fixture('gemini/inline-image.sse'));
  t.same(hosted(evs), ['file 1 image/png 96']);
  const [final] = finalsOf(evs);
  t.same(final!.content.map((b) => b.type), ['text', 'file']);
  t.match(final!.content[1], { type: 'file', mimeType: 'image/png', data: /^iVBORw0KGgo/ });
  const audio = sseOf(
    { candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: 'AAAA' } }] }, index: 0 }], responseId: 'a' },
    { candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: 'BBBB' } }] }, finishReason: 'STOP', index: 0 }], responseId: 'a' },
  );
  const aev = check(t, audio);
  t.same(of(aev, 'audio_delta').map((e) => `${e.index} ${e.data}`), ['0 AAAA', '0 BBBB'], 'one audio block');
  t.equal(of(aev, 'raw').length, 0);
  t.end();
});

t.test('streaming TTS: inlineData audio/L16 chunks are one audio block, the MIME type and its rate kept', (t) => {
  // fixtures/gemini/tts-l16-stream.sse is hand-written (its note says from what).
  const evs = check(t, fixture('gemini/tts-l16-stream.sse'));
  const audio = of(evs, 'audio_delta');
  t.same(audio.map((e) => [e.index, e.mimeType, Buffer.from(e.data, 'base64').length]), [
    [0, 'audio/L16;codec=pcm;rate=24000', 2400],
    [0, 'audio/L16;codec=pcm;rate=24000', 2400],
    [0, 'audio/L16;codec=pcm;rate=24000', 1200],
  ]);
  t.equal(of(evs, 'raw').length, 0);
  t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  const [final] = finalsOf(evs);
  t.same(final!.audio, { mimeType: 'audio/L16;codec=pcm;rate=24000', sampleRate: 24000, bytes: 6000 });
  t.equal(final!.audio!.bytes, audio.reduce((n, e) => n + base64DecodedBytes(e.data), 0));
  t.same(final!.content, [], 'audio is no content block');
  t.same(final!.usage, { inputTokens: 9, outputTokens: 19, totalTokens: 28, reasoningTokens: null, cachedInputTokens: null });
  t.end();
});

t.test('a 1.3 MB inlineData part: one file event holding the whole base64 string, in SSE and in the JSON array', (t) => {
  const data = Buffer.alloc(1_000_000, 7).toString('base64');
  t.ok(data.length > 1_300_000);
  const chunk = { candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/jpeg', data } }] }, finishReason: 'STOP', index: 0 }], responseId: 'big' };
  for (const buf of [sseOf(chunk), Buffer.from(`[${JSON.stringify(chunk)}]`)]) {
    const evs = decode(buf);
    const files = of(evs, 'file');
    t.equal(files.length, 1);
    t.equal(files[0]!.data, data);
    const [final] = finalsOf(evs);
    t.equal((final!.content[0] as { data: string }).data, data);
  }
  t.end();
});

t.test('TextLedger: UTF-8 byte offsets into decoded text and wire bytes (latin1 view, escapes undecoded), per block', (t) => {
  const ledger = new TextLedger();
  ledger.add(0, 'Ça ', false);
  // 'coûte\n"€"' as wire bytes: û and € as UTF-8 bytes, one character each; \n and \" undecoded
  ledger.add(0, Buffer.from('co\u00fbte\\n\\"\u20ac\\"', 'utf8').toString('latin1'), true);
  ledger.add(2, '😀 ok', false);
  // text: 'Ça coûte\n"€"' (12 UTF-16 units, 16 bytes) then '😀 ok' (block 2: 5 units, 7 bytes)
  const map = ledger.utf16([0, 1, 2, 4, 16, 18, 20, 21, 23]);
  t.same([...map.entries()].sort((a, b) => a[0] - b[0]), [
    [0, 0],
    [2, 1],
    [4, 3],
    [16, 12],
    [20, 14],
    [21, 15],
    [23, 17],
  ], 'offsets inside a character (1 in Ç, 18 in 😀) are left out');
  t.same(ledger.span(3, 12, 'coûte\n"€"'), { index: 0, start: 3, end: 12 });
  t.same(ledger.span(12, 17, '😀 ok'), { index: 2, start: 0, end: 5 });
  t.equal(ledger.span(3, 12, 'wrong'), null, 'a quote that is not the text there');
  t.equal(ledger.span(10, 15, undefined), null, 'a range over two blocks');
  t.equal(ledger.firstBlock(), 0);
  t.end();
});

t.test('citation offsets after many non-ASCII deltas that the fused final took as wire bytes: fast path on = off', (t) => {
  const parts = Array.from({ length: 200 }, (_, i) => `Ça coûte ${i} € 😀 "q"\n`);
  const text = parts.join('');
  const last = parts[199]!;
  const chunk = (d: string, i: number) => ({
    candidates: [
      {
        content: { role: 'model', parts: [{ text: d }] },
        index: 0,
        ...(i === 199
          ? {
              finishReason: 'STOP',
              groundingMetadata: {
                groundingChunks: [{ web: { uri: 'https://example.com/x', title: 'x' } }],
                groundingSupports: [{ segment: { startIndex: Buffer.byteLength(text) - Buffer.byteLength(last), endIndex: Buffer.byteLength(text), text: last }, groundingChunkIndices: [0] }],
              },
            }
          : {}),
      },
    ],
    usageMetadata: { promptTokenCount: 1, totalTokenCount: 2 + i },
    responseId: 'r',
  });
  const buf = sseOf(...parts.map(chunk));
  const slices = [buf.subarray(0, 40000), buf.subarray(40000)];
  const on = runFused(slices, { dialect: 'gemini' }, 'final', false, true) as FinalResult[];
  t.strictSame(on, runFused(slices, { dialect: 'gemini' }, 'final', false, false), 'same finals');
  const [cite] = on[0]!.citations;
  t.equal(on[0]!.text.slice(cite!.start, cite!.end), last, 'the cited range is the last delta');
  t.equal(cite!.start, text.length - last.length);
  t.end();
});

// ---------------------------------------------------------------------------
// partialArgs assembly, unit level

t.test('parseJsonPath', (t) => {
  t.same(parseJsonPath('$.a.b[0].c'), ['a', 'b', 0, 'c']);
  t.same(parseJsonPath('$.operations[12].price'), ['operations', 12, 'price']);
  t.same(parseJsonPath("$['odd key'].x"), ['odd key', 'x']);
  t.same(parseJsonPath('$[0]'), [0]);
  t.equal(parseJsonPath('a.b'), null);
  t.equal(parseJsonPath('$'), null);
  t.equal(parseJsonPath('$.a[x]'), null);
  t.equal(parseJsonPath('$..a'), null);
  t.end();
});

t.test('PartialArgsAssembler: out-of-order paths keep exact arguments and stop streaming deltas', (t) => {
  const a = new PartialArgsAssembler();
  const d1 = a.apply([{ jsonPath: '$.a.x', numberValue: 1 }, { jsonPath: '$.b', stringValue: 'B' }]);
  t.equal(d1, '{"a":{"x":1},"b":"B"');
  // Revisiting the closed container `a` cannot be written as a continuation of the text.
  t.equal(a.apply([{ jsonPath: '$.a.y', boolValue: false }]), '');
  t.equal(a.apply([{ jsonPath: '$.c', nullValue: 'NULL_VALUE' }]), '');
  t.same(a.finish(), { args: '{"a":{"x":1,"y":false},"b":"B","c":null}', rest: null });
  t.end();
});

t.test('PartialArgsAssembler: a skipped array slot or an integer-like key switches streaming off', (t) => {
  const gap = new PartialArgsAssembler();
  t.equal(gap.apply([{ jsonPath: '$.l[1]', numberValue: 2 }]), '');
  t.same(gap.finish(), { args: '{"l":[null,2]}', rest: null });
  const intKey = new PartialArgsAssembler();
  t.equal(intKey.apply([{ jsonPath: '$.b', numberValue: 1 }]), '{"b":1');
  t.equal(intKey.apply([{ jsonPath: '$.7', numberValue: 2 }]), '');
  t.same(intKey.finish(), { args: '{"7":2,"b":1}', rest: null });
  t.end();
});

t.test('PartialArgsAssembler: __proto__ is an ordinary key, escapes survive string continuation', (t) => {
  const a = new PartialArgsAssembler();
  const parts = [
    a.apply([{ jsonPath: '$.__proto__', stringValue: 'p' }]),
    a.apply([{ jsonPath: '$.s', stringValue: 'line\n"q', willContinue: true }]),
    a.apply([{ jsonPath: '$.s', stringValue: '\\end', willContinue: true }]),
  ];
  const { args, rest } = a.finish();
  t.equal(args, '{"__proto__":"p","s":"line\\n\\"q\\\\end"}');
  t.equal(parts.join('') + rest, args);
  t.same(JSON.parse(args), JSON.parse('{"__proto__":"p","s":"line\\n\\"q\\\\end"}'));
  t.end();
});

t.test('PartialArgsAssembler: a call with no partialArgs at all has arguments {}', (t) => {
  t.same(new PartialArgsAssembler().finish(), { args: '{}', rest: '{}' });
  t.end();
});

// ---------------------------------------------------------------------------
// corpus

type FileCheck = (t: Test, evs: Ev[]) => void;

const nestedRecipe = {
  recipe: {
    ingredients: [
      { amount: '16 oz', name: 'Lasagna noodles' },
      { amount: '1 lb', name: 'Ground beef' },
      { amount: '15 oz', name: 'Ricotta cheese' },
      { amount: '3 cups', name: 'Mozzarella cheese' },
      { amount: '1/2 cup', name: 'Parmesan cheese' },
      { amount: '24 oz', name: 'Tomato sauce' },
      { amount: '1', name: 'Egg' },
      { amount: '2 cloves', name: 'Garlic' },
      { amount: '1 tsp', name: 'Salt' },
      { amount: '1/2 tsp', name: 'Pepper' },
    ],
    name: 'Lasagna',
    steps: [
      'Preheat oven to 375°F (190°C).',
      'Cook lasagna noodles according to package directions, drain and set aside.',
      'Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.',
      'In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.',
      'In a 9x13 baking dish, spread a thin layer of meat sauce.',
      'Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.',
      'Top with remaining mozzarella cheese.',
      'Cover with foil and bake for 25 minutes.',
      'Remove foil and bake for another 25 minutes until golden.',
      'Let stand for 15 minutes before serving.',
    ],
  },
};

const usage = (inputTokens: number | null, outputTokens: number | null, totalTokens: number | null, reasoningTokens: number | null) => [
  { inputTokens, outputTokens, totalTokens, reasoningTokens, cachedInputTokens: null },
];

const rawPayloads = (evs: Ev[]): Json[] => of(evs, 'raw').map((e) => e.event);


const corpusChecks: Record<string, FileCheck> = {
  'gemini-sse/crewai--http400-not-sse.body': (t, evs) => {
    t.same(evs.map((e) => e.type), ['error', 'done']);
    const err = of(evs, 'error')[0]!;
    t.ok(err.code === '400' || err.code === 'INVALID_ARGUMENT', `provider code (${err.code})`);
    t.equal(err.message, 'API key not valid. Please pass a valid API key.');
    t.equal(err.terminal, true);
    t.same(doneOf(evs), [{ stopReason: 'error', providerReason: null }]);
  },
  'gemini-sse/mirascope--http404-not-sse.body': (t, evs) => {
    t.same(evs.map((e) => e.type), ['error', 'done']);
    const err = of(evs, 'error')[0]!;
    t.ok(err.code === '404' || err.code === 'NOT_FOUND', `provider code (${err.code})`);
    t.match(err.message, /^models\/this-model-does-not-exist-12345 is not found for API version v1beta/);
  },
  'gemini-sse/crewai--parallel-function-calls.sse': (t, evs) => {
    t.same(calls(evs), [
      { name: 'get_current_temperature', arguments: '{"city":"Paris"}' },
      { name: 'get_current_temperature', arguments: '{"city":"London"}' },
    ]);
    const ids = of(evs, 'tool_call_start').map((e) => e.id);
    t.equal(new Set(ids).size, 2, 'parallel calls get distinct ids');
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(37, 14, 51, null));
  },
  'gemini-sse/js-genai--image-output.sse': (t, evs) => {
    // Image output: text, then one 1.3 MB event holding the PNG, then STOP with IMAGE token details.
    t.equal(textOf(evs), 'I will generate an image of the Eiffel Tower at night, with a vibrant and colorful fireworks display exploding behind it, illuminating the sky.\n\n');
    const files = of(evs, 'file');
    t.equal(files.length, 1);
    t.equal(files[0]!.mimeType, 'image/png');
    const png = Buffer.from(files[0]!.data, 'base64');
    t.equal(png.length, base64DecodedBytes(files[0]!.data), 'the decoded size is what the base64 length says');
    t.equal(png.length, 990040, '1320056 base64 characters, two of them padding');
    t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
    t.same([png.readUInt32BE(16), png.readUInt32BE(20)], [510, 1024], 'IHDR: 510 x 1024');
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(15, 1318, 1333, null));
    const [final] = finalsOf(evs);
    t.same(final!.content.map((b) => b.type), ['text', 'file']);
    t.equal((final!.content[1] as { data: string }).data, files[0]!.data, 'the completed image once in the final');
  },
  'gemini-sse/js-genai--max-tokens.sse': (t, evs) => {
    t.match(textOf(evs), /^The sky is blue primarily due to a phenomenon called \*\*Rayleigh Scattering\*\*\./);
    t.match(textOf(evs), /collides with these gas molecules and particles\.$/);
    t.same(doneOf(evs), [{ stopReason: 'max_tokens', providerReason: 'MAX_TOKENS' }]);
    t.same(usageOf(evs), usage(7, 153 + 45, 205, 45));
    t.equal(of(evs, 'raw').length, 0, 'the undocumented turnToken is not raw noise');
  },
  'gemini-sse/js-genai--server-side-mcp.sse': (t, evs) => {
    const args = '{"endDate":"2026-02-02","location":"New York","startDate":"2026-02-02"}';
    t.same(view(evs.filter((e) => e.type !== 'text_delta')), [
      { type: 'start', id: 'QGiSafzoFOuRjrEPw4nssAI', model: 'gemini-2.5-flash', dialect: 'gemini' },
      // finishMessage "Model generated function call(s)." keeps the first chunk raw.
      { type: 'raw', keys: 'candidates,modelVersion,responseId,turnToken,usageMetadata' },
      { type: 'tool_call_start', index: 0, id: 'call_0', name: 'weather_server_get_weather', providerExecuted: true },
      { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: args, providerExecuted: true },
      { type: 'tool_call_done', index: 0, id: 'call_0', name: 'weather_server_get_weather', arguments: args, providerExecuted: true },
      { type: 'tool_result', index: 1, id: 'call_0', name: 'weather_server_get_weather', result: mcpResult(evs) },
      // One usage: the last, cumulative one (summing the two STOPs' would count 674 output tokens twice).
      { type: 'usage', inputTokens: 22 + 124, outputTokens: 101 + 573, totalTokens: 820, reasoningTokens: 573, cachedInputTokens: null },
      { type: 'done', stopReason: 'end', providerReason: 'STOP' },
    ]);
    t.match((mcpResult(evs) as { result: string }).result, /^\{"2026-02-02T00:00":"-8\.4°C"/);
    t.equal(textOf(evs), 'On February 2nd, 2026, the weather in New York will range from a low of -13°C at 8:00 AM to a high of 0.9°C at 7:00 PM.');
    t.same([...new Set(of(evs, 'text_delta').map((e) => e.index))], [2]);
    const finals = finalsOf(evs);
    t.equal(finals.length, 1, 'one response');
    t.same(finals[0]!.toolCalls, [], 'the server ran the call: nothing for the client');
    t.same(finals[0]!.content.map((b) => b.type), ['tool_call', 'tool_result', 'text']);
  },
  'gemini-sse/js-genai--server-side-mcp-chat-turn1.sse': (t, evs) => {
    t.same(hosted(evs), [
      'tool_start 0 call_0 weather_server_get_weather provider',
      'tool_delta 0 call_0 {"endDate":"2026-02-02","location":"San Francisco","startDate":"2026-02-02"} provider',
      'tool_done 0 call_0 weather_server_get_weather {"endDate":"2026-02-02","location":"San Francisco","startDate":"2026-02-02"} provider',
      'tool_result 1 call_0 weather_server_get_weather',
    ]);
    t.match(textOf(evs), /^Here's the hourly weather forecast for San Francisco on February 2nd, 2026:\n\n\* 00:00: 18\.2°C\n/);
    t.match(textOf(evs), /\* 23:00: 20\.3°C$/);
    t.same(of(evs, 'start').length, 1);
    t.same(usageOf(evs), usage(21 + 234, 445 + 213, 913, 213));
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  },
  'gemini-sse/js-genai--server-side-mcp-chat-turn2.sse': (t, evs) => {
    t.same(hosted(evs), [
      'tool_start 0 call_0 weather_server_get_weather provider',
      'tool_delta 0 call_0 {"endDate":"2026-02-02","location":"Boston","startDate":"2026-02-02"} provider',
      'tool_done 0 call_0 weather_server_get_weather {"endDate":"2026-02-02","location":"Boston","startDate":"2026-02-02"} provider',
      'tool_result 1 call_0 weather_server_get_weather',
    ]);
    t.match(textOf(evs), /^Here's the hourly weather forecast for Boston on February 2nd, 2026:/);
    t.same(usageOf(evs), [{ inputTokens: 1844 + 1934, outputTokens: 432 + 91, totalTokens: 4301, reasoningTokens: 91, cachedInputTokens: 901 }]);
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  },
  'gemini-sse/js-genai--vertex-max-tokens.sse': (t, evs) => {
    t.equal(textOf(evs), "The sky is blue due to a phenomenon called **Rayleigh scattering**. Here's a breakdown:");
    t.same(doneOf(evs), [{ stopReason: 'max_tokens', providerReason: 'MAX_TOKENS' }]);
    t.same(usageOf(evs), usage(6, 20, 26, null));
  },
  'gemini-sse/pydantic-ai--after-function-response.sse': (t, evs) => {
    t.equal(textOf(evs), 'The capital of Mexico is Mexico City.');
    t.same(usageOf(evs), usage(257, 8, 265, null), 'the last usageMetadata wins (prompt 257, not 55)');
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
    t.equal(of(evs, 'raw').length, 0);
  },
  'gemini-sse/pydantic-ai--code-execution.sse': (t, evs) => {
    const args = JSON.stringify({ language: 'PYTHON', code: 'result = 65465 - 6544 * 65464 - 6 + 1.02255\nprint(result)' });
    t.same(hosted(evs), [
      'tool_start 0 8xju7mua code_execution provider',
      `tool_delta 0 8xju7mua ${args} provider`,
      `tool_done 0 8xju7mua code_execution ${args} provider`,
      'tool_result 1 8xju7mua code_execution',
    ]);
    t.same(of(evs, 'tool_result')[0]!.result, { outcome: 'OUTCOME_OK', output: '-428330955.97745\n', id: '8xju7mua' }, 'the result as received');
    t.equal(of(evs, 'raw').length, 0, 'nothing is left raw');
    t.equal(textOf(evs), 'The result of $65465 - 6544 \\times 65464 - 6 + 1.02255$ is **-428,330,955.97745**.');
    t.same([...new Set(of(evs, 'text_delta').map((e) => e.index))], [2]);
    t.same(of(evs, 'signature').map((s) => s.index), [0, 2], 'signatures of the executableCode block and of the text');
    t.same(usageOf(evs), usage(147 + 360, 108 + 168, 783, 168));
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }], 'only a provider-executed call: end, not tool_use');
    const [final] = finalsOf(evs);
    t.same(final!.toolCalls, [], 'the client has nothing to run');
    t.same(final!.content.map((b) => b.type), ['tool_call', 'tool_result', 'text']);
  },
  'gemini-sse/pydantic-ai--file-search-grounding.sse': (t, evs) => {
    t.match(textOf(evs), /^The capital of France is \*\*Paris\*\*\./);
    t.match(textOf(evs), /in the northern part of the country\.$/);
    const store = 'fileSearchStores/testfilesearchgroundingstre-p2hcv3cs2i69';
    t.same(hosted(evs), [
      'tool_start 0 tju3qkc9 file_search provider',
      'tool_delta 0 tju3qkc9 {} provider',
      'tool_done 0 tju3qkc9 file_search {} provider',
      'tool_result 1 tju3qkc9 file_search',
      `citation 2 ${store} 0-35`,
    ]);
    t.equal(of(evs, 'tool_result')[0]!.result, null, 'the toolResponse has no response');
    const [cite] = of(evs, 'citation');
    t.equal(cite!.citedText, 'Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris.\n', 'the retrieved passage');
    t.equal(cite!.url, undefined);
    t.equal(textOf(evs).slice(cite!.start, cite!.end), 'The capital of France is **Paris**.');
    t.equal(of(evs, 'raw').length, 0, 'nothing is left raw');
    t.same(of(evs, 'signature').map((s) => s.index), [0, 1, 2]);
    t.same(usageOf(evs), usage(427 + 771, 122 + 447, 1767, 447));
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  },
  'gemini-sse/pydantic-ai--function-call-thought-signature.sse': (t, evs) => {
    t.same(calls(evs), [{ name: 'get_country', arguments: '{}' }]);
    const sig = of(evs, 'signature');
    t.equal(sig.length, 1);
    t.equal(sig[0]!.index, of(evs, 'tool_call_start')[0]!.index, 'signature on the functionCall block');
    t.equal(sig[0]!.signature.length, 1408);
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(29, 212, 241, 202));
  },
  'gemini-sse/pydantic-ai--function-calls.sse': (t, evs) => {
    t.same(calls(evs), [{ name: 'get_capital', arguments: '{"country":"France"}' }]);
    t.equal(of(evs, 'signature').length, 0);
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(52, 5, 57, null));
  },
  'gemini-sse/pydantic-ai--google-search-grounding.sse': (t, evs) => {
    const text = textOf(evs);
    t.match(text, /^### Weather in San Francisco is Mild and Partly Cloudy Today/);
    t.match(text, /The chance of rain remains low throughout the day\.$/);
    const raws = rawPayloads(evs);
    t.equal(raws.length, 1, 'only the chunk with the search entry point and queries is raw');
    t.match(JSON.stringify(raws[0]), /"webSearchQueries":\["weather in San Francisco today"\]/);
    const cites = of(evs, 'citation');
    // 8 supports, one of them citing two chunks; every chunk is cited by some support.
    t.same(
      cites.map((c) => `${c.title} ${c.start}-${c.end}`),
      [
        'Weather information for San Francisco, CA, US 235-371',
        'timeanddate.com 372-439',
        'Weather information for San Francisco, CA, US 440-494',
        'weather.gov 496-612',
        'wunderground.com 613-666',
        'weather.gov 667-747',
        'accuweather.com 749-875',
        'timeanddate.com 749-875',
        'Weather information for San Francisco, CA, US 876-926',
      ],
      'UTF-8 byte offsets (235-375: four ° before the end) become UTF-16 ones',
    );
    for (const c of cites) {
      const segment = (c.raw as { groundingSupport: { segment: { text: string } } }).groundingSupport.segment;
      t.equal(text.slice(c.start, c.end), segment.text, `the cited range is the support's text (${c.start})`);
      t.equal(c.index, 0);
    }
    t.equal(cites[0]!.url, 'https://www.google.com/search?q=weather+in+San Francisco, CA,+US');
    t.match(cites[1]!.url!, /^https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\//);
    t.same(usageOf(evs), usage(17 + 102, 241 + 412, 772, 412));
  },
  'gemini-sse/pydantic-ai--structured-output-with-search.sse': (t, evs) => {
    const text = textOf(evs);
    t.same(JSON.parse(text), { city: 'Mexico City', country: 'Mexico' });
    const args = '{"queries":["largest city in Mexico"]}';
    t.same(hosted(evs).slice(0, 4), [
      'tool_start 0 d6vd9r5q google_search_web provider',
      `tool_delta 0 d6vd9r5q ${args} provider`,
      `tool_done 0 d6vd9r5q google_search_web ${args} provider`,
      'tool_result 1 d6vd9r5q google_search_web',
    ]);
    t.match((of(evs, 'tool_result')[0]!.result as { search_suggestions: string }).search_suggestions, /^<style>/, 'the toolResponse.response as received');
    const cites = of(evs, 'citation');
    t.same(
      cites.map((c) => `${c.index} ${c.title ?? '-'} ${c.start}-${c.end}`),
      ['2 sa.gov 0-50', '2 vynmsa.com 0-50', '2 worldatlas.com 0-50', '2 - 0-50'],
      'one support citing four chunks: four citations of the text block',
    );
    t.equal(cites[3]!.url, 'https://www.google.com/search?q=time+in+Mexico');
    t.equal(text.slice(0, 50), '{\n  "city": "Mexico City",\n  "country": "Mexico"\n}');
    const raws = rawPayloads(evs).map((p) => JSON.stringify(p));
    t.equal(raws.length, 1);
    t.match(raws[0], /"searchEntryPoint"/);
    t.same(of(evs, 'signature').map((s) => s.index), [0, 1, 2]);
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
    t.same(finalsOf(evs)[0]!.toolCalls, []);
  },
  'gemini-sse/pydantic-ai--text-basic.sse': (t, evs) => {
    t.same(view(evs), [
      { type: 'start', id: 'w1peaMz6INOvnvgPgYfPiQY', model: 'gemini-2.0-flash-exp', dialect: 'gemini' },
      { type: 'text_delta', index: 0, text: 'The' },
      { type: 'text_delta', index: 0, text: ' capital of France' },
      { type: 'text_delta', index: 0, text: ' is Paris.\n' },
      { type: 'usage', inputTokens: 13, outputTokens: 8, totalTokens: 21, reasoningTokens: null, cachedInputTokens: null },
      { type: 'done', stopReason: 'end', providerReason: 'STOP' },
    ]);
  },
  'gemini-sse/pydantic-ai--thought-summaries.sse': (t, evs) => {
    t.equal(of(evs, 'reasoning_delta').length, 4);
    t.match(reasoningOf(evs), /^\*\*Clarifying User Goals\*\*/);
    t.same([...new Set(of(evs, 'reasoning_delta').map((e) => e.index))], [0]);
    t.same([...new Set(of(evs, 'text_delta').map((e) => e.index))], [1], 'the answer is one text block after the thoughts');
    t.match(textOf(evs), /^This is a great question! Safely crossing the street/);
    t.same(of(evs, 'signature').map((s) => s.index), [1]);
    t.same(usageOf(evs), usage(34, 469 + 787, 1290, 787));
  },
  'gemini-sse/pydantic-ai--url-context.sse': (t, evs) => {
    t.equal(textOf(evs), 'Pydantic AI Gateway is now available!');
    // The retrieved URL (urlContextMetadata, chunk 1) is the one the grounding support cites (chunk 2): one citation.
    t.same(view(of(evs, 'citation')), [{ type: 'citation', index: 0, url: 'https://ai.pydantic.dev', title: 'Pydantic AI', start: 0, end: 37 }]);
    t.equal(of(evs, 'raw').length, 0, 'nothing is left raw');
    t.same(usageOf(evs), usage(32 + 4610, 25 + 37, 4704, 37));
    t.same(finalsOf(evs)[0]!.citations, [{ index: 0, url: 'https://ai.pydantic.dev', title: 'Pydantic AI', start: 0, end: 37 }]);
  },
  'gemini-sse/pydantic-ai--usage-mid-stream.sse': (t, evs) => {
    t.equal(textOf(evs), Array.from({ length: 30 }, (_, i) => String(i + 1)).join('\n'));
    // candidatesTokenCount grows 31 → 79 → 80: one usage event with the last value.
    t.same(usageOf(evs), usage(18, 80 + 35, 133, 35));
  },
  'gemini-sse/pydantic-ai--vertex-flex-tier.sse': (t, evs) => {
    t.equal(textOf(evs), 'OK');
    t.same(of(evs, 'signature').map((s) => s.index), [0]);
    t.same(usageOf(evs), usage(5, 101, 106, 100));
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  },
  'gemini-sse/vercel-ai--array-args-missing-terminal-call.sse': (t, evs) => {
    const expected =
      '{"operations":[{"action":"add","description":"Fresh red apple","itemid":"apple_001","price":0.5},{"action":"add","description":"Ripe yellow banana","itemid":"banana_001","price":0.3}]}';
    t.same(calls(evs), [{ name: 'writeItems', arguments: expected }]);
    t.ok(of(evs, 'tool_call_delta').length > 10, 'arguments are streamed as they are assembled');
    const withAt = decode(corpusFile('gemini-sse/vercel-ai--array-args-missing-terminal-call.sse'), { positions: true });
    const frames = (type: Ev['type']) => withAt.filter((e) => e.type === type).map((e) => e.at?.frame);
    // 16 chunks: the last partialArgs entry (frame 14) has no willContinue, the terminator never comes.
    t.same(frames('tool_call_done'), [14], 'the call completes at the partialArgs chunk without willContinue');
    t.same(frames('done'), [15]);
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(54, 74 + 121, 249, 121));
  },
  'gemini-sse/vercel-ai--no-args-function-call.sse': (t, evs) => {
    t.same(calls(evs), [
      { name: 'read_theme', arguments: '{}' },
      { name: 'read_screen', arguments: '{"id":"A"}' },
      { name: 'read_screen', arguments: '{"id":"B"}' },
      { name: 'read_screen', arguments: '{"id":"C"}' },
    ]);
    t.equal(new Set(of(evs, 'tool_call_start').map((e) => e.id)).size, 4);
    t.match(reasoningOf(evs), /^\*\*Processing User Requests\*\*/);
    t.same(of(evs, 'signature').map((s) => s.index), [of(evs, 'tool_call_start')[0]!.index], 'signature of read_theme');
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
  },
  'gemini-sse/vercel-ai--thought-signature-empty-text.sse': (t, evs) => {
    t.equal(textOf(evs), 'There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y');
    const sig = of(evs, 'signature');
    t.equal(sig.length, 1, 'the empty-text part is not dropped');
    t.equal(sig[0]!.index, 0);
    t.equal(sig[0]!.signature.length, 1392);
    t.same(usageOf(evs), usage(9, 23 + 302, 334, 302));
  },
  'gemini-sse/vercel-ai--vertex-partial-function-args-nested.sse': (t, evs) => {
    const c = calls(evs);
    t.equal(c.length, 1);
    t.equal(c[0]!.name, 'cookRecipe');
    t.same(JSON.parse(c[0]!.arguments), nestedRecipe);
    t.equal(c[0]!.arguments, JSON.stringify(nestedRecipe));
    t.same(of(evs, 'signature').map((s) => s.index), [0]);
    t.equal(of(evs, 'raw').length, 10, 'the ten {willContinue: true} keep-alive chunks are raw');
    t.same(usageOf(evs), usage(31, 684 + 1026, 1741, 1026));
  },
  'gemini-sse/vercel-ai--vertex-partial-function-args.sse': (t, evs) => {
    t.same(calls(evs), [
      { name: 'getWeather', arguments: '{"location":"Boston"}' },
      { name: 'getWeather', arguments: '{"location":"San Francisco"}' },
    ]);
    t.same(
      of(evs, 'tool_call_delta').filter((e) => e.index === 0).map((e) => e.argumentsDelta),
      ['{"location":"Boston', '"', '}'],
    );
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(26, 23 + 132, 181, 132));
  },
  'gemini-json-array/llm-gemini--after-function-response.json': (t, evs) => {
    t.equal(textOf(evs), 'How about Charles and Sammy?');
    t.same(usageOf(evs), usage(137, 6, 143, null));
    t.same(doneOf(evs), [{ stopReason: 'end', providerReason: 'STOP' }]);
  },
  'gemini-json-array/llm-gemini--function-call.json': (t, evs) => {
    t.match(reasoningOf(evs), /^\*\*Generating Pelican Names\*\*/);
    t.same(calls(evs), [{ name: 'pelican_name_generator', arguments: '{}' }]);
    t.same(of(evs, 'signature').map((s) => s.index), [of(evs, 'tool_call_start')[0]!.index]);
    t.match(JSON.stringify(rawPayloads(evs)), /"finishMessage":"Model generated function call\(s\)\."/, 'finishMessage is kept');
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(32, 12 + 42, 86, 42));
  },
  'gemini-json-array/llm-gemini--gemini3-function-call.json': (t, evs) => {
    t.same(calls(evs), [{ name: 'multiply', arguments: '{"y":3,"x":5}' }]);
    t.equal(of(evs, 'signature').length, 1);
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(60, 48, 108, 32));
  },
  'gemini-json-array/llm-gemini--gemini3-text.json': (t, evs) => {
    t.equal(textOf(evs), '5 times 3 is 15.');
    t.same(usageOf(evs), usage(121, 9, 130, null));
  },
  'gemini-json-array/llm-gemini--multiple-items.json': (t, evs) => {
    const doc = JSON.parse(textOf(evs)) as { dogs: { name: string; age: number }[] };
    t.same(doc.dogs.map((d) => d.name), ['Shadow', 'Zephyr', 'Baron']);
    t.ok(of(evs, 'text_delta').length >= 4, 'the JSON text is split over many elements');
    t.same(usageOf(evs), usage(6, 65 + 570, 641, 570));
  },
  'gemini-json-array/llm-gemini--single-element.json': (t, evs) => {
    t.same(calls(evs), [{ name: 'pelican_name_generator', arguments: '{}' }]);
    t.same(doneOf(evs), [{ stopReason: 'tool_use', providerReason: 'STOP' }]);
    t.same(usageOf(evs), usage(105, 13, 118, null));
  },
  'gemini-json-array/llm-gemini--structured-output.json': (t, evs) => {
    const doc = JSON.parse(textOf(evs)) as { name: string; age: number };
    t.equal(doc.name, 'Zephyr The Rocket Barkington');
    t.equal(doc.age, 4);
    t.same(usageOf(evs), usage(5, 50 + 453, 508, 453));
  },
  'gemini-json-array/llm-gemini--text.json': (t, evs) => {
    t.match(reasoningOf(evs), /^\*\*Considering the Constraint\*\*/);
    t.equal(textOf(evs), 'Scoop');
    t.same(of(evs, 'signature').map((s) => s.index), [1]);
    t.same(usageOf(evs), usage(11, 2 + 291, 304, 291));
  },
};

t.test('corpus', (t) => {
  const files = corpusFiles(['gemini-sse', 'gemini-json-array']);
  t.equal(files.length, 34, 'all 34 corpus files are found');
  for (const file of files) {
    t.test(file.name, (t) => {
      const evs = check(t, file.bytes, {}, true);
      const check_ = corpusChecks[file.name];
      t.ok(check_, 'has documented checks');
      check_?.(t, evs);
      if (file.dir === 'gemini-json-array') {
        t.same(decode(file.bytes, { framing: 'json-array' }), evs, 'explicit json-array framing');
      }
      if (!file.name.endsWith('.body')) t.same(decode(file.bytes, G), evs, 'explicit dialect gives the same events');
      t.end();
    });
  }
  t.end();
});

t.test('a .body error with the dialect given is still one error and one done', (t) => {
  const evs = decode(corpusFile('gemini-sse/crewai--http400-not-sse.body'), G);
  t.same(evs.map((e) => e.type), ['error', 'done']);
  t.equal(of(evs, 'error')[0]!.message, 'API key not valid. Please pass a valid API key.');
  t.end();
});
