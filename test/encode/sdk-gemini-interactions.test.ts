/**
 * The gemini-interactions target read by `@google/genai`'s Interactions
 * client (`ai.interactions.create({stream: true})`). The SDK has no
 * accumulator for this stream (it yields the parsed events; only its unary
 * continuation merges interactions), so the events it yields are checked
 * against the wire rules of the js-genai types (StepStart / StepDelta /
 * StepStop / InteractionCompletedEvent) and folded here the way those types
 * describe: the text, thoughts, function calls (names, parsed arguments),
 * status and usage must agree with wirefold's final of the original, less
 * what the loss report names.
 */
import t from 'tap';
import { GoogleGenAI } from '@google/genai';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, JsonObject, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import type { LossReport } from '../../lib/encode/types.js';
import { mockFetch } from '../helpers/sdk.js';
import { captures, encode, wireFinals } from '../helpers/encode.js';
import { EXPECTATIONS } from './expect/index.js';

const eventsOf = (bytes: Buffer | string): UnifiedEvent[] => runStage(createOutputStage({ output: 'events' }), [bytes]) as UnifiedEvent[];
const finalsOf = (bytes: Buffer | string, dialect?: 'gemini-interactions'): FinalResult[] =>
  runStage(createOutputStage({ output: 'final', ...(dialect === undefined ? {} : { dialect }) }), [bytes]) as FinalResult[];

/** Every event `ai.interactions.create({stream: true})` yields for these bytes. */
async function sdkEvents(bytes: string): Promise<{ events: JsonObject[]; error?: Error; requests: number }> {
  const fetch = mockFetch(new TextEncoder().encode(bytes));
  const ai = new GoogleGenAI({ apiKey: 'dummy-key', httpOptions: { baseUrl: 'http://sdk-parity.invalid', fetch, retryOptions: { attempts: 1 } } });
  const events: JsonObject[] = [];
  try {
    const stream = await ai.interactions.create({ model: 'parity', input: 'hi', stream: true, automatic_continuation: false } as never);
    for await (const ev of stream as unknown as AsyncIterable<JsonObject>) events.push(ev);
    return { events, requests: fetch.calls };
  } catch (err) {
    return { events, error: err as Error, requests: fetch.calls };
  }
}

interface Folded {
  text: string;
  thoughts: string;
  calls: { id: string; name: string; arguments: Json }[];
  status: string | null;
  usage: JsonObject | null;
  /** Wire rule violations. */
  problems: string[];
}

const obj = (v: Json | undefined): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {});

/** The SDK's events folded as the Interactions types describe them, and the wire rules checked on the way. */
function fold(events: JsonObject[]): Folded {
  const out: Folded = { text: '', thoughts: '', calls: [], status: null, usage: null, problems: [] };
  const open = new Map<number, { type: string; id: string; name: string; args: string }>();
  let next = 0;
  for (const ev of events) {
    const type = ev['event_type'];
    const index = ev['index'] as number;
    if (type === 'step.start') {
      const step = obj(ev['step']);
      if (index !== next++) out.problems.push(`step ${index} started out of order`);
      open.set(index, { type: String(step['type']), id: String(step['id'] ?? ''), name: String(step['name'] ?? ''), args: '' });
    } else if (type === 'step.delta') {
      const d = obj(ev['delta']);
      const s = open.get(index);
      if (s === undefined) {
        out.problems.push(`a ${String(d['type'])} delta of step ${index}, not open`);
        continue;
      }
      if (d['type'] === 'text') out.text += String(d['text']);
      else if (d['type'] === 'thought_summary') out.thoughts += String(obj(d['content'])['text'] ?? '');
      else if (d['type'] === 'arguments_delta') s.args += String(d['arguments']);
    } else if (type === 'step.stop') {
      const s = open.get(index);
      if (s === undefined) out.problems.push(`step ${index} stopped, not open`);
      else if (s.type === 'function_call') {
        let args: Json;
        try {
          args = s.args === '' ? {} : (JSON.parse(s.args) as Json);
        } catch {
          args = s.args;
        }
        out.calls.push({ id: s.id, name: s.name, arguments: args });
      }
      open.delete(index);
    } else if (type === 'interaction.completed') {
      if (open.size > 0) out.problems.push(`steps ${[...open.keys()].join(', ')} never stopped`);
      const i = obj(ev['interaction']);
      out.status = String(i['status']);
      out.usage = i['usage'] === undefined ? null : obj(i['usage']);
    }
  }
  return out;
}

const STATUS: Record<string, string> = { end: 'completed', tool_use: 'requires_action', max_tokens: 'incomplete' };

const all = captures().map((c) => ({ ...c, finals: wireFinals(eventsOf(c.bytes)) }));

