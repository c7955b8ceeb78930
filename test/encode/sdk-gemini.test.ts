/**
 * The gemini targets read by `@google/genai` (generateContentStream: every
 * chunk it yields) and by our own reader: the chunks' text, thoughts,
 * function calls, finishReason and usageMetadata must agree with wirefold's
 * final of the original, less what the loss report names.
 */
import t from 'tap';
import type { GenerateContentResponse } from '@google/genai';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import type { LossReport } from '../../lib/encode/types.js';
import { geminiChunks } from '../helpers/sdk.js';
import { captures, encode } from '../helpers/encode.js';
import { fixture } from '../helpers/corpus.js';
import { EXPECTATIONS } from './expect/index.js';

const FINISH: Record<string, string> = { end: 'STOP', tool_use: 'STOP', max_tokens: 'MAX_TOKENS', refusal: 'SAFETY', other: 'OTHER' };

const eventsOf = (bytes: Buffer | string): UnifiedEvent[] => runStage(createOutputStage({ output: 'events' }), [bytes]) as UnifiedEvent[];
const finalsOf = (bytes: Buffer | string, dialect?: 'gemini'): FinalResult[] =>
  runStage(createOutputStage({ output: 'final', ...(dialect === undefined ? {} : { dialect }) }), [bytes]) as FinalResult[];

const all = captures().map((c) => ({ ...c, finals: finalsOf(c.bytes) }));
const singles = all.filter((c) => c.finals.length === 1 && c.finals[0]!.stopReason !== 'error');

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string };
}

/** Candidate 0's parts across the chunks, and the last chunk (finishReason, usageMetadata). */
function parts(chunks: GenerateContentResponse[]): Part[] {
  return chunks.flatMap((c) => (c.candidates?.find((x) => (x.index ?? 0) === 0)?.content?.parts ?? []) as Part[]);
}

t.test('@google/genai generateContentStream on the encoded SSE: text, thoughts, calls, finishReason, usage', async (t) => {
  let n = 0;
  for (const c of singles) {
    const f = c.finals[0]!;
    const { text } = encode(eventsOf(c.bytes), 'gemini');
    // @google/genai joins what it has read with each new piece: a megabyte event (the image capture's
    // inlineData) in 64-byte pieces takes it minutes, so big outputs come in pieces of up to 64 KiB
    const out = await geminiChunks(new TextEncoder().encode(text), text.length > 256 * 1024 ? { maxChunk: 64 * 1024 } : {});
    if (!t.notOk(out.error, `${c.name}: the SDK read every chunk`, { error: out.error?.message })) continue;
    const want = EXPECTATIONS.gemini.expected(f);
    const ps = parts(out.events);
    t.equal(ps.filter((p) => p.thought !== true && typeof p.text === 'string').map((p) => p.text).join(''), want.text, `${c.name}: text`);
    t.equal(ps.filter((p) => p.thought === true).map((p) => p.text).join(''), want.reasoning, `${c.name}: thoughts`);
    // a functionCall the model's own content answers (functionResponse) is one the server ran (MCP): not the client's
    const answered = new Set(ps.flatMap((p) => (p.functionResponse?.id === undefined ? [] : [p.functionResponse.id])));
    t.strictSame(
      ps.filter((p) => p.functionCall !== undefined && !answered.has(p.functionCall.id ?? '')).map((p) => ({ id: p.functionCall!.id, name: p.functionCall!.name, arguments: p.functionCall!.args as Json })),
      want.toolCalls,
      `${c.name}: function calls`,
    );
    const last = out.events[out.events.length - 1];
    // a blocked prompt of the family is written as it came: promptFeedback, no candidate
    const finish = (last?.candidates?.[0]?.finishReason ?? last?.promptFeedback?.blockReason) as string | undefined;
    if (f.dialect === 'gemini' || f.dialect === 'gemini-live') t.equal(finish, f.providerReason ?? FINISH[f.stopReason], `${c.name}: finishReason (as it came)`);
    else t.equal(finish, FINISH[f.stopReason], `${c.name}: finishReason`);
    const u = last?.usageMetadata;
    if (f.dialect !== 'gemini') {
      // what the target writes is what the reader's mapping inverts: prompt = input, candidates + thoughts = output
      t.equal(u?.promptTokenCount ?? null, want.usage.inputTokens, `${c.name}: promptTokenCount`);
      t.equal(u?.thoughtsTokenCount ?? null, want.usage.reasoningTokens, `${c.name}: thoughtsTokenCount`);
      const output = u?.candidatesTokenCount === undefined ? null : u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0);
      t.equal(output, want.usage.outputTokens, `${c.name}: candidatesTokenCount + thoughtsTokenCount`);
      t.equal(u?.cachedContentTokenCount ?? null, want.usage.cachedInputTokens, `${c.name}: cachedContentTokenCount`);
      t.equal(u?.totalTokenCount ?? null, f.usage.totalTokens, `${c.name}: totalTokenCount`);
    }
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});

