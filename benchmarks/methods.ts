/**
 * The benchmark methods: one async function per way of reading a fixture,
 * each fed by the same mocked `fetch` (a Response whose body is a
 * ReadableStream enqueuing the fixture in fixed-size chunks) and each checked
 * against the generator's expectations, so a broken method cannot post a
 * good number.
 */
import { createJsonArrayFloor, createSseFloor, runFloor } from './floor.js';
import { Writable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FinalResult } from '../lib/accumulate/types.js';
import type { Frame, UnifiedEvent } from '../lib/events.js';
import { createFramer, createStream, decoder, finalAccumulator, jsonArrayFramer, normalizer, sseFramer } from './package.js';
import { wirefoldOptions, type FixtureDialect, type FixtureStats } from './generate.js';
import type { TargetName } from '../lib/encode/types.js';

export type MockFetch = (input?: unknown, init?: unknown) => Promise<Response>;

export interface MethodContext {
  dialect: FixtureDialect;
  stats: FixtureStats;
  /** Returns a fresh Response over the fixture for every call. */
  fetch: MockFetch;
}

export interface MethodResult {
  /** Items the method produced (events, chunks, results: what the method yields). */
  items: number;
  /** Bytes the method wrote (transcoding: the target's wire). */
  bytesOut?: number;
}

export type MethodGroup = 'floor' | 'framing' | 'sdk-raw' | 'sdk-final' | 'vercel' | 'wirefold' | 'transcode';

export interface Method {
  id: string;
  label: string;
  group: MethodGroup;
  /** Dialects (and shapes) it can read. */
  applies(dialect: FixtureDialect, shape: FixtureStats['shape']): boolean;
  /** Marks a peer that is far slower than the floor (it may run on a smaller fixture, see run.ts). */
  slow?: boolean;
  run(ctx: MethodContext): Promise<MethodResult>;
}

export class CheckError extends Error {}

function expectEqual(what: string, got: number, want: number): void {
  if (got !== want) throw new CheckError(`${what}: got ${got}, expected ${want}`);
}