t.test('@google/genai interactions.create({stream: true}) on the encoded stream: the wire rules, and the same text, calls, status and usage', async (t) => {
  let n = 0;
  for (const c of all) {
    if (c.finals.length !== 1 || c.finals[0]!.stopReason === 'error') continue;
    const f = c.finals[0]!;
    const { text } = encode(eventsOf(c.bytes), 'gemini-interactions');
    const out = await sdkEvents(text);
    if (!t.notOk(out.error, `${c.name}: the SDK read the stream`, { error: out.error?.message })) continue;
    t.equal(out.requests, 1, `${c.name}: one request`);
    t.equal(out.events[0]?.['event_type'], 'interaction.created', `${c.name}: created first`);
    t.equal(out.events[out.events.length - 1]?.['event_type'], 'interaction.completed', `${c.name}: completed last ([DONE] ends the stream)`);
    const got = fold(out.events);
    t.strictSame(got.problems, [], `${c.name}: steps dense, opened and closed`);
    const want = EXPECTATIONS['gemini-interactions'].expected(f);
    t.equal(got.text, want.text, `${c.name}: text`);
    t.equal(got.thoughts, want.reasoning, `${c.name}: thoughts`);
    t.strictSame(got.calls, want.toolCalls, `${c.name}: function calls`);
    if (f.dialect !== 'gemini-interactions') t.equal(got.status, STATUS[want.stopReason] ?? 'completed', `${c.name}: status`);
    const u = got.usage;
    const num = (k: string): number | null => (typeof u?.[k] === 'number' ? (u[k] as number) : null);
    t.equal(num('total_input_tokens') === null && num('total_tool_use_tokens') === null ? null : (num('total_input_tokens') ?? 0) + (num('total_tool_use_tokens') ?? 0), want.usage.inputTokens, `${c.name}: input tokens`);
    t.equal(num('total_output_tokens') === null ? null : num('total_output_tokens')! + (num('total_thought_tokens') ?? 0), want.usage.outputTokens, `${c.name}: output + thought tokens`);
    t.equal(num('total_thought_tokens'), want.usage.reasoningTokens, `${c.name}: thought tokens`);
    t.equal(num('total_cached_tokens'), want.usage.cachedInputTokens, `${c.name}: cached tokens`);
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});

t.test('citations: text_annotation_delta on the step of their text; url, title, source and offsets come back', async (t) => {
  let n = 0;
  const key = (f: FinalResult) => [...new Set(f.citations.map((c) => JSON.stringify([c.url, c.title, c.source, c.start, c.end])))].sort();
  for (const c of all) {
    if (!c.finals.some((f) => f.citations.length > 0)) continue;
    const { text, losses } = encode(eventsOf(c.bytes), 'gemini-interactions');
    const back = finalsOf(text, 'gemini-interactions');
    // the same sources (two that differed only by their cited text are one annotation: reported)
    t.strictSame(back.map(key), c.finals.map(key), c.name);
    const citedText = c.finals.some((f) => f.citations.some((x) => x.citedText !== undefined));
    if (citedText && c.finals.every((f) => f.dialect !== 'gemini-interactions')) t.ok(losses.some((r) => r.dropped.some((d) => d.what === 'citation')), `${c.name}: cited text reported`);
    // the family's own: as they came (the step index moves when hosted steps are not written)
    const noIndex = (fs: FinalResult[]) => fs.map((f) => f.citations.map(({ index: _, ...rest }) => rest));
    if (c.finals.every((f) => f.dialect === 'gemini-interactions')) t.strictSame(noIndex(back), noIndex(c.finals), `${c.name}: as they came`);
    n++;
  }
  t.ok(n >= 15, `${n} captures with citations`);
});

t.test('signatures of the family come back byte for byte; others are reported', async (t) => {
  let n = 0;
  for (const c of all) {
    if (!c.finals.some((f) => f.signatures.length > 0)) continue;
    const { text, losses } = encode(eventsOf(c.bytes), 'gemini-interactions');
    const back = finalsOf(text, 'gemini-interactions');
    if (c.finals.every((f) => f.dialect === 'gemini-interactions')) {
      t.strictSame(back.map((f) => f.signatures.map((s) => s.signature)), c.finals.map((f) => f.signatures.map((s) => s.signature)), c.name);
      n++;
    } else {
      t.ok(back.every((f) => f.signatures.length === 0), `${c.name}: no foreign signature`);
      t.ok(losses.some((r) => r.dropped.some((d) => d.what === 'signature')), `${c.name}: reported`);
    }
  }
  t.ok(n >= 3, `${n} captures of the family with signatures`);
});

t.test('from the Interactions API itself: the same content blocks (server tool steps and results, signed thoughts), citations and usage', async (t) => {
  let n = 0;
  for (const c of all) {
    if (c.finals.length === 0 || !c.finals.every((f) => f.dialect === 'gemini-interactions')) continue;
    const back = finalsOf(encode(eventsOf(c.bytes), 'gemini-interactions').text, 'gemini-interactions');
    const view = (fs: FinalResult[]) =>
      fs.map((f) => ({ content: f.content, toolCalls: f.toolCalls, citations: f.citations, signatures: f.signatures.map((s) => s.signature), usage: f.usage, stopReason: f.stopReason, errors: f.errors.map((e) => e.code).sort() }));
    t.strictSame(view(back), view(c.finals), c.name);
    n++;
  }
  t.ok(n >= 10, `${n} captures`);
});

t.test('a terminal error: event: error after the steps are closed, the usage reported; the family\'s own failed completion as it came', async (t) => {
  const losses: LossReport[] = [];
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude', dialect: 'anthropic-messages' },
    { type: 'text_delta', index: 0, text: 'Part' },
    { type: 'usage', inputTokens: 7, outputTokens: 1, totalTokens: 8, reasoningTokens: null, cachedInputTokens: null, raw: null },
    { type: 'error', code: 'overloaded_error', message: 'Overloaded', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ];
  const text = runStage(createEncoder({ to: 'gemini-interactions', onLoss: (r) => losses.push(r) }), events).join('');
  t.match(text, /event: step.stop\ndata: \{"index":0,"event_type":"step.stop"\}\n\nevent: error\ndata: \{"error":\{"code":"overloaded_error","message":"Overloaded"\},"event_type":"error"\}\n\n$/, 'the step is closed first');
  const f = finalsOf(text, 'gemini-interactions')[0]!;
  t.equal(f.stopReason, 'error');
  t.strictSame(f.errors.map((e) => e.code), ['overloaded_error']);
  t.ok(losses.some((r) => r.dropped.some((d) => d.what === 'usage')), 'the usage is reported');
  losses.length = 0;
  const failed =
    'event: interaction.created\ndata: {"interaction":{"id":"v1_f","status":"in_progress"},"event_type":"interaction.created"}\n\n' +
    'event: interaction.completed\ndata: {"interaction":{"id":"v1_f","status":"failed","error":{"code":"internal","message":"boom"},"usage":{"total_input_tokens":3}},"event_type":"interaction.completed"}\n\n';
  const again = runStage(createEncoder({ to: 'gemini-interactions' }), eventsOf(failed)).join('');
  t.match(again, /event: interaction.completed\ndata: \{"interaction":\{"id":"v1_f","status":"failed","error":\{"code":"internal","message":"boom"\},"usage":\{"total_input_tokens":3\}\},"event_type":"interaction.completed"\}\n\nevent: done\ndata: \[DONE\]\n\n$/);
  t.strictSame(finalsOf(again, 'gemini-interactions'), finalsOf(failed, 'gemini-interactions'), 'the same final');
  const cut = runStage(createEncoder({ to: 'gemini-interactions', onLoss: (r) => losses.push(r) }), events.slice(0, 3)).join('');
  t.match(cut, /event: step.stop\n.*\n\nevent: error\ndata: \{"error":\{"code":"incomplete_stream","message":"[^"]+"\},"event_type":"error"\}\n\n$/);
  t.equal(finalsOf(cut, 'gemini-interactions')[0]!.stopReason, 'error');
  t.ok(losses.some((r) => r.dropped.some((d) => d.what === 'usage')), 'the usage of a response cut short is reported');
});

t.test('calls: arguments stream as deltas; free-form input is wrapped at its done; refusal has no status', async (t) => {
  const losses: LossReport[] = [];
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'resp_1', model: 'gpt', dialect: 'openai-responses' },
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'get' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '{"a":' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '1}' },
    { type: 'tool_call_done', index: 0, id: 'c1', name: 'get', arguments: '{"a":1}' },
    { type: 'tool_call_start', index: 1, id: 'c2', name: 'shell' },
    { type: 'tool_call_delta', index: 1, id: 'c2', argumentsDelta: 'ls -la' },
    { type: 'tool_call_done', index: 1, id: 'c2', name: 'shell', arguments: 'ls -la' },
    { type: 'done', stopReason: 'tool_use', providerReason: 'completed' },
  ];
  const text = runStage(createEncoder({ to: 'gemini-interactions', onLoss: (r) => losses.push(r) }), events).join('');
  t.equal(text.match(/arguments_delta/g)?.length, 3, 'two deltas of c1 as they came, one for c2 at its done');
  t.match(text, /"arguments":"\{\\"input\\":\\"ls -la\\"\}"/);
  t.match(text, /"status":"requires_action"/);
  t.strictSame(losses.flatMap((r) => r.dropped.map((d) => d.what)), ['tool_input']);
  t.strictSame(finalsOf(text, 'gemini-interactions')[0]!.toolCalls, [
    { id: 'c1', name: 'get', arguments: { a: 1 } },
    { id: 'c2', name: 'shell', arguments: { input: 'ls -la' } },
  ]);
  const refusal: UnifiedEvent[] = [
    { type: 'start', id: 'chatcmpl-1', model: 'gpt', dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: "I can't help with that.", refusal: true },
    { type: 'done', stopReason: 'refusal', providerReason: 'stop' },
  ];
  const lost: LossReport[] = [];
  const r = runStage(createEncoder({ to: 'gemini-interactions', onLoss: (x) => lost.push(x) }), refusal).join('');
  t.match(r, /"delta":\{"type":"text","text":"I can't help with that."\}/, 'refusal text as text');
  t.match(r, /"status":"completed"/);
  t.ok(lost.some((x) => x.dropped.some((d) => d.what === 'stop_reason')), 'the refusal stop is reported');
});