t.test('gemini-json-array: one JSON array of the very chunks the SSE framing writes', async (t) => {
  let n = 0;
  for (const c of all) {
    const events = eventsOf(c.bytes);
    const sse = encode(events, 'gemini').text;
    const array = encode(events, 'gemini-json-array').text;
    const chunks = sse
      .split('\r\n\r\n')
      .filter((b) => b !== '')
      .map((b) => JSON.parse(b.slice('data: '.length)) as Json);
    t.strictSame(JSON.parse(array), chunks, `${c.name}: same chunks`);
    n++;
  }
  t.ok(n > 150, `${n} captures`);
  t.equal(runStage(createEncoder({ to: 'gemini-json-array' }), []).join(''), '[]', 'no response: an empty array');
});

t.test('thoughtSignatures of the generateContent family come back on the same blocks, byte for byte', async (t) => {
  let n = 0;
  for (const c of all) {
    if (!c.finals.some((f) => (f.dialect === 'gemini' || f.dialect === 'gemini-live') && f.signatures.length > 0)) continue;
    const { text, losses } = encode(eventsOf(c.bytes), 'gemini');
    const back = finalsOf(text, 'gemini');
    const lostBlocks = losses.some((r) => r.dropped.some((d) => d.what === 'provider_tool_call' || d.what === 'tool_result'));
    // block indices are the reader's: the same from generateContent itself unless blocks (hosted calls, results) were not written
    const exact = c.finals.every((f) => f.dialect === 'gemini') && !lostBlocks;
    const strip = (fs: FinalResult[]) => fs.map((f) => f.signatures.map((s) => (exact ? s : { signature: s.signature, kind: s.kind })));
    t.strictSame(strip(back), strip(c.finals), `${c.name}${exact ? ' (indices too)' : ''}`);
    n++;
  }
  t.ok(n >= 5, `${n} captures with signatures`);
});

t.test('from generateContent itself: the same content blocks (hosted calls and results, files, signed thoughts) and usage', async (t) => {
  let n = 0;
  for (const c of all) {
    if (c.finals.length === 0 || !c.finals.every((f) => f.dialect === 'gemini')) continue;
    const back = finalsOf(encode(eventsOf(c.bytes), 'gemini').text, 'gemini');
    t.strictSame(
      back.map((f) => ({ content: f.content, toolCalls: f.toolCalls, usage: f.usage, stopReason: f.stopReason, providerReason: f.providerReason })),
      c.finals.map((f) => ({ content: f.content, toolCalls: f.toolCalls, usage: f.usage, stopReason: f.stopReason, providerReason: f.providerReason })),
      c.name,
    );
    n++;
  }
  t.ok(n >= 40, `${n} captures`);
});

t.test('citations: generateContent\'s own metadata as it came; others as citationSources (uri, title, UTF-8 offsets)', async (t) => {
  let n = 0;
  const key = (f: FinalResult) => [...new Set(f.citations.map((c) => JSON.stringify([c.url, c.title, c.start, c.end])))].sort();
  for (const c of all) {
    if (!c.finals.some((f) => f.citations.length > 0)) continue;
    const { text, losses } = encode(eventsOf(c.bytes), 'gemini');
    const back = finalsOf(text, 'gemini');
    if (c.finals.every((f) => f.dialect === 'gemini')) t.strictSame(back.map((f) => f.citations), c.finals.map((f) => f.citations), `${c.name}: as they came`);
    else {
      // the same sources (two that differed only by their cited text are one entry: reported)
      t.strictSame(back.map(key), c.finals.map(key), c.name);
      const lost = c.finals.some((f) => f.citations.some((x) => x.citedText !== undefined || (x.url === undefined && x.source !== undefined)));
      t.equal(losses.some((r) => r.dropped.some((d) => d.what === 'citation')), lost, `${c.name}: cited text and sources without a uri reported`);
    }
    n++;
  }
  t.ok(n >= 15, `${n} captures with citations`);
});