const SSE_DIALECTS: FixtureDialect[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini-sse', 'xai-chat', 'gemini-interactions'];
const isSse = (d: FixtureDialect): boolean => SSE_DIALECTS.includes(d);
const single = (s: FixtureStats['shape']): boolean => s === 'single';

/** The Response body (a web ReadableStream: async-iterable in Node, and accepted by stream.pipeline as such). */
async function bodyOf(ctx: MethodContext): Promise<AsyncIterable<Uint8Array>> {
  const res = await ctx.fetch();
  if (res.body === null) throw new Error('no body');
  return res.body as unknown as AsyncIterable<Uint8Array>;
}

// ---------------------------------------------------------------------------
// Floors

/** TextDecoder + indexOf framing + JSON.parse: the least any SSE reader must do (benchmarks/floor.ts). */
async function floorSse(ctx: MethodContext): Promise<MethodResult> {
  const frames = await runFloor(createSseFloor(ctx.dialect === 'gemini-sse' ? '\r\n\r\n' : '\n\n'), await bodyOf(ctx));
  expectEqual('frames', frames, ctx.stats.frames);
  return { items: frames };
}

/** TextDecoder + a string-skipping depth scanner + JSON.parse per element: the JSON-array floor. */
async function floorJsonArray(ctx: MethodContext): Promise<MethodResult> {
  const frames = await runFloor(createJsonArrayFloor(), await bodyOf(ctx));
  expectEqual('elements', frames, ctx.stats.frames);
  return { items: frames };
}

// ---------------------------------------------------------------------------
// Framing only

async function eventsourceParser(ctx: MethodContext): Promise<MethodResult> {
  const { createParser } = await import('eventsource-parser');
  let frames = 0;
  const parser = createParser({
    onEvent(ev) {
      frames++;
      if (ev.data !== '[DONE]') JSON.parse(ev.data);
    },
  });
  const dec = new TextDecoder();
  for await (const chunk of await bodyOf(ctx)) parser.feed(dec.decode(chunk, { stream: true }));
  parser.feed(dec.decode());
  parser.reset({ consume: true });
  expectEqual('frames', frames, ctx.stats.frames);
  return { items: frames };
}

/** wirefold's own framer stage (SSE or JSON array) + JSON.parse, no meaning: comparable with the floor. */
async function wirefoldFramer(ctx: MethodContext): Promise<MethodResult> {
  const framer = createFramer(wirefoldOptions(ctx.dialect).framing);
  let frames = 0;
  const emit = (f: Frame): void => {
    frames++;
    if (f.data !== '[DONE]') JSON.parse(f.data);
  };
  for await (const chunk of await bodyOf(ctx)) framer.push(chunk, emit);
  framer.end(emit);
  expectEqual('frames', frames, ctx.stats.frames);
  return { items: frames };
}

async function streamJson(ctx: MethodContext): Promise<MethodResult> {
  const { default: StreamJson } = await import('stream-json');
  const { default: StreamArray } = await import('stream-json/streamers/StreamArray.js');
  let elements = 0;
  await pipeline(
    await bodyOf(ctx),
    StreamJson.parser({ jsonStreaming: true }),
    StreamArray.streamArray(),
    new Writable({
      objectMode: true,
      write(_item, _enc, cb) {
        elements++;
        cb();
      },
    }),
  );
  expectEqual('elements', elements, ctx.stats.frames);
  return { items: elements };
}

// ---------------------------------------------------------------------------
// Official SDKs

const BASE = 'http://bench.invalid';

async function openaiClient(ctx: MethodContext) {
  const { default: OpenAI } = await import('openai');
  return new OpenAI({ apiKey: 'bench', baseURL: `${BASE}/v1`, maxRetries: 0, fetch: ctx.fetch as unknown as typeof fetch });
}

async function anthropicClient(ctx: MethodContext) {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  return new Anthropic({ apiKey: 'bench', baseURL: BASE, maxRetries: 0, fetch: ctx.fetch as unknown as typeof fetch });
}

const chatParams = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Hello' }] };
const anthropicParams = { model: 'claude-sonnet-4-5', max_tokens: 64000, messages: [{ role: 'user' as const, content: 'Hello' }] };

async function openaiChatRaw(ctx: MethodContext): Promise<MethodResult> {
  const client = await openaiClient(ctx);
  const stream = await client.chat.completions.create({ ...chatParams, stream: true });
  let chunks = 0;
  let text = 0;
  for await (const chunk of stream) {
    chunks++;
    const c = chunk.choices[0]?.delta?.content;
    if (typeof c === 'string') text += c.length;
  }
  expectEqual('text chars', text, ctx.stats.textChars);
  return { items: chunks };
}

async function openaiChatFinal(ctx: MethodContext): Promise<MethodResult> {
  const client = await openaiClient(ctx);
  const final = await client.chat.completions.stream(chatParams).finalChatCompletion();
  const msg = final.choices[0]?.message;
  expectEqual('text chars', msg?.content?.length ?? 0, ctx.stats.textChars);
  expectEqual('tool calls', msg?.tool_calls?.length ?? 0, ctx.stats.toolCalls);
  return { items: 1 };
}

async function openaiResponsesRaw(ctx: MethodContext): Promise<MethodResult> {
  const client = await openaiClient(ctx);
  const stream = await client.responses.create({ model: 'gpt-5', input: 'Hello', stream: true });
  let events = 0;
  let text = 0;
  for await (const ev of stream) {
    events++;
    if (ev.type === 'response.output_text.delta') text += ev.delta.length;
  }
  expectEqual('events', events, ctx.stats.frames);
  expectEqual('text chars', text, ctx.stats.textChars);
  return { items: events };
}

async function openaiResponsesFinal(ctx: MethodContext): Promise<MethodResult> {
  const client = await openaiClient(ctx);
  const final = await client.responses.stream({ model: 'gpt-5', input: 'Hello' }).finalResponse();
  let text = 0;
  let tools = 0;
  for (const item of final.output) {
    if (item.type === 'message') for (const part of item.content) if (part.type === 'output_text') text += part.text.length;
    if (item.type === 'function_call') tools++;
  }
  expectEqual('text chars', text, ctx.stats.textChars);
  expectEqual('tool calls', tools, ctx.stats.toolCalls);
  return { items: 1 };
}

async function anthropicRaw(ctx: MethodContext): Promise<MethodResult> {
  const client = await anthropicClient(ctx);
  const stream = await client.messages.create({ ...anthropicParams, stream: true });
  let events = 0;
  let text = 0;
  for await (const ev of stream) {
    events++;
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text.length;
  }
  expectEqual('text chars', text, ctx.stats.textChars);
  return { items: events };
}

async function anthropicFinal(ctx: MethodContext): Promise<MethodResult> {
  const client = await anthropicClient(ctx);
  const final = await client.messages.stream(anthropicParams).finalMessage();
  let text = 0;
  let tools = 0;
  for (const block of final.content) {
    if (block.type === 'text') text += block.text.length;
    else if (block.type === 'tool_use') tools++;
  }
  expectEqual('text chars', text, ctx.stats.textChars);
  expectEqual('tool calls', tools, ctx.stats.toolCalls);
  return { items: 1 };
}

/** @google/genai reads the global fetch: swap it in for the call. */
async function withGlobalFetch<T>(ctx: MethodContext, fn: () => Promise<T>): Promise<T> {
  const saved = globalThis.fetch;
  globalThis.fetch = ctx.fetch as unknown as typeof fetch;
  try {
    return await fn();
  } finally {
    globalThis.fetch = saved;
  }
}

async function genaiRaw(ctx: MethodContext): Promise<MethodResult> {
  const { GoogleGenAI } = await import('@google/genai');
  return withGlobalFetch(ctx, async () => {
    const ai = new GoogleGenAI({ apiKey: 'bench' });
    const stream = await ai.models.generateContentStream({ model: 'gemini-3-flash-preview', contents: 'Hello' });
    let chunks = 0;
    let text = 0;
    for await (const chunk of stream) {
      chunks++;
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) if (typeof part.text === 'string' && part.thought !== true) text += part.text.length;
    }
    expectEqual('chunks', chunks, ctx.stats.frames);
    expectEqual('text chars', text, ctx.stats.textChars);
    return { items: chunks };
  });
}

