/**
 * examples/gateway run as a user runs it: its files copied into the project
 * test/helpers/packed.ts installed the packed package into (`import … from
 * 'wirefold'` is the tarball's), `node server.js` in a child process per
 * configuration, real sockets on 127.0.0.1 throughout (no http mock).
 *
 * In front: the official clients (openai's chat.completions.stream() and
 * responses.stream(), @anthropic-ai/sdk's messages.stream(), @google/genai's
 * generateContentStream). Behind: a local upstream that replays recorded
 * captures (fixtures/corpus and fixtures/<format>) of the format the gateway
 * is configured for, chosen by the request's model, and records what it was
 * sent. For every caller format with a target × every upstream format, each
 * client's own accumulator must get the text, tool calls (names, parsed
 * arguments), usage and stop reason of wirefold's final of the capture, less
 * what the target cannot carry (test/encode/expect), which the gateway's loss
 * log names. The AI SDK's providers (streamText) on a sample of each pair:
 * the text and client tool calls. Then the signature round trip, a bounded
 * load test, a slow reader, a client disconnect, and each safety rule.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { jsonSchema, streamText, tool, type LanguageModel, type ToolSet } from 'ai';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { FinalResult } from '../lib/accumulate/types.js';
import type { DialectName, Json } from '../lib/events.js';
import type { LossKind, TargetName } from '../lib/encode/types.js';
import { createOutputStage } from '../lib/pipeline/create-stream.js';
import { finals as readFinals } from '../lib/pipeline/iterate.js';
import { runStage } from '../lib/stage.js';
import { EXPECTATIONS } from './encode/expect/index.js';
import { repoRoot } from './helpers/corpus.js';
import { parsedArguments } from './helpers/sdk.js';
import { cleanEnv, packed, workDir, type Packed } from './helpers/packed.js';

t.setTimeout(300_000); // the load test alone runs 30 s (more on a busy runner)

type Format = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';
const FORMATS: Format[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];

/** Provider keys the gateways get from their environment: none may show up anywhere a caller or a log can see. */
const KEYS = {
  OPENAI_API_KEY: 'sk-Q9f8e7d6c5b4a39281706f5e4d3c2b1a0',
  ANTHROPIC_API_KEY: 'sk-ant-K0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  GEMINI_API_KEY: 'AIzaZ5c4b3a29180f7e6d5c4b3a2918f7e6',
};
const CALLER_TOKEN = 'gw-caller-token-3b1f0e9d8c7a6b5c';

// ---------------------------------------------------------------------------------------------
// The captures each upstream replays

/** The corpus and fixture directories of each upstream format (SSE captures). */
const CAPTURE_DIRS: Record<Format, string[]> = {
  'openai-chat': ['corpus/openai-chat', 'openai-chat'],
  'openai-responses': ['corpus/openai-responses', 'openai-responses'],
  'anthropic-messages': ['corpus/anthropic-messages', 'anthropic-messages'],
  gemini: ['corpus/gemini-sse', 'gemini'],
};

interface Capture {
  /** The model the upstream answers with this capture. */
  model: string;
  name: string;
  bytes: Buffer;
  final: FinalResult;
}

/** The SSE captures of `format` with one successful response (what a single request gets back). */
function capturesOf(format: Format): Capture[] {
  const out: Capture[] = [];
  for (const dir of CAPTURE_DIRS[format]) {
    const full = join(repoRoot, 'fixtures', dir);
    for (const file of readdirSync(full).sort()) {
      if (!file.endsWith('.sse')) continue;
      const bytes = readFileSync(join(full, file));
      const finals = runStage(createOutputStage({ output: 'final', dialect: format }), [bytes]) as FinalResult[];
      if (finals.length !== 1 || finals[0]!.stopReason === 'error' || finals[0]!.dialect !== format) continue;
      out.push({ model: `cap-${format}-${out.length}`, name: `${dir}/${file}`, bytes, final: finals[0]! });
    }
  }
  return out;
}

const CAPTURES = new Map<Format, Capture[]>(FORMATS.map((f) => [f, capturesOf(f)]));
const BY_MODEL = new Map<string, Capture>([...CAPTURES.values()].flat().map((c) => [c.model, c]));

// ---------------------------------------------------------------------------------------------
// The local upstream

interface Received {
  path: string;
  format: Format;
  model: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Resolves when the gateway's request socket closes before the answer was complete (or never). */
  closedEarly: Promise<void>;
  /** Bytes the upstream managed to hand to its socket (the slow-reader test). */
  written: number;
}

