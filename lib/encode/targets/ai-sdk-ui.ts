/**
 * Unified events → the Vercel AI SDK's UI message stream, the wire `useChat`
 * / `readUIMessageStream` read (vercel/ai packages/ai/src/ui-message-stream/
 * ui-message-chunks.ts @ed857f50, ai 7.0.77; the same chunk shapes in ai 6).
 *
 * - Framing: SSE `data: {json}\n\n` chunks, the output ending with
 *   `data: [DONE]\n\n` (JsonToSseTransformStream). HTTP: content type
 *   `text/event-stream` and the header `x-vercel-ai-ui-message-stream: v1`
 *   (UI_MESSAGE_STREAM_HEADERS), both in the definition below.
 * - One UI message per response: `start` {messageId: the response id, made
 *   unique in the output when two responses share one}, `start-step`, the
 *   parts, `finish-step`, `finish` {finishReason}. `[DONE]` is written once,
 *   when the whole output ends.
 * - Text and reasoning: `text-start` / `text-delta` / `text-end` and
 *   `reasoning-*` by part id; a part is ended when another part begins (a
 *   later delta of the same block starts a new part) and at the end.
 *   Refusal text is text (finishReason `content-filter`).
 * - Tool calls: `tool-input-start` {toolCallId, toolName, providerExecuted?},
 *   `tool-input-delta`, then `tool-input-available` {input: the parsed JSON,
 *   `{}` when empty, the text itself when it is not JSON (an OpenAI custom
 *   tool's free-form input)}. Parts are static tools (`tool-<name>`, no
 *   `dynamic`), as a server that declared its tools writes them.
 * - Hosted tools: the call carries `providerExecuted: true`, its result is
 *   `tool-output-available` {output, providerExecuted} (`tool-output-error`
 *   {errorText: the result as JSON text} when the provider says it failed).
 *   A result whose call this response never showed has no part to attach to:
 *   lost (`tool_result`).
 * - Citations: `source-url` {sourceId, url, title?}; a citation without a URL
 *   is `source-document` {sourceId, mediaType, title} (mediaType
 *   `application/pdf` for an Anthropic page_location, else `text/plain`, as
 *   the AI SDK's providers guess it). The cited text and range have no place
 *   in a source part: reported (`citation`).
 * - Files: `file` {url: a `data:` URL of the base64, mediaType (unknown:
 *   `application/octet-stream`)}; previews (`partial`) are not written.
 * - Signatures: Anthropic's, as the AI SDK's Anthropic provider writes them
 *   (`reasoning-delta` {delta: '', providerMetadata: {anthropic: {signature}}},
 *   redacted thinking as a reasoning part with
 *   `providerMetadata.anthropic.redactedData`), so that convertToModelMessages
 *   sends them back; from the Anthropic family only. Others are reported.
 * - Usage has no chunk of its own: it goes in `finish.messageMetadata.usage`,
 *   shaped as the AI SDK's LanguageModelUsage (what a server's
 *   `messageMetadata` callback returning `part.totalUsage` writes), unknown
 *   counts left out; the model goes in `start.messageMetadata.model`.
 * - Errors: a terminal error is an `error` {errorText: "code: message"} chunk,
 *   then `finish` {finishReason: 'error'} (a `done` with stop reason error and
 *   no error event before it gets an `api_error` chunk); a response cut short (abort) ends
 *   its open parts, writes an `error` chunk and `finish` {finishReason: 'error'}.
 *   Warnings (non-terminal errors), audio, choices k > 0 and raw events have no
 *   place: reported.
 */