// ---------------------------------------------------------------------------
// Vercel AI SDK

const TOOL_NAMES = ['get_weather', 'search_documents', 'run_query', 'create_ticket', 'lookup_order'];

async function vercel(ctx: MethodContext): Promise<MethodResult> {
  const { streamText, tool, jsonSchema } = await import('ai');
  const f = ctx.fetch as unknown as typeof fetch;
  let model;
  switch (ctx.dialect) {
    case 'openai-chat':
      model = (await import('@ai-sdk/openai')).createOpenAI({ apiKey: 'bench', baseURL: `${BASE}/v1`, fetch: f }).chat('gpt-4o');
      break;
    case 'openai-responses':
      model = (await import('@ai-sdk/openai')).createOpenAI({ apiKey: 'bench', baseURL: `${BASE}/v1`, fetch: f }).responses('gpt-5');
      break;
    case 'anthropic-messages':
      model = (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey: 'bench', baseURL: `${BASE}/v1`, fetch: f })('claude-sonnet-4-5');
      break;
    case 'gemini-sse':
      model = (await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey: 'bench', baseURL: `${BASE}/v1beta`, fetch: f })('gemini-3-flash-preview');
      break;
    default:
      throw new Error(`no Vercel provider for ${ctx.dialect}`);
  }
  const schema = jsonSchema<Record<string, unknown>>({ type: 'object', additionalProperties: true });
  const tools = Object.fromEntries(TOOL_NAMES.map((n) => [n, tool({ description: n, inputSchema: schema })]));
  const result = streamText({ model, prompt: 'Hello', tools, maxRetries: 0, onError: () => {} });
  let parts = 0;
  let text = 0;
  let toolCalls = 0;
  for await (const part of result.fullStream) {
    parts++;
    if (part.type === 'text-delta') text += part.text.length;
    else if (part.type === 'tool-call') toolCalls++;
    else if (part.type === 'error') throw new CheckError(`error part: ${String((part.error as Error)?.message ?? part.error)}`);
  }
  expectEqual('text chars', text, ctx.stats.textChars);
  expectEqual('tool calls', toolCalls, ctx.stats.toolCalls);
  return { items: parts };
}

// ---------------------------------------------------------------------------
// wirefold

interface Tally {
  text: number;
  done: number;
  tools: number;
  errors: number;
  items: number;
  firstError: string | null;
}