t.test('usage: thoughts are taken out of candidatesTokenCount; unknown counts are left out', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r1', model: 'm', dialect: 'openai-responses' },
    { type: 'reasoning_delta', index: 0, text: 'hmm' },
    { type: 'text_delta', index: 1, text: 'Hi' },
    { type: 'usage', inputTokens: 10, outputTokens: 30, totalTokens: 40, reasoningTokens: 25, cachedInputTokens: 4, raw: null },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
  ];
  const text = runStage(createEncoder({ to: 'gemini' }), events).join('');
  const last = JSON.parse(text.trim().split('\r\n\r\n').pop()!.slice(6)) as { usageMetadata: Json; candidates: Json };
  t.strictSame(last.usageMetadata, { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 25, cachedContentTokenCount: 4, totalTokenCount: 40 });
  t.strictSame(finalsOf(text, 'gemini')[0]!.usage, { inputTokens: 10, outputTokens: 30, totalTokens: 40, reasoningTokens: 25, cachedInputTokens: 4 });
  const unknown = events.map((e) => (e.type === 'usage' ? { ...e, inputTokens: null, totalTokens: null, cachedInputTokens: null } : e));
  const text2 = runStage(createEncoder({ to: 'gemini' }), unknown).join('');
  t.match(text2, /"usageMetadata":\{"candidatesTokenCount":5,"thoughtsTokenCount":25\}/, 'only the known counts');
  const none = events.filter((e) => e.type !== 'usage');
  t.notMatch(runStage(createEncoder({ to: 'gemini' }), none).join(''), /usageMetadata/, 'no usage: no usageMetadata');
});

t.test('calls: whole functionCall parts; input that is not an object is wrapped and reported', async (t) => {
  const losses: LossReport[] = [];
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'resp_1', model: 'gpt', dialect: 'openai-responses' },
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'get', providerExecuted: undefined as never },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '{"a":' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '1}' },
    { type: 'tool_call_done', index: 0, id: 'c1', name: 'get', arguments: '{"a":1}' },
    { type: 'tool_call_start', index: 1, id: 'c2', name: 'shell' },
    { type: 'tool_call_delta', index: 1, id: 'c2', argumentsDelta: 'ls -la' },
    { type: 'tool_call_done', index: 1, id: 'c2', name: 'shell', arguments: 'ls -la' },
    { type: 'done', stopReason: 'tool_use', providerReason: 'completed' },
  ].map((e) => (e.type === 'tool_call_start' && 'providerExecuted' in e ? { type: e.type, index: e.index, id: e.id, name: e.name } : e)) as UnifiedEvent[];
  const text = runStage(createEncoder({ to: 'gemini', onLoss: (r) => losses.push(r) }), events).join('');
  t.equal(text.match(/functionCall/g)?.length, 2, 'one part per call, no deltas');
  t.match(text, /"functionCall":\{"id":"c1","name":"get","args":\{"a":1\}\}/);
  t.match(text, /"functionCall":\{"id":"c2","name":"shell","args":\{"input":"ls -la"\}\}/);
  t.match(text, /"finishReason":"STOP"/);
  t.strictSame(losses.flatMap((r) => r.dropped.map((d) => d.what)), ['tool_input']);
  const f = finalsOf(text, 'gemini')[0]!;
  t.equal(f.stopReason, 'tool_use');
  t.strictSame(f.toolCalls, [
    { id: 'c1', name: 'get', arguments: { a: 1 } },
    { id: 'c2', name: 'shell', arguments: { input: 'ls -la' } },
  ]);
});

t.test('a repeated id after a response that ended on a call is left out (Gemini would continue the response)', async (t) => {
  const losses: LossReport[] = [];
  const text = runStage(createEncoder({ to: 'gemini', onLoss: (r) => losses.push(r) }), eventsOf(fixture('gemini-live/tool-call-cancel.json'))).join('');
  const back = finalsOf(text, 'gemini');
  t.equal(back.length, 2, 'two responses');
  t.strictSame(back.map((f) => f.id), ['sess-tools', null]);
  t.ok(losses.some((r) => r.dropped.some((d) => d.what === 'response_id')), 'reported');
});

t.test('errors: the usage so far, then the error chunk the SDK throws as ApiError', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude', dialect: 'anthropic-messages' },
    { type: 'text_delta', index: 0, text: 'Part' },
    { type: 'usage', inputTokens: 7, outputTokens: 1, totalTokens: 8, reasoningTokens: null, cachedInputTokens: null, raw: null },
    { type: 'error', code: 'overloaded_error', message: 'Overloaded', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ];
  const text = runStage(createEncoder({ to: 'gemini' }), events).join('');
  t.match(text, /data: \{"usageMetadata":\{"promptTokenCount":7,"candidatesTokenCount":1,"totalTokenCount":8\},"modelVersion":"claude","responseId":"msg_1"\}\r\n\r\n/);
  t.match(text, /data: \{"error":\{"code":500,"message":"Overloaded","status":"overloaded_error"\}\}\r\n\r\n$/);
  const f = finalsOf(text, 'gemini')[0]!;
  t.equal(f.stopReason, 'error');
  t.strictSame(f.errors.map((e) => e.code), ['overloaded_error']);
  t.equal(f.usage.inputTokens, 7);
  const out = await geminiChunks(new TextEncoder().encode(text));
  t.match(out.error?.message ?? '', /got status: overloaded_error/, 'the SDK throws it');
  const cut = runStage(createEncoder({ to: 'gemini' }), events.slice(0, 2)).join('');
  t.match(cut, /"status":"incomplete_stream"/, 'a response cut short ends in the error chunk');
});