interface Upstream {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** What the clients throw for an HTTP error or an error event: the status and the error body. */
interface ApiError {
  status?: number;
  error?: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function formatOfPath(path: string): { format: Format; model: string | null } | null {
  if (path === '/v1/chat/completions') return { format: 'openai-chat', model: null };
  if (path === '/v1/responses') return { format: 'openai-responses', model: null };
  if (path === '/v1/messages') return { format: 'anthropic-messages', model: null };
  const m = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(path);
  return m ? { format: 'gemini', model: decodeURIComponent(m[1]!) } : null;
}

/** A chat stream of `n` text deltas saying `nonce`, with the usage the nonce sets (the load test's). */
function chatStream(nonce: string, n: number): string[] {
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-${nonce}`, object: 'chat.completion.chunk', created: 1, model: 'load', choices, ...extra })}\n\n`;
  const frames = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
  for (let i = 0; i < n; i++) frames.push(chunk([{ index: 0, delta: { content: `${nonce}:${i} ` }, finish_reason: null }]));
  frames.push(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  frames.push(chunk([], { usage: { prompt_tokens: nonce.length, completion_tokens: n, total_tokens: nonce.length + n } }));
  frames.push('data: [DONE]\n\n');
  return frames;
}

/** The text of frame `i` of a slow reader's stream (2 KiB, saying its nonce and number). */
const slowText = (nonce: string, i: number): string => `${nonce}:${i}:`.padEnd(2048, '.');
/** Frames in a slow reader's stream: 256 MiB of text, more than a reader at 1 MiB/s reads in the test. */
const SLOW_FRAMES = 128 * 1024;

/** The opening frame of a response in each format (what a stalled upstream sent before it stalled). */
const OPENING: Record<Format, string> = {
  'openai-chat': chatStream('stall', 0)[0]!,
  'anthropic-messages': `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_stall', type: 'message', role: 'assistant', model: 'stall', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n`,
  'openai-responses': `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_stall', object: 'response', status: 'in_progress', model: 'stall', output: [] } })}\n\n`,
  gemini: `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'stall' }] }, index: 0 }], responseId: 'stall' })}\n\n`,
};

/**
 * The upstream's answer, by model: `cap-…` replays that capture (in 1-4 KiB writes); `load-<nonce>`
 * dribbles a chat stream (20 frames, 20 ms apart); `slow-<nonce>` writes a chat stream of 256 MiB of text
 * (SLOW_FRAMES frames of slowText) as fast as the socket takes it; `big` writes a chat stream of
 * 256 MiB as fast as the socket takes it; `stall` (or `stall-<nonce>`) sends the opening frame and nothing more; `reset` sends it and breaks
 * the connection; `hang` never answers;
 * `error-401` answers 401 quoting the key it was sent, as OpenAI's "Incorrect API key" does.
 */
async function answer(req: http.IncomingMessage, res: http.ServerResponse, rec: Received): Promise<void> {
  const model = rec.model;
  if (model === 'hang') return;
  if (model === 'error-401') {
    const key = String(req.headers.authorization ?? req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? '');
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}. You can find your API key at …`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const write = (data: string | Buffer): Promise<void> => {
    rec.written += Buffer.byteLength(data);
    if (res.write(data)) return Promise.resolve();
    return new Promise((r) => {
      const go = () => (res.off('drain', go), res.off('close', go), r());
      res.on('drain', go).on('close', go);
    });
  };
  if (model === 'reset') {
    await write(OPENING[rec.format]);
    await sleep(50);
    res.socket?.destroy(); // the connection breaks mid-stream
    return;
  }
  if (model === 'stall' || model.startsWith('stall-')) {
    await write(OPENING[rec.format]);
    return; // never ends: the gateway's idle timeout or the caller ends it
  }
  if (model.startsWith('load-')) {
    for (const frame of chatStream(model.slice(5), 20)) {
      if (res.destroyed) return;
      await write(frame);
      await sleep(20);
    }
    res.end();
    return;
  }
  if (model.startsWith('slow-')) {
    const nonce = model.slice(5);
    const chunk = (choices: unknown[], extra: object = {}) =>
      `data: ${JSON.stringify({ id: `chatcmpl-${nonce}`, object: 'chat.completion.chunk', created: 1, model: 'slow', choices, ...extra })}\n\n`;
    await write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    for (let i = 0; i < SLOW_FRAMES && !res.destroyed; i++) await write(chunk([{ index: 0, delta: { content: slowText(nonce, i) }, finish_reason: null }]));
    await write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
    await write(chunk([], { usage: { prompt_tokens: 1, completion_tokens: SLOW_FRAMES, total_tokens: SLOW_FRAMES + 1 } }));
    await write('data: [DONE]\n\n');
    res.end();
    return;
  }
  if (model === 'big') {
    const frame = chatStream('x'.repeat(4000), 1)[1]!;
    await write(chatStream('big', 0)[0]!);
    while (!res.destroyed && rec.written < 256 * 1024 * 1024) await write(frame);
    res.end();
    return;
  }
  const capture = BY_MODEL.get(model);
  if (capture === undefined) {
    res.end(`data: ${JSON.stringify({ error: { message: `the test upstream has no capture for model ${model}` } })}\n\n`);
    return;
  }
  let size = 1024;
  for (let i = 0; i < capture.bytes.length; i += size, size = 1024 * (1 + (i % 4))) await write(capture.bytes.subarray(i, i + size));
  res.end();
}

/** The upstream on plain HTTP, or on HTTPS with `tls` (a key and its self-signed certificate). */
async function startUpstream(tls?: { key: Buffer; cert: Buffer }): Promise<Upstream> {
  const received: Received[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const where = formatOfPath(path);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded as {}
      }
      if (where === null) {
        res.writeHead(404).end();
        return;
      }
      let early: () => void = () => {};
      const closedEarly = new Promise<void>((r) => (early = r));
      res.on('close', () => {
        if (!res.writableFinished) early();
      });
      const rec: Received = { path, format: where.format, model: where.model ?? String(body.model ?? ''), headers: req.headers, body, closedEarly, written: 0 };
      received.push(rec);
      answer(req, res, rec).catch(() => res.destroy());
    });
  };
  const server = tls === undefined ? http.createServer(handler) : https.createServer(tls, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    received,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

// ---------------------------------------------------------------------------------------------
// The gateway processes

interface Gateway {
  url: string;
  child: ChildProcess;
  /** Every line it wrote to stderr and stdout so far (its logs: JSON lines). */
  lines: string[];
  logs(): Record<string, unknown>[];
  stop(): Promise<void>;
}

const allOutput: string[] = [];

async function startGateway(dir: string, env: Record<string, string>): Promise<Gateway> {
  const child = spawn(process.execPath, ['server.js'], { cwd: dir, env: { ...cleanEnv(), ...KEYS, GATEWAY_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let buffered = '';
  const onData = (d: Buffer) => {
    allOutput.push(d.toString());
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start within 10 s:\n${lines.join('\n')}`)), 10_000);
    const check = () => {
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'listening') {
            clearTimeout(timer);
            child.stdout!.off('data', check);
            child.stderr!.off('data', check);
            resolve(entry.url!);
            return;
          }
        } catch {
          // not a log line
        }
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}) before listening:\n${lines.join('\n')}${buffered}`));
    });
  });
  return {
    url,
    child,
    lines,
    logs: () =>
      lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits (up to 5 s) for a log line of `g` that `match` accepts, and returns it. */
async function untilLogged(g: Gateway, match: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = g.logs().find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('the gateway wrote no such log line within 5 s');
    await sleep(20);
  }
}

/** A gateway's whole run when it is not meant to start: exit code and output. */
function runGateway(dir: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['server.js'], { cwd: dir, env: { ...cleanEnv(), ...KEYS, GATEWAY_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output })));
  });
}

/** Resident memory of a process (Linux), in bytes. */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) * 1024;
}

// ---------------------------------------------------------------------------------------------
// The callers: each official client's own accumulator, viewed as the expectations see a final

interface Seen {
  text: string;
  toolCalls: { name: string; arguments: Json }[];
  stop: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
}

/** As FinalToolCall: parsed JSON, `{}` when empty (or blank), the text itself when it is not JSON. */
const parsed = (text: string): Json => (text.trim() === '' ? {} : parsedArguments(text));

const openaiClient = (url: string, key = 'unused') => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
const anthropicClient = (url: string, key = 'unused') => new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
const genaiClient = (url: string, key = 'unused') => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } } });

const TOOL = { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const CALLERS: Record<Format, (url: string, model: string) => Promise<Seen>> = {
  async 'openai-chat'(url, model) {
    const stream = openaiClient(url).chat.completions.stream({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [{ type: 'function', function: TOOL }],
      max_tokens: 256,
      temperature: 0.5,
    });
    const c = await stream.finalChatCompletion();
    const choice = c.choices[0]!;
    return {
      text: (choice.message.content ?? '') + (choice.message.refusal ?? ''),
      toolCalls: (choice.message.tool_calls ?? []).flatMap((tc) => (tc.type === 'function' ? [{ name: tc.function.name, arguments: parsed(tc.function.arguments) }] : [])),
      stop: choice.finish_reason,
      inputTokens: c.usage?.prompt_tokens ?? null,
      outputTokens: c.usage?.completion_tokens ?? null,
    };
  },
  async 'anthropic-messages'(url, model) {
    const stream = anthropicClient(url).messages.stream({
      model,
      system: 'Be brief.',
      max_tokens: 256,
      temperature: 0.5,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }],
    });
    const m = await stream.finalMessage();
    const blocks = m.content as { type: string; text?: string; name?: string; input?: unknown }[];
    return {
      text: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''),
      toolCalls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name!, arguments: b.input as Json })),
      stop: m.stop_reason,
      inputTokens: m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0) + (m.usage.cache_creation_input_tokens ?? 0),
      outputTokens: m.usage.output_tokens,
    };
  },
  async 'openai-responses'(url, model) {
    const stream = openaiClient(url).responses.stream({
      model,
      instructions: 'Be brief.',
      input: 'hi',
      tools: [{ type: 'function', strict: false, ...TOOL }],
      max_output_tokens: 256,
      temperature: 0.5,
    });
    const r = await stream.finalResponse();
    const refusals = r.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((p) => (p.type === 'refusal' ? [p.refusal] : [])) : []));
    return {
      text: r.output_text + refusals.join(''),
      toolCalls: r.output.flatMap((item) =>
        item.type === 'function_call' ? [{ name: item.name, arguments: parsed(item.arguments) }] : item.type === 'custom_tool_call' ? [{ name: item.name, arguments: parsed(item.input) }] : [],
      ),
      stop: r.status === 'incomplete' ? `incomplete:${r.incomplete_details?.reason ?? ''}` : (r.status ?? null),
      inputTokens: r.usage?.input_tokens ?? null,
      outputTokens: r.usage?.output_tokens ?? null,
    };
  },
  async gemini(url, model) {
    const stream = await genaiClient(url).models.generateContentStream({
      model,
      contents: 'hi',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 256, temperature: 0.5, tools: [{ functionDeclarations: [{ name: TOOL.name, description: TOOL.description, parametersJsonSchema: TOOL.parameters }] }], automaticContinuation: false } as never,
    });
    const seen: Seen = { text: '', toolCalls: [], stop: null, inputTokens: null, outputTokens: null };
    const calls: { id?: string; name: string; arguments: Json }[] = [];
    /** functionResponses in the model's own content: the calls they answer ran server-side (MCP). */
    const answered: { id?: string; name?: string }[] = [];
    for await (const chunk of stream) {
      // candidate 0 (a chunk holds the candidates it has parts for, each with its index)
      const candidate = chunk.candidates?.find((c) => (c.index ?? 0) === 0);
      for (const part of candidate?.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.thought !== true) seen.text += part.text;
        if (part.functionCall) calls.push({ id: part.functionCall.id, name: part.functionCall.name!, arguments: (part.functionCall.args ?? {}) as Json });
        if (part.functionResponse) answered.push({ id: part.functionResponse.id, name: part.functionResponse.name });
      }
      seen.stop = candidate?.finishReason ?? seen.stop;
      const u = chunk.usageMetadata;
      if (u) {
        // the prompt of server-side tools counts as input (as wirefold reads it)
        seen.inputTokens = u.promptTokenCount === undefined ? null : u.promptTokenCount + (u.toolUsePromptTokenCount ?? 0);
        seen.outputTokens = u.candidatesTokenCount === undefined && u.thoughtsTokenCount === undefined ? null : (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
      }
    }
    // the client's calls: those no functionResponse of the model's own answers (by id, else by name)
    seen.toolCalls = calls
      .filter((c) => !answered.some((a) => (c.id !== undefined && a.id !== undefined ? a.id === c.id : a.name === c.name)))
      .map((c) => ({ name: c.name, arguments: c.arguments }));
    return seen;
  },
};

/** The stop word each caller's client shows for a unified stop reason (across families). */
const STOP_WORD: Record<Format, Record<string, string>> = {
  'openai-chat': { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length', refusal: 'content_filter', other: 'stop' },
  'anthropic-messages': { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens', refusal: 'refusal', other: 'end_turn' },
  'openai-responses': { end: 'completed', tool_use: 'completed', max_tokens: 'incomplete:max_output_tokens', refusal: 'incomplete:content_filter' },
  gemini: { end: 'STOP', tool_use: 'STOP', max_tokens: 'MAX_TOKENS', refusal: 'SAFETY', other: 'OTHER' },
};

/** What the caller's client must see for a capture's final: the expectations of its target (what it carries). */
function expectedSeen(caller: Format, f: FinalResult): Omit<Seen, 'stop'> & { stop: string | null } {
  const want = EXPECTATIONS[caller as TargetName].expected(f);
  const text = caller === 'openai-chat' || caller === 'openai-responses' ? want.text + (want.refusal ?? '') : want.text;
  const sameFamily = EXPECTATIONS[caller as TargetName].sameFamily(f.dialect);
  // across families the reason is the caller's own word for the unified one; in the family, as it came
  let stop: string | null = sameFamily ? null : (STOP_WORD[caller][want.stopReason] ?? null);
  if (caller === 'openai-chat' && f.stopReason === 'refusal' && f.refusal !== null) stop = 'stop';
  return {
    text,
    toolCalls: want.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
    stop,
    inputTokens: want.usage.inputTokens,
    outputTokens: want.usage.outputTokens,
  };
}

// ---------------------------------------------------------------------------------------------

let p: Packed;
let dir: string;
let upstream: Upstream;
let callers: Format[] = [];
const gateways = new Map<Format, Gateway>();

t.before(async () => {
  try {
    p = await packed();
  } catch (err) {
    throw new Error(`the gateway runs from the packed package, which could not be built or installed: ${(err as Error).message}`);
  }
  dir = workDir(p, 'gateway');
  const example = join(repoRoot, 'examples', 'gateway');
  for (const f of readdirSync(example)) if (f.endsWith('.js') || f === 'package.json') copyFileSync(join(example, f), join(dir, f));
  // the targets the INSTALLED package writes decide which caller formats the gateway serves
  const installed = (await import(pathToFileURL(join(p.pkgDir, 'dist', 'index.js')).href)) as { targetNames: readonly string[] };
  callers = FORMATS.filter((f) => installed.targetNames.includes(f));
  upstream = await startUpstream();
  await Promise.all(
    FORMATS.map(async (format) => {
      gateways.set(
        format,
        await startGateway(dir, {
          GATEWAY_UPSTREAM_FORMAT: format,
          GATEWAY_UPSTREAM_URL: upstream.url,
          GATEWAY_CONNECT_TIMEOUT_MS: '1500',
          GATEWAY_IDLE_TIMEOUT_MS: '1500',
          GATEWAY_MAX_BODY_BYTES: String(256 * 1024),
        }),
      );
    }),
  );
});

t.teardown(async () => {
  await Promise.all([...gateways.values()].map((g) => g.stop()));
  await upstream?.close();
});

const gw = (format: Format): Gateway => gateways.get(format)!;

t.test('every caller format with a target × every upstream format: the client accumulates the final, less what the loss log names', async (t) => {
  t.ok(callers.includes('openai-chat') && callers.includes('anthropic-messages'), `caller formats with a target: ${callers.join(', ')}`);
  for (const caller of callers) {
    for (const up of FORMATS) {
      await t.test(`${caller} client → ${up} upstream`, async (t) => {
        const g = gw(up);
        const captures = CAPTURES.get(up)!;
        t.ok(captures.length >= 5, `${captures.length} captures`);
        let ok = 0;
        // four requests at a time; the checks in capture order
        const results: (Seen | Error)[] = [];
        for (let i = 0; i < captures.length; i += 4) {
          const batch = captures.slice(i, i + 4).map((c) => CALLERS[caller](g.url, c.model).catch((err: unknown) => err as Error));
          results.push(...(await Promise.all(batch)));
        }
        // the same wire on both sides passes as it came: the client must see exactly what it sees
        // from the upstream itself (its failures included: an upstream quirk reaches it unchanged)
        if (caller === up) {
          for (const [i, c] of captures.entries()) {
            const direct = await CALLERS[caller](upstream.url, c.model).catch((err: unknown) => err as Error);
            const seen = results[i]!;
            if (direct instanceof Error || seen instanceof Error) {
              t.equal(seen instanceof Error ? seen.message : 'no failure', direct instanceof Error ? direct.message : 'no failure', `${c.name}: the same failure as from the upstream`);
            } else t.strictSame(seen, direct, `${c.name}: what the client sees from the upstream itself`);
            ok++;
          }
          for (const c of captures) await untilLogged(g, (e) => e.msg === 'request' && e.caller === caller && e.model === c.model);
          t.strictSame(
            g.logs().filter((e) => e.msg === 'loss' && e.caller === caller),
            [],
            'nothing lost: no loss log line',
          );
          t.equal(ok, captures.length, 'every capture through the client');
          return;
        }
        for (const [i, c] of captures.entries()) {
          const seen = results[i]!;
          if (seen instanceof Error) {
            t.fail(`${c.name}: the client failed: ${seen.message}`);
            continue;
          }
          const want = expectedSeen(caller, c.final);
          t.equal(seen.text, want.text, `${c.name}: text`);
          // arguments cut short (max tokens mid-input) are partial-parsed differently by each client
          const cut = want.toolCalls.some((tc) => typeof tc.arguments === 'string' && /^\s*\{/.test(tc.arguments));
          if (cut) t.strictSame(seen.toolCalls.map((tc) => tc.name), want.toolCalls.map((tc) => tc.name), `${c.name}: tool call names (arguments cut short)`);
          else t.strictSame(seen.toolCalls, want.toolCalls, `${c.name}: tool calls`);
          if (want.stop !== null) t.equal(seen.stop, want.stop, `${c.name}: stop reason`);
          t.equal(seen.inputTokens, want.inputTokens, `${c.name}: input tokens`);
          t.equal(seen.outputTokens, want.outputTokens, `${c.name}: output tokens`);
          ok++;
        }
        // what the target cannot carry is named in the gateway's loss log lines, by model (each
        // written when its response is done, maybe after the client has read the end)
        for (const c of captures) await untilLogged(g, (e) => e.msg === 'request' && e.caller === caller && e.model === c.model);
        const reported = new Map<string, Set<string>>();
        for (const e of g.logs()) {
          if (e.msg !== 'loss' || e.caller !== caller) continue;
          const kinds = reported.get(String(e.model)) ?? new Set<string>();
          for (const r of e.reports as { dropped: { what: string }[] }[]) for (const d of r.dropped) kinds.add(d.what);
          reported.set(String(e.model), kinds);
        }
        for (const c of captures) {
          const must: LossKind[] = EXPECTATIONS[caller as TargetName].mustReport(c.final);
          const got = reported.get(c.model) ?? new Set();
          const missing = must.filter((k) => !got.has(k));
          t.strictSame(missing, [], `${c.name}: the loss log names ${must.join(', ') || 'nothing it must'}`);
        }
        t.equal(ok, captures.length, 'every capture through the client');
      });
    }
  }
});

/** The AI SDK's provider for each caller format, pointed at a gateway. */
const AI_SDK: Record<Format, (url: string, model: string) => LanguageModel> = {
  'openai-chat': (url, model) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'unused' }).chat(model),
  'openai-responses': (url, model) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'unused' }).responses(model),
  'anthropic-messages': (url, model) => createAnthropic({ baseURL: `${url}/v1`, apiKey: 'unused' })(model),
  gemini: (url, model) => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: 'unused' })(model),
};

t.test('the AI SDK providers as callers (streamText): the text and client tool calls of the final, for a sample of each pair', async (t) => {
  for (const caller of callers) {
    await Promise.all(
      FORMATS.map(async (up) => {
        // recorded captures (the hand-written fixtures hold shapes the AI SDK's schemas refuse, e.g.
        // Vertex's integer enums), one choice, no hosted calls (the AI SDK's providers take some of
        // them, e.g. Gemini's server-side MCP calls, for client calls, whatever the gateway does):
        // every fourth, and every one with client tool calls
        const all = CAPTURES.get(up)!.filter(
          (c) => c.name.startsWith('corpus/') && c.final.choices === undefined && !c.final.content.some((b) => b.type === 'tool_call' && b.providerExecuted === true),
        );
        const sample = all.filter((c, i) => i % 4 === 0 || c.final.toolCalls.length > 0);
        let checked = 0;
        for (const c of sample) {
          const want = expectedSeen(caller, c.final);
          // the tools the response calls, declared with a schema that takes any input (no execute: the calls come back)
          const tools: ToolSet = {};
          for (const tc of want.toolCalls) tools[tc.name] = tool({ description: tc.name, inputSchema: jsonSchema({ type: 'object', additionalProperties: true }) });
          const read = async (url: string): Promise<{ text: string; calls: { name: string; arguments: Json }[] } | Error> => {
            const result = streamText({ model: AI_SDK[caller](url, c.model), prompt: 'hi', tools, maxRetries: 0, onError: () => {} });
            try {
              const text = await result.text;
              // the provider's own hosted calls (web search…) are not client calls
              const calls = (await result.toolCalls).filter((tc) => tc.providerExecuted !== true).map((tc) => ({ name: tc.toolName, arguments: tc.input as Json }));
              return { text, calls };
            } catch (err) {
              return err as Error;
            }
          };
          const got = await read(gw(up).url);
          if (caller === up) {
            // the same wire passes as it came: what the AI SDK reads from the upstream itself
            const direct = await read(upstream.url);
            t.strictSame(
              got instanceof Error ? got.message : got,
              direct instanceof Error ? direct.message : direct,
              `${caller} via the AI SDK ← ${up}: ${c.name}: as from the upstream itself`,
            );
            checked++;
            continue;
          }
          if (got instanceof Error) {
            t.fail(`${caller} via the AI SDK ← ${up}: ${c.name}: ${got.message}`);
            continue;
          }
          const { text, calls } = got;
          // the AI SDK does not keep a refusal apart from the text
          t.equal(text, want.text, `${caller} via the AI SDK ← ${up}: ${c.name}: text`);
          const cut = want.toolCalls.some((tc) => typeof tc.arguments === 'string');
          if (!cut) t.strictSame(calls, want.toolCalls, `${caller} via the AI SDK ← ${up}: ${c.name}: tool calls`);
          checked++;
        }
        t.ok(checked > 0, `${caller} via the AI SDK ← ${up}: ${checked} captures`);
      }),
    );
  }
});

t.test('a caller format with no target answers 501 in its own error form, naming the target', async (t) => {
  const missing = FORMATS.filter((f) => !callers.includes(f));
  if (missing.length === 0) {
    t.pass('every caller format has a target in the installed package');
    return;
  }
  for (const caller of missing) {
    const path = caller === 'openai-chat' ? '/v1/chat/completions' : caller === 'openai-responses' ? '/v1/responses' : caller === 'anthropic-messages' ? '/v1/messages' : '/v1beta/models/m:streamGenerateContent?alt=sse';
    const body = caller === 'gemini' ? { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } : caller === 'openai-responses' ? { model: 'm', input: 'hi', stream: true } : { model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] };
    const res = await post(gw('openai-chat').url + path, body);
    t.equal(res.status, 501, `${caller}: 501`);
    t.match(res.text, new RegExp(`no encoder for ${caller}`), `${caller}: names the target`);
    const json = JSON.parse(res.text) as { error?: { message?: string; status?: string; type?: string } };
    if (caller === 'gemini') t.equal(json.error?.status, 'UNIMPLEMENTED', 'Gemini error form');
    else t.equal(json.error?.type, caller === 'anthropic-messages' ? 'api_error' : 'not_implemented_error', 'the error form of the caller');
  }
});

// ---------------------------------------------------------------------------------------------
// Raw HTTP for what the clients hide (status, trailers, headers)

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  trailers: NodeJS.Dict<string>;
  text: string;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const data = typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', te: 'trailers', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, trailers: res.trailers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

t.test('the loss report: an HTTP trailer (x-wirefold-loss) and a log line, both the same reports', async (t) => {
  // an Anthropic thinking turn read as OpenAI Chat: Chat has no place for the reasoning
  const c = CAPTURES.get('anthropic-messages')!.find((x) => x.final.reasoning !== '')!;
  const res = await post(`${gw('anthropic-messages').url}/v1/chat/completions`, { model: c.model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(res.status, 200);
  t.match(res.headers.trailer, /x-wirefold-loss/i, 'the trailer is announced');
  const trailer = JSON.parse(res.trailers['x-wirefold-loss'] ?? 'null') as { to: string; dropped: { what: string }[] }[];
  t.ok(Array.isArray(trailer) && trailer.length === 1, 'one report (one response)');
  t.equal(trailer[0]?.to, 'openai-chat');
  t.ok(trailer[0]?.dropped.some((d) => d.what === 'reasoning'), 'reasoning is named');
  const id = res.headers['x-gateway-request-id'];
  const line = await untilLogged(gw('anthropic-messages'), (e) => e.msg === 'loss' && e.id === id);
  t.strictSame(line?.reports, trailer, 'the log line holds the same reports');
});

t.test('the signature round trip: an Anthropic thinking turn through the gateway as Anthropic, and sent back', async (t) => {
  const c = CAPTURES.get('anthropic-messages')!.find((x) => x.final.signatures.length > 0 && x.final.reasoning !== '')!;
  t.ok(c, 'a thinking capture with a signature');
  const original = c.final.signatures.map((s) => s.signature);
  const client = anthropicClient(gw('anthropic-messages').url);
  const m = await client.messages.stream({ model: c.model, max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
  const thinking = m.content.filter((b) => b.type === 'thinking');
  t.strictSame(
    thinking.map((b) => Buffer.from(b.signature)),
    original.slice(0, thinking.length).map((s) => Buffer.from(s)),
    'finalMessage() has the signature bytes of the capture',
  );
  // the next turn sends the assistant's content back as it came (with a tool result when it called one)
  const calls = m.content.filter((b) => b.type === 'tool_use');
  const before = upstream.received.length;
  await client.messages
    .stream({
      model: c.model,
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: m.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: calls.length > 0 ? calls.map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: 'sunny' })) : 'go on' },
      ],
    })
    .finalMessage();
  const sent = upstream.received.slice(before).find((r) => r.format === 'anthropic-messages')!;
  const assistant = (sent.body.messages as { role: string; content: { type: string; signature?: string }[] }[])[1]!;
  t.strictSame(
    assistant.content.filter((b) => b.type === 'thinking').map((b) => Buffer.from(b.signature!)),
    thinking.map((b) => Buffer.from(b.signature)),
    'the upstream got the same signature bytes back',
  );
});

t.test('request bodies are translated for the shared fields; OpenAI Chat upstream asks for the usage', async (t) => {
  const model = CAPTURES.get('openai-chat')![0]!.model;
  const before = upstream.received.length;
  await CALLERS['anthropic-messages'](gw('openai-chat').url, model);
  const chat = upstream.received.slice(before).find((r) => r.format === 'openai-chat')!;
  t.match(chat.body, {
    model,
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: 256,
    temperature: 0.5,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOL.parameters } }],
  });
  const model2 = CAPTURES.get('anthropic-messages')![0]!.model;
  const before2 = upstream.received.length;
  await CALLERS['openai-chat'](gw('anthropic-messages').url, model2);
  const messages = upstream.received.slice(before2).find((r) => r.format === 'anthropic-messages')!;
  t.match(messages.body, { model: model2, stream: true, max_tokens: 256, temperature: 0.5, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [{ name: 'get_weather', input_schema: TOOL.parameters }] });
  t.equal(messages.headers['anthropic-version'], '2023-06-01', 'the gateway sets the API version');
  // a tool round trip from Chat into Gemini: the call's name goes with its result
  const model3 = CAPTURES.get('gemini')![0]!.model;
  const before3 = upstream.received.length;
  await openaiClient(gw('gemini').url)
    .chat.completions.stream({
      model: model3,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: TOOL }],
      tool_choice: 'required',
    })
    .finalChatCompletion();
  const gem = upstream.received.slice(before3).find((r) => r.format === 'gemini')!;
  t.equal(gem.model, model3, 'the model in the path');
  t.match(gem.body, {
    contents: [
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { result: 'sunny' } } }] },
    ],
    tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: TOOL.parameters }] }],
    toolConfig: { functionCallingConfig: { mode: 'ANY' } },
  });
});

// ---------------------------------------------------------------------------------------------
// Load, memory, disconnects

t.test('load: 200 concurrent streams for 30 s on loopback: none lost or mixed; slow readers hold their upstream back, memory bounded; disconnects abort their upstream', async (t) => {
  // a gateway of its own, with timeouts that a saturated 2-core runner does not trip
  const g = await startGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: upstream.url, GATEWAY_CONNECT_TIMEOUT_MS: '20000', GATEWAY_IDLE_TIMEOUT_MS: '20000' });
  t.teardown(() => g.stop());
  const agent = new http.Agent({ keepAlive: true, maxSockets: 250 });
  const CONCURRENCY = 200;
  const DURATION = Number(process.env['GATEWAY_LOAD_MS'] ?? 30_000);
  // of the 200 callers, 5 read one endless stream at ≈1 MiB/s for the whole test and 10 hang up after the first bytes
  const role = (w: number): 'slow' | 'disconnect' | 'stream' => (w % 40 === 0 ? 'slow' : w % 20 === 1 ? 'disconnect' : 'stream');
  const pathOf = (caller: Format, model: string): string =>
    caller === 'openai-chat'
      ? '/v1/chat/completions'
      : caller === 'openai-responses'
        ? '/v1/responses'
        : caller === 'anthropic-messages'
          ? '/v1/messages'
          : `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
  const bodyOf = (caller: Format, model: string, n: string): string =>
    JSON.stringify(
      caller === 'gemini'
        ? { contents: [{ role: 'user', parts: [{ text: n }] }], generationConfig: { maxOutputTokens: 64 } }
        : caller === 'openai-responses'
          ? { model, stream: true, max_output_tokens: 64, input: n }
          : { model, stream: true, max_tokens: 64, messages: [{ role: 'user', content: n }] },
    );
  /** The upstream's record of a request, by its unique model (the newest first). */
  const recordOf = (model: string): Received | undefined => {
    for (let i = upstream.received.length - 1; i >= 0; i--) if (upstream.received[i]!.model === model) return upstream.received[i];
    return undefined;
  };
  const start = Date.now();
  const rss0 = rss(g.child.pid!);
  /** The gateway's peak RSS in each third of the run. */
  const peaks = [rss0, rss0, rss0];
  const sampler = setInterval(() => {
    const third = Math.min(2, Math.floor(((Date.now() - start) / DURATION) * 3));
    peaks[third] = Math.max(peaks[third]!, rss(g.child.pid!));
  }, 250);
  const count = { started: 0, ok: 0, slow: 0, aborted: 0 };
  let bytes = 0;
  let maxLead = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  /** Complete load streams per caller (of the 'stream' role). */
  const perWorker = new Array<number>(CONCURRENCY).fill(0);
  const slowRead: number[] = [];
  const failures: string[] = [];
  const models: string[] = [];
  let nonce = 0;
  const latencies: number[] = [];

  /** One request; the response's body is handed to `read`, which resolves with what the caller saw. */
  async function request(caller: Format, model: string, n: string, read: (res: http.IncomingMessage, req: http.ClientRequest) => Promise<string>): Promise<string> {
    count.started++;
    models.push(model);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await requestOnce(caller, model, n, read);
    } finally {
      inFlight--;
    }
  }

  function requestOnce(caller: Format, model: string, n: string, read: (res: http.IncomingMessage, req: http.ClientRequest) => Promise<string>): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = http.request(`${g.url}${pathOf(caller, model)}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          let out = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (out += d)).on('end', () => reject(new Error(`${model}: status ${res.statusCode}: ${out}`)));
          return;
        }
        read(res, req).then(resolve, reject);
      });
      req.on('error', reject);
      req.end(bodyOf(caller, model, n));
    });
  }

  const readAll = (res: http.IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (out += d));
      res.on('end', () => resolve(out));
      res.on('error', reject);
    });

  /** The finals a caller's bytes read as, in its own dialect. */
  async function finalsOf(caller: Format, text: string): Promise<FinalResult[]> {
    const fs: FinalResult[] = [];
    for await (const f of readFinals(text, { dialect: caller as DialectName })) fs.push(f);
    return fs;
  }

  async function stream(caller: Format, w: number): Promise<void> {
    const n = `n${++nonce}x${Math.random().toString(36).slice(2, 8)}`;
    const t0 = Date.now();
    const text = await request(caller, `load-${n}`, n, readAll);
    bytes += text.length;
    latencies.push(Date.now() - t0);
    const fs = await finalsOf(caller, text);
    const want = Array.from({ length: 20 }, (_, i) => `${n}:${i} `).join('');
    const f = fs[0];
    if (fs.length !== 1 || f!.text !== want || f!.usage.inputTokens !== n.length || f!.usage.outputTokens !== 20 || f!.stopReason !== 'end') {
      failures.push(`${caller} ${n}: ${JSON.stringify(fs.map((x) => ({ text: x.text.slice(0, 200), usage: x.usage, stop: x.stopReason })))}`);
    } else {
      count.ok++;
      perWorker[w]!++;
    }
  }

  /**
   * A caller reading ≈1 MiB/s until the test's time is up, then hanging up: its text is checked as it
   * comes (the start of its own stream, nothing else), and how far the upstream got ahead of it.
   */
  async function slow(caller: Format): Promise<void> {
    const n = `s${++nonce}x${Math.random().toString(36).slice(2, 8)}`;
    const model = `slow-${n}`;
    let text = '';
    let read = 0;
    const stage = createOutputStage({ dialect: caller as DialectName, output: 'events' });
    const onEvent = (ev: unknown): void => {
      const e = ev as { type: string; text?: string };
      if (e.type === 'text_delta') text += e.text;
    };
    await request(caller, model, n, async (res, req) => {
      const t0 = Date.now();
      for await (const chunk of res as AsyncIterable<Buffer>) {
        read += chunk.length;
        stage.push(chunk, onEvent);
        const rec = recordOf(model);
        if (rec !== undefined) maxLead = Math.max(maxLead, rec.written - read);
        if (Date.now() - start >= DURATION) break;
        const ahead = read / 1048576 - (Date.now() - t0) / 1000; // seconds ahead of 1 MiB/s
        if (ahead > 0) await sleep(ahead * 1000);
      }
      req.on('error', () => {});
      req.destroy();
      return '';
    });
    bytes += read;
    const frames = Math.ceil(text.length / 2048);
    const want = Array.from({ length: frames }, (_, i) => slowText(n, i)).join('');
    const rec = recordOf(model);
    const closed = rec !== undefined && (await Promise.race([rec.closedEarly.then(() => true), sleep(3000).then(() => false)]));
    if (text.length < 1048576 || !want.startsWith(text)) failures.push(`slow ${caller} ${n}: ${text.length} characters, ${want.startsWith(text) ? 'its own' : 'not its own'}`);
    else if (!closed) failures.push(`slow ${caller} ${n}: the upstream request was not ended within 3 s of the hang-up`);
    else {
      count.slow++;
      slowRead.push(read);
    }
  }

  /** A caller that hangs up after the first bytes: its upstream request must be ended at once (not by a timeout: 20 s here). */
  async function disconnect(caller: Format): Promise<void> {
    const n = `d${++nonce}x${Math.random().toString(36).slice(2, 8)}`;
    const model = `stall-${n}`;
    await request(caller, model, n, async (res, req) => {
      await new Promise((r) => res.once('data', r));
      req.on('error', () => {});
      req.destroy();
      return '';
    });
    const rec = recordOf(model);
    const closed = rec !== undefined && (await Promise.race([rec.closedEarly.then(() => true), sleep(3000).then(() => false)]));
    if (!closed) failures.push(`disconnect ${caller} ${n}: the upstream request was not ended within 3 s`);
    else count.aborted++;
  }

  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let i = 0; Date.now() - start < DURATION; i++) {
        const caller = callers[(w + i) % callers.length]!;
        try {
          const r = role(w);
          await (r === 'slow' ? slow(caller) : r === 'disconnect' ? disconnect(caller) : stream(caller, w));
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    }),
  );
  clearInterval(sampler);
  agent.destroy();
  const seconds = (Date.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  const reached = new Set(upstream.received.map((r) => r.model));
  t.strictSame(failures.slice(0, 5), [], `no stream lost or mixed (${failures.length} failures)`);
  t.equal(count.ok + count.slow + count.aborted, count.started, `every request accounted for: ${count.started} started, ${count.ok} complete streams, ${count.slow} slow ones, ${count.aborted} disconnects`);
  t.equal(models.filter((m) => reached.has(m)).length, models.length, 'each request reached the upstream');
  const streamers = perWorker.filter((_, w) => role(w) === 'stream');
  t.equal(maxInFlight, CONCURRENCY, `${CONCURRENCY} requests in flight at once`);
  t.ok(streamers.every((n) => n >= 1) && count.slow === 5 && count.aborted >= 10, `${count.started} streams in ${seconds.toFixed(1)} s at ${CONCURRENCY} concurrent (${(count.started / seconds).toFixed(0)}/s, ${(bytes / 1048576).toFixed(0)} MiB out; each load stream 0.42 s upstream: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms)`);
  const mib = (n: number) => (n / 1048576).toFixed(0);
  t.ok(maxLead < 32 * 1048576, `the slow readers read ${slowRead.map(mib).join(', ')} MiB of 256 MiB streams; their upstream got at most ${(maxLead / 1048576).toFixed(1)} MiB ahead (socket buffers: the gateway holds it back)`);
  const peak = Math.max(...peaks);
  t.ok(peak - rss0 < 200 * 1048576, `gateway RSS ${mib(rss0)} MiB at the start, peak ${peaks.map(mib).join(' / ')} MiB in each third of the run (less than 200 MiB more)`);
  t.ok(peaks[2]! - peaks[1]! < 64 * 1048576, 'the gateway\'s memory does not keep growing with the streams served: the last third peaks less than 64 MiB above the second');
});

t.test('a slow reader: the upstream is held back (backpressure), gateway memory stays bounded; its disconnect aborts the upstream', async (t) => {
  const g = gw('openai-chat');
  const before = upstream.received.length;
  const rss0 = rss(g.child.pid!);
  let peak = rss0;
  const req = http.request(`${g.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } });
  req.end(JSON.stringify({ model: 'big', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }));
  const res = await new Promise<http.IncomingMessage>((r) => req.once('response', r));
  // read 256 KiB, then stop reading for 3 s
  let read = 0;
  await new Promise<void>((r) => {
    res.on('data', (d: Buffer) => {
      read += d.length;
      if (read > 256 * 1024) {
        res.pause();
        r();
      }
    });
  });
  res.removeAllListeners('data');
  for (let i = 0; i < 12; i++) {
    await sleep(250);
    peak = Math.max(peak, rss(g.child.pid!));
  }
  const rec = upstream.received.slice(before).find((r) => r.model === 'big')!;
  const heldAt = rec.written;
  t.ok(heldAt < 64 * 1024 * 1024, `the upstream wrote ${(heldAt / 1048576).toFixed(1)} MiB of 256 MiB while the caller read ${(read / 1024).toFixed(0)} KiB and stopped`);
  t.ok(peak - rss0 < 64 * 1048576, `gateway RSS ${(rss0 / 1048576).toFixed(0)} → peak ${(peak / 1048576).toFixed(0)} MiB`);
  // the caller goes away: the gateway aborts its upstream request
  res.destroy();
  req.destroy();
  const closed = await Promise.race([rec.closedEarly.then(() => true), sleep(3000).then(() => false)]);
  t.ok(closed, 'the upstream saw its request socket close');
  t.ok(rec.written < 200 * 1024 * 1024, 'the upstream stopped writing');
});