function eventSink(t: Tally): Writable {
  return new Writable({
    objectMode: true,
    write(ev: UnifiedEvent, _enc, cb) {
      t.items++;
      if (ev.type === 'text_delta') t.text += ev.text.length;
      else if (ev.type === 'done') t.done++;
      else if (ev.type === 'tool_call_done') t.tools++;
      else if (ev.type === 'error') {
        t.errors++;
        t.firstError ??= `${ev.code}: ${ev.message}`;
      }
      cb();
    },
  });
}

function finalSink(t: Tally): Writable {
  return new Writable({
    objectMode: true,
    write(r: FinalResult, _enc, cb) {
      t.items++;
      t.done++;
      t.text += r.text.length;
      t.tools += r.toolCalls.length;
      if (r.errors.length > 0) {
        t.errors += r.errors.length;
        t.firstError ??= `${r.errors[0]!.code}: ${r.errors[0]!.message}`;
      }
      cb();
    },
  });
}

function checkTally(t: Tally, stats: FixtureStats): void {
  if (t.errors > 0) throw new CheckError(`${t.errors} errors, first: ${t.firstError}`);
  expectEqual('responses', t.done, stats.responses);
  expectEqual('text chars', t.text, stats.textChars);
  expectEqual('tool calls', t.tools, stats.toolCalls);
}

/** stream.pipeline over a web body, readable-stream Transforms and a node Writable (the typings do not mix). */
function pipe(...streams: unknown[]): Promise<void> {
  return (pipeline as unknown as (...s: unknown[]) => Promise<void>)(...streams);
}

const newTally = (): Tally => ({ text: 0, done: 0, tools: 0, errors: 0, items: 0, firstError: null });

async function wirefoldEvents(ctx: MethodContext): Promise<MethodResult> {
  const t = newTally();
  await pipe(await bodyOf(ctx), createStream({ ...wirefoldOptions(ctx.dialect), output: 'events' }), eventSink(t));
  checkTally(t, ctx.stats);
  return { items: t.items };
}

async function wirefoldFinal(ctx: MethodContext): Promise<MethodResult> {
  const t = newTally();
  await pipe(await bodyOf(ctx), createStream({ ...wirefoldOptions(ctx.dialect), output: 'final' }), finalSink(t));
  checkTally(t, ctx.stats);
  return { items: t.items };
}

/** The same fused stage with the raw-text fast path switched off (internal switch): every payload goes through JSON.parse. */
async function wirefoldFinalNoFast(ctx: MethodContext): Promise<MethodResult> {
  const t = newTally();
  const options = { ...wirefoldOptions(ctx.dialect), output: 'final' as const, fastPath: false };
  await pipe(await bodyOf(ctx), createStream(options), finalSink(t));
  checkTally(t, ctx.stats);
  return { items: t.items };
}

/**
 * The fused stage behind three Transforms that pass each chunk on untouched:
 * the stream hops the separate stages add, without their work (the chain
 * below has four Transforms where the fused one has one; readable-stream's,
 * like every wirefold stage).
 */
async function wirefoldFinalHops(ctx: MethodContext): Promise<MethodResult> {
  const t = newTally();
  const hop = (): Transform => new Transform({ objectMode: true, transform: (chunk: unknown, _enc, cb) => cb(null, chunk) });
  await pipe(await bodyOf(ctx), hop(), hop(), hop(), createStream({ ...wirefoldOptions(ctx.dialect), output: 'final' }), finalSink(t));
  checkTally(t, ctx.stats);
  return { items: t.items };
}

async function wirefoldStages(ctx: MethodContext): Promise<MethodResult> {
  const t = newTally();
  const { dialect, framing } = wirefoldOptions(ctx.dialect);
  await pipe(
    await bodyOf(ctx),
    framing === 'sse' ? sseFramer() : jsonArrayFramer(),
    decoder(),
    normalizer({ dialect }),
    finalAccumulator(),
    finalSink(t),
  );
  checkTally(t, ctx.stats);
  return { items: t.items };
}

/**
 * Transcoding: bytes in → the target wire's bytes out, one Transform (createStream({ to })).
 * Checked by the output's size only (what it holds is the encoder tests' business): never empty.
 */
function wirefoldTo(to: TargetName): (ctx: MethodContext) => Promise<MethodResult> {
  return async (ctx) => {
    let bytes = 0;
    let items = 0;
    const { dialect, framing } = wirefoldOptions(ctx.dialect);
    await pipe(
      await bodyOf(ctx),
      createStream({ dialect, framing, to }),
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          bytes += chunk.length;
          items++;
          cb();
        },
      }),
    );
    if (bytes === 0) throw new CheckError(`nothing written to ${to}`);
    return { items, bytesOut: bytes };
  };
}

