/**
 * Parity harness: the providers' own SDK helpers and wirefold read the same
 * bytes. The SDKs get them through a mocked `fetch` whose Response body streams
 * the bytes in seeded random chunks (so their line decoders see real cuts);
 * wirefold reads the very same kind of Response through `finals()`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import type { ChatCompletionSnapshot } from 'openai/lib/ChatCompletionStream';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Response as OpenAIResponse, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { FinalResult, FinalToolCall } from '../../lib/accumulate/types.js';
import type { DialectName, Json, StopReason, Usage } from '../../lib/events.js';
import { finals } from '../../lib/pipeline/iterate.js';
import { randomChunks } from './chunks.js';
import { corpusDir, corpusFiles, fixture, repoRoot } from './corpus.js';

export interface HttpOptions {
  /** HTTP status of the mocked response. @defaultValue 200 */
  status?: number;
  /** @defaultValue 'text/event-stream' */
  contentType?: string;
  /** Seed of the random chunking of the body. @defaultValue 1 */
  seed?: number;
  /** Largest random piece of the body, in bytes. @defaultValue 64 */
  maxChunk?: number;
}

/** A fresh Response whose body streams `bytes` in seeded random pieces (1–64 bytes, or up to `maxChunk`). */
export function mockResponse(bytes: Uint8Array, options: HttpOptions = {}): Response {
  const pieces = randomChunks(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), options.seed ?? 1, options.maxChunk);
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[i++];
      if (piece === undefined || piece.length === 0) controller.close();
      else controller.enqueue(new Uint8Array(piece));
    },
  });
  const status = options.status ?? 200;
  return new Response(body, { status, headers: { 'content-type': options.contentType ?? 'text/event-stream' } });
}

/** A `fetch` that answers every request with `bytes`; counts the requests (an SDK must make exactly one). */
export interface MockFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  calls: number;
}

export function mockFetch(bytes: Uint8Array, options: HttpOptions = {}): MockFetch {
  const fn = Object.assign(
    async (): Promise<Response> => {
      fn.calls++;
      return mockResponse(bytes, options);
    },
    { calls: 0 },
  );
  return fn;
}

/** What an SDK helper produced: its final object or what it threw, and what it parsed on the way. */
export interface Outcome<T, E> {
  /** The helper's final object (undefined when it threw). */
  value?: T;
  error?: Error;
  /** Every event/chunk the SDK parsed off the wire, in order (also when the helper threw later). */
  events: E[];
  /** Requests the SDK made (retries or continuations would show here). */
  requests: number;
}

/** A rejection that is not an Error (an SDK can reject with a plain object) keeps its JSON as the message. */
function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  let text: string;
  try {
    text = JSON.stringify(err) ?? String(err);
  } catch {
    text = String(err);
  }
  return new Error(text);
}

const BASE_URL = 'http://sdk-parity.invalid';
const API_KEY = 'dummy-key';

function openai(fetch: MockFetch): OpenAI {
  return new OpenAI({ apiKey: API_KEY, baseURL: BASE_URL, fetch, maxRetries: 0 });
}

/** OpenAI Chat: `client.chat.completions.stream(...).finalChatCompletion()`, with the chunks and the running snapshot. */
export interface ChatOutcome extends Outcome<ChatCompletion, ChatCompletionChunk> {
  /** The SDK's accumulated snapshot after the last chunk (kept when finalizing it threw). */
  snapshot?: ChatCompletionSnapshot;
}

export async function openaiChatFinal(bytes: Uint8Array, options: HttpOptions = {}): Promise<ChatOutcome> {
  const fetch = mockFetch(bytes, options);
  const out: ChatOutcome = { events: [], requests: 0 };
  try {
    const stream = openai(fetch).chat.completions.stream({ model: 'parity', messages: [{ role: 'user', content: 'hi' }] });
    stream.on('chunk', (chunk, snapshot) => {
      out.events.push(chunk);
      out.snapshot = snapshot;
    });
    out.value = await stream.finalChatCompletion();
  } catch (err) {
    out.error = asError(err);
  }
  out.requests = fetch.calls;
  return out;
}

/** OpenAI Responses: `client.responses.stream(...).finalResponse()`, with the events it parsed. */
export async function openaiResponsesFinal(bytes: Uint8Array, options: HttpOptions = {}): Promise<Outcome<OpenAIResponse, ResponseStreamEvent>> {
  const fetch = mockFetch(bytes, options);
  const out: Outcome<OpenAIResponse, ResponseStreamEvent> = { events: [], requests: 0 };
  try {
    const stream = openai(fetch).responses.stream({ model: 'parity', input: 'hi' });
    stream.on('event', (event) => {
      out.events.push(event);
    });
    out.value = await stream.finalResponse();
  } catch (err) {
    out.error = asError(err);
  }
  out.requests = fetch.calls;
  return out;
}

/**
 * OpenAI Responses without the accumulator: `client.responses.create({stream: true})`,
 * the SDK's own SSE parsing only (for streams the accumulator rejects).
 */
export async function openaiResponsesEvents(bytes: Uint8Array, options: HttpOptions = {}): Promise<Outcome<null, ResponseStreamEvent>> {
  const fetch = mockFetch(bytes, options);
  const out: Outcome<null, ResponseStreamEvent> = { events: [], requests: 0 };
  try {
    const stream = await openai(fetch).responses.create({ model: 'parity', input: 'hi', stream: true });
    for await (const event of stream) out.events.push(event);
    out.value = null;
  } catch (err) {
    out.error = asError(err);
  }
  out.requests = fetch.calls;
  return out;
}