t.test('a client that disconnects mid-stream aborts its upstream request', async (t) => {
  for (const up of ['openai-chat', 'anthropic-messages'] as Format[]) {
    const before = upstream.received.length;
    const req = http.request(`${gw(up).url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('error', () => {});
    req.end(JSON.stringify({ model: 'stall', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
    const res = await new Promise<http.IncomingMessage>((r) => req.once('response', r));
    await new Promise((r) => res.once('data', r)); // the stream has begun
    const rec = upstream.received.slice(before).find((r) => r.model === 'stall')!;
    req.destroy();
    const closed = await Promise.race([rec.closedEarly.then(() => true), sleep(1000).then(() => false)]);
    t.ok(closed, `${up} upstream: the upstream saw the request socket close within 1 s (before any timeout)`);
  }
});

// ---------------------------------------------------------------------------------------------
// Safety

t.test('an upstream that stalls mid-stream: a typed timeout error in the caller’s wire, the upstream request ended', async (t) => {
  const before = upstream.received.length;
  await Promise.all(
    FORMATS.map(async (up) => {
      const started = Date.now();
      const err = await CALLERS['anthropic-messages'](gw(up).url, 'stall').then(
        () => null,
        (e: unknown) => e as ApiError,
      );
      t.ok(err, `${up} upstream: the Anthropic client failed`);
      t.match(err?.error, { type: 'error', error: { type: 'timeout_error', message: /idle timeout/ } }, `${up} upstream: an Anthropic timeout_error event`);
      t.ok(Date.now() - started < 5000, `${up} upstream: within the idle timeout (1.5 s) and a margin`);
      const rec = upstream.received.slice(before).find((r) => r.model === 'stall' && r.format === up)!;
      const closed = await Promise.race([rec.closedEarly.then(() => true), sleep(1000).then(() => false)]);
      t.ok(closed, `${up} upstream: the gateway ended the upstream request`);
    }),
  );
  const err = await CALLERS['openai-chat'](gw('anthropic-messages').url, 'stall').then(
    () => null,
    (e: unknown) => e as ApiError,
  );
  t.match(err, { error: { type: 'timeout_error', message: /idle timeout/ } }, 'OpenAI Chat: the error chunk with type timeout_error');
});

t.test('an upstream connection that breaks mid-stream: an api_error in the caller’s wire', async (t) => {
  const err = await CALLERS['anthropic-messages'](gw('openai-chat').url, 'reset').then(
    () => null,
    (e: unknown) => e as ApiError,
  );
  t.match(err?.error, { type: 'error', error: { type: 'api_error', message: /upstream connection failed mid-stream/ } });
  const err2 = await CALLERS['openai-chat'](gw('anthropic-messages').url, 'reset').then(
    () => null,
    (e: unknown) => e as ApiError,
  );
  t.match(err2?.error, { type: 'api_error', message: /upstream connection failed mid-stream/ });
});

t.test('an HTTPS upstream: its certificate is verified (a self-signed one only when trusted through NODE_EXTRA_CA_CERTS)', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const certs = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(certs, 'key.pem'), '-out', join(certs, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`openssl (on the PATH) makes this test's certificate and failed or is missing: ${(err as Error).message}`);
  }
  const tls = await startUpstream({ key: readFileSync(join(certs, 'key.pem')), cert: readFileSync(join(certs, 'cert.pem')) });
  t.teardown(() => tls.close());
  const c = CAPTURES.get('openai-chat')![0]!;
  const untrusted = await startGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: tls.url });
  t.teardown(() => untrusted.stop());
  const refused = (await CALLERS['anthropic-messages'](untrusted.url, c.model).catch((e: unknown) => e)) as ApiError;
  t.equal(refused.status, 502, 'an untrusted certificate: 502');
  t.match(refused.error, { error: { type: 'api_error', message: /could not be reached \(DEPTH_ZERO_SELF_SIGNED_CERT\)/ } });
  const trusted = await startGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: tls.url, NODE_EXTRA_CA_CERTS: join(certs, 'cert.pem') });
  t.teardown(() => trusted.stop());
  const seen = await CALLERS['anthropic-messages'](trusted.url, c.model);
  t.equal(seen.text, expectedSeen('anthropic-messages', c.final).text, 'trusted: served over TLS');
  t.equal(tls.received.length, 1, 'one request reached the TLS upstream');
});