export const TRANSCODE_TARGETS: TargetName[] = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini', 'gemini-json-array', 'gemini-interactions', 'ai-sdk-ui'];

// ---------------------------------------------------------------------------

const OPENAI_CHAT_LIKE: FixtureDialect[] = ['openai-chat', 'xai-chat'];

export const METHODS: Method[] = [
  { id: 'floor', label: 'floor: TextDecoder + indexOf framing + JSON.parse', group: 'floor', applies: (d) => d !== 'gemini-json-array', run: floorSse },
  { id: 'floor-array', label: 'floor: TextDecoder + depth scanner + JSON.parse', group: 'floor', applies: (d) => d === 'gemini-json-array', run: floorJsonArray },
  { id: 'eventsource-parser', label: 'eventsource-parser + JSON.parse', group: 'framing', applies: isSse, run: eventsourceParser },
  { id: 'stream-json', label: 'stream-json parser + StreamArray', group: 'framing', applies: (d) => d === 'gemini-json-array', run: streamJson },
  { id: 'wirefold-framer', label: 'wirefold framer stage + JSON.parse', group: 'framing', applies: () => true, run: wirefoldFramer },
  { id: 'openai-chat-raw', label: 'openai SDK: iterate chunks', group: 'sdk-raw', applies: (d, s) => OPENAI_CHAT_LIKE.includes(d) && single(s), run: openaiChatRaw },
  { id: 'openai-chat-final', label: 'openai SDK: finalChatCompletion()', group: 'sdk-final', applies: (d, s) => OPENAI_CHAT_LIKE.includes(d) && single(s), run: openaiChatFinal },
  { id: 'openai-responses-raw', label: 'openai SDK: iterate Responses events', group: 'sdk-raw', applies: (d, s) => d === 'openai-responses' && single(s), run: openaiResponsesRaw },
  { id: 'openai-responses-final', label: 'openai SDK: finalResponse()', group: 'sdk-final', applies: (d, s) => d === 'openai-responses' && single(s), run: openaiResponsesFinal },
  { id: 'anthropic-raw', label: '@anthropic-ai/sdk: iterate events', group: 'sdk-raw', applies: (d, s) => d === 'anthropic-messages' && single(s), run: anthropicRaw },
  { id: 'anthropic-final', label: '@anthropic-ai/sdk: finalMessage()', group: 'sdk-final', applies: (d, s) => d === 'anthropic-messages' && single(s), run: anthropicFinal },
  { id: 'genai-raw', label: '@google/genai: generateContentStream', group: 'sdk-raw', applies: (d, s) => d === 'gemini-sse' && single(s), slow: true, run: genaiRaw },
  { id: 'vercel', label: 'Vercel AI SDK: streamText fullStream', group: 'vercel', applies: (d, s) => ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini-sse'].includes(d) && single(s), slow: true, run: vercel },
  { id: 'wirefold-events', label: "wirefold createStream({output:'events'})", group: 'wirefold', applies: () => true, run: wirefoldEvents },
  { id: 'wirefold-final', label: "wirefold createStream({output:'final'})", group: 'wirefold', applies: () => true, run: wirefoldFinal },
  { id: 'wirefold-final-nofast', label: "wirefold createStream({output:'final'}), raw-text fast path off", group: 'wirefold', applies: () => true, run: wirefoldFinalNoFast },
  { id: 'wirefold-final-hops', label: "wirefold createStream({output:'final'}) behind 3 pass-through Transforms", group: 'wirefold', applies: (_d, s) => single(s), run: wirefoldFinalHops },
  { id: 'wirefold-stages', label: 'wirefold separate stages in stream.pipeline (final)', group: 'wirefold', applies: () => true, run: wirefoldStages },
  ...TRANSCODE_TARGETS.map(
    (to): Method => ({ id: `wirefold-to-${to}`, label: `wirefold createStream({to:'${to}'}) (transcode)`, group: 'transcode', applies: () => true, run: wirefoldTo(to) }),
  ),
];

export function methodsFor(dialect: FixtureDialect, shape: FixtureStats['shape']): Method[] {
  return METHODS.filter((m) => m.applies(dialect, shape));
}