/** Anthropic: `client.messages.stream(...).finalMessage()`, with the events it parsed after message_start. */
export interface AnthropicOutcome extends Outcome<Message, MessageStreamEvent> {
  /** The SDK's message snapshot after the last event (kept when it later threw). */
  snapshot?: Message;
}

export async function anthropicFinal(bytes: Uint8Array, options: HttpOptions = {}): Promise<AnthropicOutcome> {
  const fetch = mockFetch(bytes, options);
  const out: AnthropicOutcome = { events: [], requests: 0 };
  try {
    const client = new Anthropic({ apiKey: API_KEY, baseURL: BASE_URL, fetch, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'parity', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('streamEvent', (event, snapshot) => {
      out.events.push(event);
      out.snapshot = snapshot;
    });
    out.value = await stream.finalMessage();
  } catch (err) {
    out.error = asError(err);
  }
  out.requests = fetch.calls;
  return out;
}

/** `@google/genai` `generateContentStream`: every chunk it yields (the events), and what it threw, possibly after some chunks. */
export async function geminiChunks(bytes: Uint8Array, options: HttpOptions = {}): Promise<Outcome<null, GenerateContentResponse>> {
  const fetch = mockFetch(bytes, options);
  const out: Outcome<null, GenerateContentResponse> = { events: [], requests: 0 };
  try {
    const ai = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: BASE_URL, fetch, retryOptions: { attempts: 1 } } });
    // Automatic continuation would re-request a stream that ends without a
    // finishReason (the mock would replay the same bytes): off.
    const stream = await ai.models.generateContentStream({ model: 'parity', contents: 'hi', config: { automaticContinuation: false } });
    for await (const chunk of stream) out.events.push(chunk);
    out.value = null;
  } catch (err) {
    out.error = asError(err);
  }
  out.requests = fetch.calls;
  return out;
}

/** wirefold's finals over the same kind of Response (same chunking), never throwing: a thrown error is returned. */
export async function ourFinals(
  bytes: Uint8Array,
  dialect: DialectName,
  options: HttpOptions = {},
): Promise<{ finals: FinalResult[]; thrown: Error | null }> {
  const out: FinalResult[] = [];
  try {
    for await (const f of finals(mockResponse(bytes, options), { dialect })) out.push(f);
    return { finals: out, thrown: null };
  } catch (err) {
    return { finals: out, thrown: asError(err) };
  }
}

// ---------------------------------------------------------------------------
// Inputs and the compared shape
// ---------------------------------------------------------------------------

export interface ParityInput {
  /** `<corpus dir>/<file>` or `fixtures/<dialect>/<file>`. */
  name: string;
  bytes: Buffer;
  /** The HTTP status and content type the bytes came with (`.body` files: from PROVENANCE.md). */
  http: HttpOptions;
}

/** `.body` files are 4xx responses: their status and content type as PROVENANCE.md records them. */
function bodyHttp(name: string): HttpOptions {
  const provenance = readFileSync(join(corpusDir, 'PROVENANCE.md'), 'utf8');
  const row = provenance.split('\n').find((line) => line.startsWith(`| \`${name}\``));
  const status = row === undefined ? undefined : /HTTP (\d{3})/.exec(row)?.[1];
  if (row === undefined || status === undefined) throw new Error(`no HTTP status for ${name} in PROVENANCE.md`);
  return {
    status: Number(status),
    contentType: row.includes('application/json') ? 'application/json' : 'text/event-stream',
  };
}

/** Every corpus file of `dirs` and every fixture of `fixtureDirs`. */
export function parityInputs(dirs: string[], fixtureDirs: string[]): ParityInput[] {
  const out: ParityInput[] = [];
  for (const f of corpusFiles(dirs)) out.push({ name: f.name, bytes: f.bytes, http: f.name.endsWith('.body') ? bodyHttp(f.name) : {} });
  for (const dir of fixtureDirs) {
    const full = join(repoRoot, 'fixtures', dir);
    for (const file of readdirSync(full).sort()) out.push({ name: `fixtures/${dir}/${file}`, bytes: fixture(`${dir}/${file}`), http: {} });
  }
  return out;
}

/** What is compared for one choice. */
export interface ChoiceView {
  text: string;
  refusal: string | null;
  reasoning: string;
  toolCalls: FinalToolCall[];
  stopReason: StopReason | null;
  providerReason: string | null;
}

/** Choice k of one of our finals (choice 0 is the top level). */
export function ourChoice(f: FinalResult, k = 0): ChoiceView | undefined {
  if (f.choices !== undefined) {
    const c = f.choices[k];
    return c === undefined
      ? undefined
      : { text: c.text, refusal: c.refusal, reasoning: c.reasoning, toolCalls: c.toolCalls, stopReason: c.stopReason, providerReason: c.providerReason };
  }
  if (k !== 0) return undefined;
  return { text: f.text, refusal: f.refusal, reasoning: f.reasoning, toolCalls: f.toolCalls, stopReason: f.stopReason, providerReason: f.providerReason };
}

/**
 * Arguments text as our FinalToolCall documents it: parsed JSON, `{}` for
 * empty text, the raw text when it is not valid JSON.
 */
export function parsedArguments(text: string): Json {
  if (text === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** Every usage count null: what a final holds when the response reported no usage. */
export const NO_USAGE: Usage = { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