t.test('an upstream that never answers: 504 in the caller’s error form after the connect timeout', async (t) => {
  const [err, err2] = (await Promise.all([
    CALLERS['openai-chat'](gw('anthropic-messages').url, 'hang').catch((e: unknown) => e),
    CALLERS['anthropic-messages'](gw('openai-chat').url, 'hang').catch((e: unknown) => e),
  ])) as ApiError[];
  t.equal(err!.status, 504, 'OpenAI client: 504');
  t.match(err!.error, { type: 'timeout_error', message: /connect timeout/ });
  t.equal(err2!.status, 504, 'Anthropic client: 504');
  t.match(err2!.error, { type: 'error', error: { type: 'timeout_error' } });
});

t.test('provider keys never reach a caller, a log or a loss report; the caller’s own credentials never reach the upstream', async (t) => {
  for (const up of FORMATS) {
    const before = upstream.received.length;
    const res = await post(`${gw(up).url}/v1/messages`, { model: 'error-401', stream: true, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, {
      'x-api-key': 'caller-key-abcdef123456',
      authorization: 'Bearer caller-bearer-abcdef123456',
      cookie: 'session=caller-cookie',
      'anthropic-beta': 'tools-2024-04-04',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-custom-secret': 'do-not-forward',
    });
    t.equal(res.status, 401, `${up}: the upstream's 401 comes back as 401`);
    t.match(JSON.parse(res.text), { type: 'error', error: { type: 'authentication_error', message: /upstream 401: Incorrect API key provided: / } });
    for (const key of Object.values(KEYS)) t.notOk(res.text.includes(key.slice(-12)), `${up}: no part of a key in the error`);
    const rec = upstream.received.slice(before)[0]!;
    const sent = Object.keys(rec.headers).sort();
    t.notOk(JSON.stringify(rec.headers).includes('caller-'), `${up}: the caller's key, bearer and cookie are not forwarded`);
    t.notOk('x-custom-secret' in rec.headers, `${up}: headers off the allow-list are not forwarded`);
    t.equal(rec.headers.traceparent, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', `${up}: traceparent is on the allow-list`);
    const auth = String(rec.headers.authorization ?? rec.headers['x-api-key'] ?? rec.headers['x-goog-api-key']);
    t.ok(Object.values(KEYS).some((k) => auth.includes(k)), `${up}: the upstream got the gateway's own key (${sent.join(', ')})`);
  }
  const everything = allOutput.join('');
  t.ok(everything.length > 0);
  for (const [name, key] of Object.entries(KEYS)) {
    t.notOk(everything.includes(key.slice(0, 12)) || everything.includes(key.slice(-12)), `no part of ${name} in any gateway log`);
  }
});

t.test('request bodies over the limit: 413 in the caller’s error form', async (t) => {
  const big = 'x'.repeat(300 * 1024);
  const a = await post(`${gw('openai-chat').url}/v1/messages`, { model: 'm', stream: true, max_tokens: 5, messages: [{ role: 'user', content: big }] });
  t.equal(a.status, 413);
  t.match(JSON.parse(a.text), { type: 'error', error: { type: 'request_too_large', message: /limit is 262144/ } });
  const o = await post(`${gw('openai-chat').url}/v1/chat/completions`, { model: 'm', stream: true, messages: [{ role: 'user', content: big }] });
  t.equal(o.status, 413);
  t.match(JSON.parse(o.text), { error: { type: 'invalid_request_error', code: 'request_too_large' } });
  // chunked, no content-length: counted as it comes
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${gw('openai-chat').url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    for (let i = 0; i < 5; i++) req.write(big.slice(0, 64 * 1024));
    req.end();
  });
  t.equal(chunked, 413, 'a chunked body over the limit');
});

t.test('non-streaming or malformed requests and unknown paths are refused in the caller’s form', async (t) => {
  const url = gw('openai-chat').url;
  const notStream = await post(`${url}/v1/messages`, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(notStream.status, 400);
  t.match(JSON.parse(notStream.text), { type: 'error', error: { type: 'invalid_request_error', message: /streams only/ } });
  const notJson = await post(`${url}/v1/chat/completions`, '{nope');
  t.equal(notJson.status, 400);
  t.match(JSON.parse(notJson.text), { error: { type: 'invalid_request_error', message: /not JSON/ } });
  const unknown = await post(`${url}/v1/embeddings`, {});
  t.equal(unknown.status, 404);
});

t.test('Gemini without alt=sse: the JSON array framing (gemini-json-array), when the package has that target', async (t) => {
  const model = CAPTURES.get('openai-chat')![0]!.model;
  const res = await post(`${gw('openai-chat').url}/v1beta/models/${model}:streamGenerateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  const installed = (await import(pathToFileURL(join(p.pkgDir, 'dist', 'index.js')).href)) as { targetNames: readonly string[] };
  if (!installed.targetNames.includes('gemini-json-array')) {
    t.equal(res.status, 501, 'no target: 501');
    return;
  }
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const chunks = JSON.parse(res.text) as { candidates?: { content?: { parts?: { text?: string }[] } }[] }[];
  const text = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? '').join('');
  t.equal(text, CAPTURES.get('openai-chat')![0]!.final.text, 'the text of the capture');
});

t.test('a JSON config file: the upstream from it, the key from the variable it names; a key in the file is refused', async (t) => {
  const { writeFileSync } = await import('node:fs');
  const good = join(dir, 'gateway.json');
  const c = CAPTURES.get('anthropic-messages')![0]!;
  writeFileSync(good, JSON.stringify({ port: 0, upstream: { format: 'anthropic-messages', baseUrl: upstream.url, keyEnv: 'MY_CLAUDE_KEY', model: c.model }, forwardHeaders: ['x-request-id'] }));
  const g = await startGateway(dir, { GATEWAY_CONFIG: good, MY_CLAUDE_KEY: KEYS.ANTHROPIC_API_KEY });
  t.teardown(() => g.stop());
  const before = upstream.received.length;
  const seen = await CALLERS['openai-chat'](g.url, 'any-model-the-caller-names');
  t.equal(seen.text, expectedSeen('openai-chat', c.final).text, 'served');
  const rec = upstream.received.slice(before)[0]!;
  t.equal(rec.model, c.model, 'the configured model replaces the caller’s');
  t.equal(rec.headers['x-api-key'], KEYS.ANTHROPIC_API_KEY, 'the key from MY_CLAUDE_KEY');
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ upstream: { format: 'openai-chat', baseUrl: upstream.url, key: 'sk-in-a-file' } }));
  const refused = await runGateway(dir, { GATEWAY_CONFIG: bad });
  t.equal(refused.code, 2);
  t.match(refused.output, /a config file holds no key/);
  const header = await runGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: upstream.url, GATEWAY_FORWARD_HEADERS: 'traceparent,authorization' });
  t.equal(header.code, 2, 'an allow-list with a credential header is refused');
  t.match(header.output, /never forwarded upstream: authorization/);
});

t.test('listening beyond loopback needs a caller token; with one set, every caller must send it', async (t) => {
  const refused = await runGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: upstream.url, GATEWAY_HOST: '0.0.0.0' });
  t.equal(refused.code, 2, 'no token: the gateway does not start');
  t.match(refused.output, /needs a caller token: set GATEWAY_TOKEN/);
  const g = await startGateway(dir, { GATEWAY_UPSTREAM_FORMAT: 'openai-chat', GATEWAY_UPSTREAM_URL: upstream.url, GATEWAY_HOST: '0.0.0.0', GATEWAY_TOKEN: CALLER_TOKEN });
  t.teardown(() => g.stop());
  const url = g.url.replace('0.0.0.0', '127.0.0.1');
  const model = CAPTURES.get('openai-chat')![0]!.model;
  const noToken = (await openaiClient(url, 'wrong-token').chat.completions.stream({ model, messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion().catch((e: unknown) => e)) as ApiError;
  t.equal(noToken.status, 401, 'OpenAI client with a wrong token: 401');
  t.match(noToken.error, { type: 'authentication_error' });
  const noToken2 = (await anthropicClient(url, 'wrong-token').messages.stream({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).finalMessage().catch((e: unknown) => e)) as ApiError;
  t.equal(noToken2.status, 401, 'Anthropic client with a wrong token: 401');
  t.match(noToken2.error, { type: 'error', error: { type: 'authentication_error' } });
  const okChat = await openaiClient(url, CALLER_TOKEN).chat.completions.stream({ model, messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
  t.ok(okChat.choices.length > 0, 'OpenAI client with the token (Authorization: Bearer)');
  const okMsg = await anthropicClient(url, CALLER_TOKEN).messages.stream({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
  t.ok(okMsg.content.length >= 0, 'Anthropic client with the token (x-api-key)');
  t.notOk(allOutput.join('').includes(CALLER_TOKEN), 'the token is in no log');
});