import { assertNever, type Json, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { parseArguments } from '../../accumulate/tool-args.js';
import { defineTarget, sseData, type TargetContext, type TargetResponse } from '../target.js';
import { loseNotice, loseOtherChoices } from '../notices.js';

const FAMILY = ['anthropic-messages', 'xai-messages'] as const;

/** The AI SDK's FinishReason for each unified stop reason (every one has a word). */
const FINISH: Record<StopReason, string> = {
  end: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  refusal: 'content-filter',
  error: 'error',
  other: 'other',
};

/** Per encoder output: the message ids written so far (a second response with the same id gets a suffix). */
const outputs = new WeakMap<TargetContext, Set<string>>();

function messageId(ctx: TargetContext, id: string | null): string {
  let seen = outputs.get(ctx);
  if (seen === undefined) outputs.set(ctx, (seen = new Set()));
  const base = id === null || id === '' ? 'msg-wirefold' : id;
  let out = base;
  for (let n = 2; seen.has(out); n++) out = `${base}-${n}`;
  seen.add(out);
  return out;
}

/** LanguageModelUsage's shape, unknown counts left out (JSON has no undefined). */
function uiUsage(u: UsageEvent): JsonObject {
  const out: JsonObject = {};
  if (u.inputTokens !== null) out['inputTokens'] = u.inputTokens;
  const input: JsonObject = {};
  if (u.cachedInputTokens !== null) input['cacheReadTokens'] = u.cachedInputTokens;
  if (u.inputTokens !== null && u.cachedInputTokens !== null) input['noCacheTokens'] = u.inputTokens - u.cachedInputTokens;
  if (Object.keys(input).length > 0) out['inputTokenDetails'] = input;
  if (u.outputTokens !== null) out['outputTokens'] = u.outputTokens;
  const output: JsonObject = {};
  if (u.reasoningTokens !== null) output['reasoningTokens'] = u.reasoningTokens;
  if (u.outputTokens !== null && u.reasoningTokens !== null) output['textTokens'] = u.outputTokens - u.reasoningTokens;
  if (Object.keys(output).length > 0) out['outputTokenDetails'] = output;
  if (u.totalTokens !== null) out['totalTokens'] = u.totalTokens;
  return out;
}

/** As the finals' tool calls: parsed JSON, `{}` when empty, the text itself when it is not JSON. */
function toolInput(text: string): Json {
  const parsed = parseArguments(text);
  return parsed.ok ? parsed.value : text;
}

interface Call {
  name: string;
  providerExecuted: boolean;
  /** `tool-input-start` was written (deltas need it). */
  started: boolean;
  /** The argument text so far. */
  written: string;
  /** `tool-input-available` was written. */
  done: boolean;
}

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response, and a closure each of its steps per response costs an allocation each (and, where the
 * code runs through a transform that keeps function names, as tsx does, a defineProperty each).
 */
class UiResponse implements TargetResponse {
  private sameFamily = false;
  private begun = false;
  private ended = false;
  private errorWritten = false;
  private usage: UsageEvent | null = null;
  private parts = 0;
  private sources = 0;
  /** The open text or reasoning part: its unified key and part id. */
  private flowing: { key: string; kind: 'text' | 'reasoning'; id: string } | null = null;
  private readonly calls = new Map<string, Call>();


  constructor(private readonly ctx: TargetContext) {}

  private chunk(data: JsonObject): void {
    this.ctx.write(sseData(data));
  }

  private begin(id: string | null = null, model: string | null = null): void {
    if (this.begun) return;
    this.begun = true;
    this.chunk({ type: 'start', messageId: messageId(this.ctx, id), ...(model === null ? {} : { messageMetadata: { model } }) });
    this.chunk({ type: 'start-step' });
  }

  private closeFlowing(): void {
    if (this.flowing === null) return;
    this.chunk({ type: `${this.flowing.kind}-end`, id: this.flowing.id });
    this.flowing = null;
  }

  /** The open part for a text or reasoning block, starting one (and ending the other) when needed. */
  private flow(key: string, kind: 'text' | 'reasoning', providerMetadata?: JsonObject): string {
    this.begin();
    if (this.flowing !== null && this.flowing.key === key && providerMetadata === undefined) return this.flowing.id;
    this.closeFlowing();
    const id = `${kind}-${this.parts++}`;
    this.flowing = { key, kind, id };
    this.chunk({ type: `${kind}-start`, id, ...(providerMetadata === undefined ? {} : { providerMetadata }) });
    return id;
  }

  private call(id: string, name: string, providerExecuted: boolean): Call {
    let c = this.calls.get(id);
    if (c === undefined) {
      c = { name, providerExecuted, started: false, written: '', done: false };
      this.calls.set(id, c);
    }
    if (c.name === '') c.name = name;
    return c;
  }

  private startCall(id: string, c: Call): void {
    if (c.started || c.name === '') return;
    this.begin();
    this.closeFlowing();
    c.started = true;
    this.chunk({ type: 'tool-input-start', toolCallId: id, toolName: c.name, ...(c.providerExecuted ? { providerExecuted: true } : {}) });
  }

  private inputAvailable(id: string, c: Call): void {
    this.begin();
    this.closeFlowing();
    c.done = true;
    this.chunk({
      type: 'tool-input-available',
      toolCallId: id,
      toolName: c.name === '' ? 'unknown' : c.name,
      input: toolInput(c.written),
      ...(c.providerExecuted ? { providerExecuted: true } : {}),
    });
  }

  /** Ends what is open: text/reasoning parts, calls whose done never came (their input as written so far). */
  private closeAll(): void {
    this.closeFlowing();
    for (const [id, c] of this.calls) if (!c.done) this.inputAvailable(id, c);
  }

  private finish(reason: string): void {
    this.begin();
    this.closeAll();
    this.chunk({ type: 'finish-step' });
    this.chunk({ type: 'finish', finishReason: reason, ...(this.usage === null ? {} : { messageMetadata: { usage: uiUsage(this.usage) } }) });
    this.ended = true;
  }

  private error(code: string, message: string): void {
    this.begin();
    this.closeAll();
    this.errorWritten = true;
    this.chunk({ type: 'error', errorText: `${code}: ${message}` });
  }

  push(ev: UnifiedEvent): void {
    if (this.ended) return;
    if (ev.choice !== undefined && ev.choice !== 0 && ev.type !== 'done') {
      this.ctx.lose('choice', `events of choice ${ev.choice} (a UI message has one choice)`);
      return;
    }
    switch (ev.type) {
      case 'start':
        this.sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        this.begin(ev.id, ev.model);
        return;
      case 'text_delta': {
        const id = this.flow(`text:${ev.index}`, 'text');
        // the bulk of every stream, written around the delta's JSON alone: the same bytes as chunk()
        this.ctx.writeText(`data: {"type":"text-delta","id":${JSON.stringify(id)},"delta":"`, ev.text, '"}\n\n');
        return;
      }
      case 'reasoning_delta': {
        const id = this.flow(`reasoning:${ev.index}`, 'reasoning');
        // (as text-delta: the same bytes as chunk())
        this.ctx.writeText(`data: {"type":"reasoning-delta","id":${JSON.stringify(id)},"delta":"`, ev.text, '"}\n\n');
        return;
      }
      case 'signature':
        if (!this.sameFamily || ev.kind === 'thought_signature' || ev.kind === 'encrypted_content') {
          this.ctx.lose('signature', `a ${ev.kind} (the AI SDK's providerMetadata for it is carried from the Anthropic family only)`);
        } else if (ev.kind === 'redacted_thinking') {
          this.flow(`redacted:${ev.index}`, 'reasoning', { anthropic: { redactedData: ev.signature } });
          this.closeFlowing();
        } else {
          // the signature ends its thinking block (omitted thinking: a part with no text)
          const id = this.flow(`reasoning:${ev.index}`, 'reasoning');
          this.chunk({ type: 'reasoning-delta', id, delta: '', providerMetadata: { anthropic: { signature: ev.signature } } });
          this.closeFlowing();
        }
        return;
      case 'tool_call_start':
        this.startCall(ev.id, this.call(ev.id, ev.name, ev.providerExecuted === true));
        return;
      case 'tool_call_delta': {
        if (ev.argumentsDelta.length === 0) return;
        const c = this.call(ev.id, '', ev.providerExecuted === true);
        if (c.done) return;
        c.written += ev.argumentsDelta;
        if (c.started) this.chunk({ type: 'tool-input-delta', toolCallId: ev.id, inputTextDelta: ev.argumentsDelta });
        return;
      }
      case 'tool_call_done': {
        const c = this.call(ev.id, ev.name, ev.providerExecuted === true);
        if (c.done) return;
        const streamed = c.started ? c.written : ''; // deltas before the name was known were held
        this.startCall(ev.id, c);
        // the authoritative arguments: what the deltas did not already say
        if (ev.arguments.startsWith(streamed)) {
          const rest = ev.arguments.slice(streamed.length);
          if (rest.length > 0 && c.started) this.chunk({ type: 'tool-input-delta', toolCallId: ev.id, inputTextDelta: rest });
        }
        c.written = ev.arguments;
        this.inputAvailable(ev.id, c);
        return;
      }
      case 'tool_result': {
        const c = this.calls.get(ev.id);
        if (c === undefined) {
          this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name} (no call of this response to attach it to)`);
          return;
        }
        if (!c.done) this.inputAvailable(ev.id, c);
        this.closeFlowing();
        const executed: JsonObject = c.providerExecuted ? { providerExecuted: true } : {};
        if (ev.isError === true) {
          this.chunk({ type: 'tool-output-error', toolCallId: ev.id, errorText: typeof ev.result === 'string' ? ev.result : JSON.stringify(ev.result), ...executed });
        } else this.chunk({ type: 'tool-output-available', toolCallId: ev.id, output: ev.result, ...executed });
        return;
      }
      case 'citation': {
        this.begin();
        const sourceId = `source-${this.sources++}`;
        if (ev.url !== undefined) this.chunk({ type: 'source-url', sourceId, url: ev.url, ...(ev.title === undefined ? {} : { title: ev.title }) });
        else {
          const raw = ev.raw;
          const pdf = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && raw['type'] === 'page_location';
          this.chunk({ type: 'source-document', sourceId, mediaType: pdf ? 'application/pdf' : 'text/plain', title: ev.title ?? ev.source ?? 'document' });
        }
        if (ev.citedText !== undefined || ev.start !== undefined || ev.end !== undefined) {
          this.ctx.lose('citation', 'the cited text and range (a source part has a URL or a document title only)');
        }
        return;
      }
      case 'file':
        if (ev.partial === true) return; // a preview: the complete file follows
        this.begin();
        this.closeFlowing();
        this.chunk({ type: 'file', mediaType: ev.mimeType ?? 'application/octet-stream', url: `data:${ev.mimeType ?? 'application/octet-stream'};base64,${ev.data}` });
        return;
      case 'audio_delta':
        this.ctx.lose('audio', `${ev.mimeType ?? 'audio'} deltas`);
        return;
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        if (ev.terminal) this.error(ev.code, ev.message);
        else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        if (!loseOtherChoices(ev, this.ctx)) {
          // a failure the source gave no error event for still reaches the client's onError
          if (ev.stopReason === 'error' && !this.errorWritten) this.error('api_error', `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}`);
          this.finish(FINISH[ev.stopReason]);
        }
        return;
      case 'raw':
      case 'session':
      case 'steer':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        loseNotice(ev, this.ctx);
        return;
      default:
        assertNever(ev);
    }
  }

  readonly rawDeltas = 'all';

  abort(): void {
    if (this.ended) return;
    if (!this.errorWritten) this.error('api_error', 'the source stream ended before the response was done');
    this.finish('error');
  }
}

function createResponse(ctx: TargetContext): TargetResponse {
  return new UiResponse(ctx);
}

export const aiSdkUiTarget = defineTarget({
  name: 'ai-sdk-ui',
  contentType: 'text/event-stream',
  headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
  family: FAMILY,
  createResponse,
  writeError(ev, ctx) {
    ctx.write(sseData({ type: 'error', errorText: `${ev.code}: ${ev.message}` }));
  },
  end(ctx) {
    ctx.write('data: [DONE]\n\n');
  },
});
