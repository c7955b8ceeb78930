/**
 * Unified events → Gemini `streamGenerateContent` chunks (partial
 * GenerateContentResponses), in its two framings, one registry entry each
 * (`to` names the bytes a client expects; the chunks are the same):
 * - `gemini`: SSE as with `?alt=sse` (`data: {chunk}\r\n\r\n`), what the SDKs request;
 * - `gemini-json-array`: the default framing, one JSON array streamed element
 *   by element (`[{chunk}\n,\r\n{chunk}\n]`, as Google sends it), closed when
 *   the output ends (`[]` when nothing was written).
 *
 * - Chunks: `{candidates: [{content: {role: 'model', parts}, index}], modelVersion, responseId}`;
 *   `choice` k is candidate `index` k. Text parts `{text}` (refusal and
 *   transcript text too: Gemini has no refusal channel), thoughts
 *   `{text, thought: true}`, files and audio `inlineData {mimeType, data}`
 *   (audio only with an `audio/…` type: without one a reader takes it for a
 *   file).
 * - Calls: Gemini has no argument deltas: a call is written whole, as one
 *   `functionCall {id, name, args}` part at its `tool_call_done`. `args` must
 *   be an object: other input is wrapped as `{"input": …}` (`tool_input`).
 * - The last chunk of a response holds every candidate's `finishReason` and
 *   the `usageMetadata`, written at `done` when the usage is final (STOP for
 *   end and tool_use, MAX_TOKENS, SAFETY for refusal, OTHER; the family's own
 *   reasons as they came). Unknown counts are left out, as is the whole
 *   `usageMetadata` when nothing is known. Gemini's `candidatesTokenCount`
 *   excludes thoughts (`thoughtsTokenCount`), unified outputTokens includes
 *   them: the reasoning tokens are taken out again. From generateContent
 *   itself the last usageMetadata is written as it came.
 * - `thoughtSignature`s are carried from the generateContent family only
 *   (`gemini`, `gemini-live`: the same Part field), on the part of the block
 *   they belong to (the last part of the block is held back one event for
 *   that); Interactions' step signatures and other providers' are reported.
 * - Hosted calls and results: from generateContent itself, the parts they
 *   came in (executableCode / codeExecutionResult, toolCall / toolResponse,
 *   a server-side MCP functionCall answered by its functionResponse); from
 *   others, reported.
 * - Citations, on the last chunk's candidate: generateContent's own back
 *   into the metadata they came in (groundingMetadata, urlContextMetadata,
 *   citationMetadata, from their `raw`); others as
 *   `citationMetadata.citationSources` (uri, title, start/endIndex in UTF-8
 *   bytes of the candidate's answer text), their cited text and a source
 *   without a uri reported.
 * - Errors: the stream's `{error: {code, message, status}}` chunk (the
 *   unified code as `status`; the family's own chunk as it came), after a
 *   chunk with the usage so far.
 */
import { assertNever, type CitationEvent, type DoneChoice, type ErrorEvent, type Json, type JsonObject, type StopReason, type UnifiedEvent, type UsageEvent } from '../../events.js';
import { isObject } from '../../dialects/helpers.js';
import { byteLength } from '../../bytes/index.js';
import { decodeBody, defineTarget, type TargetContext, type TargetResponse } from '../target.js';
import { loseNotice } from '../notices.js';
import { argumentsObject } from '../tool-args.js';

const FAMILY = ['gemini', 'gemini-live'] as const;

type Framing = 'sse' | 'json-array';

/** Gemini finishReasons and the stop reason our reader gives each (STOP: end, or tool_use after a call). */
const FINISH_READS: Record<string, StopReason> = {
  STOP: 'end',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'refusal',
  RECITATION: 'refusal',
  BLOCKLIST: 'refusal',
  PROHIBITED_CONTENT: 'refusal',
  SPII: 'refusal',
  IMAGE_SAFETY: 'refusal',
  IMAGE_PROHIBITED_CONTENT: 'refusal',
  IMAGE_RECITATION: 'refusal',
  OTHER: 'other',
  LANGUAGE: 'other',
  MALFORMED_FUNCTION_CALL: 'other',
  MODEL_ARMOR: 'other',
  IMAGE_OTHER: 'other',
  UNEXPECTED_TOOL_CALL: 'other',
  NO_IMAGE: 'other',
  TOO_MANY_TOOL_CALLS: 'other',
  MISSING_THOUGHT_SIGNATURE: 'other',
  FINISH_REASON_UNSPECIFIED: 'other',
};

const FINISH: Record<Exclude<StopReason, 'error'>, string> = {
  end: 'STOP',
  tool_use: 'STOP',
  max_tokens: 'MAX_TOKENS',
  refusal: 'SAFETY',
  other: 'OTHER',
};

/** Server-side tool types (js-genai ToolType): a provider-executed call of this name (lower case) was a `toolCall` part. */
const TOOL_TYPES = new Set(['google_search_web', 'google_search_image', 'url_context', 'google_maps', 'file_search', 'media_processing', 'tool_type_unspecified']);

/** promptFeedback.blockReason values (a prompt refused before any candidate). */
const BLOCK_REASONS = new Set(['SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY']);

/** What one encoder (its context) remembers across responses. */
interface OutputState {
  /** The JSON array was opened. */
  open: boolean;
  /** The last response's responseId, and whether it ended on a call (a reader then takes the same id for its continuation). */
  lastId: string | null;
  lastWaiting: boolean;
}

const outputs = new WeakMap<TargetContext, OutputState>();

function outputOf(ctx: TargetContext): OutputState {
  let state = outputs.get(ctx);
  if (state === undefined) outputs.set(ctx, (state = { open: false, lastId: null, lastWaiting: false }));
  return state;
}

function writeChunk(ctx: TargetContext, framing: Framing, chunk: JsonObject): void {
  writeJson(ctx, framing, JSON.stringify(chunk));
}

/** One chunk's JSON text in the framing (textChunk: the same around a text). */
function writeJson(ctx: TargetContext, framing: Framing, json: string): void {
  if (framing === 'sse') {
    ctx.write(`data: ${json}\r\n\r\n`);
    return;
  }
  const state = outputOf(ctx);
  ctx.write(state.open ? `\n,\r\n${json}` : `[${json}`);
  state.open = true;
}

/** Unified usage → usageMetadata (null when no count is known). */
export function geminiUsageMetadata(u: UsageEvent): JsonObject | null {
  const out: JsonObject = {};
  if (u.inputTokens !== null) out['promptTokenCount'] = u.inputTokens;
  if (u.outputTokens !== null) {
    out['candidatesTokenCount'] = u.outputTokens - (u.reasoningTokens ?? 0);
    if (u.reasoningTokens !== null) out['thoughtsTokenCount'] = u.reasoningTokens;
  }
  if (u.cachedInputTokens !== null) out['cachedContentTokenCount'] = u.cachedInputTokens;
  if (u.totalTokens !== null) out['totalTokenCount'] = u.totalTokens;
  return Object.keys(out).length === 0 ? null : out;
}

const utf8 = (text: string): number => byteLength(text);

/**
 * generateContent's own citations back into the metadata they were read
 * from (their `raw`): grounding chunk + support pairs into
 * `groundingMetadata` (chunks once each, supports once each with their chunk
 * indices), uncited chunks after them, retrieved URLs into
 * `urlContextMetadata`, citation sources into `citationMetadata`.
 */
function ownSources(cites: CitationEvent[]): JsonObject {
  const chunks: JsonObject[] = [];
  const chunkAt = new Map<string, number>();
  const supports = new Map<string, { support: JsonObject; indices: number[] }>();
  const urls: Json[] = [];
  const sources: Json[] = [];
  const chunk = (c: JsonObject): number => {
    const key = JSON.stringify(c);
    let i = chunkAt.get(key);
    if (i === undefined) {
      i = chunks.push(c) - 1;
      chunkAt.set(key, i);
    }
    return i;
  };
  for (const ev of cites) {
    const raw = ev.raw;
    if (!isObject(raw)) continue;
    const gc = raw['groundingChunk'];
    const gs = raw['groundingSupport'];
    if (isObject(gc) && isObject(gs)) {
      const i = chunk(gc);
      const { groundingChunkIndices: _, ...support } = gs;
      const key = JSON.stringify(support);
      let entry = supports.get(key);
      if (entry === undefined) supports.set(key, (entry = { support, indices: [] }));
      if (!entry.indices.includes(i)) entry.indices.push(i);
    } else if ('web' in raw || 'retrievedContext' in raw || 'maps' in raw || 'image' in raw) chunk(raw);
    else if ('retrievedUrl' in raw) urls.push(raw);
    else sources.push(raw);
  }
  const out: JsonObject = {};
  if (chunks.length > 0) {
    const gm: JsonObject = { groundingChunks: chunks };
    if (supports.size > 0) gm['groundingSupports'] = [...supports.values()].map((s) => ({ ...s.support, groundingChunkIndices: s.indices }));
    out['groundingMetadata'] = gm;
  }
  if (urls.length > 0) out['urlContextMetadata'] = { urlMetadata: urls };
  if (sources.length > 0) out['citationMetadata'] = { citationSources: sources };
  return out;
}

/** Our error event as the stream's error chunk. */
function errorChunk(ev: Pick<ErrorEvent, 'code' | 'message' | 'status'>): JsonObject {
  return { error: { code: ev.status ?? 500, message: ev.message, status: ev.code } };
}

type PartKind = 'text' | 'thought' | 'call' | 'audio' | 'other' | 'signature';

interface Candidate {
  k: number;
  /** The answer text written (text parts, not thoughts): Google's citation offsets count its UTF-8 bytes. */
  answer: string;
  /** Each text block's runs in the answer (UTF-16 positions). */
  runs: Map<number, { pos: number; len: number }[]>;
  /**
   * Text deltas not in `answer` yet (block index, text, or wire bytes when it came undecoded): only a
   * citation reads the answer, so a delta is decoded and placed when one asks (place).
   */
  unsettled: { index: number; text: string; raw: boolean }[];
  /** Citations, written on the last chunk. */
  cites: CitationEvent[];
  /** How it stopped (its own done, or the response's `done.choices`). */
  stop: DoneChoice | null;
  /** The last part written: its kind and unified block index (a signature attaches to it). */
  lastKind: PartKind | 'none';
  lastIndex: number;
}

/** A part held back one event: its block's signature may follow. */
interface Pending {
  k: number;
  kind: PartKind;
  index: number;
  part: JsonObject;
  /** A text or thought part's JSON characters, taken while its delta was the one being taken (ctx.chars: the source's own when it has them). */
  chars?: string;
}

interface OpenCall {
  k: number;
  index: number;
  name: string;
  text: string;
}

/**
 * One response being written. A class, not a closure per step: a log of short responses makes one
 * a response, and a closure each of its steps per response costs an allocation each (and, where the
 * code runs through a transform that keeps function names, as tsx does, a defineProperty each).
 */
class GeminiResponse implements TargetResponse {
  private id: string | null = null;
  private model: string | null = null;
  /** Signatures of this family carry. */
  private sameFamily = false;
  /** From generateContent itself: its usageMetadata (raw) as it came, and its hosted calls and results as their own parts. */
  private own = false;
  /** Provider-executed calls of generateContent (by id): written as parts at their done. */
  private readonly hosted = new Set<string>();
  private usage: UsageEvent | null = null;
  private ended = false;
  private wroteContent = false;
  private readonly candidates: Candidate[] = [];
  private readonly calls = new Map<string, OpenCall>();
  private pending: Pending | null = null;

  /** The chunk's fields after `candidates` (modelVersion, responseId) as JSON text, kept until the start event changes them. */
  private tail: string | null = null;

  constructor(
    private readonly ctx: TargetContext,
    private readonly framing: Framing,
  ) {}

  private candidate(k: number): Candidate {
    let c = this.candidates.find((x) => x.k === k);
    if (c === undefined) {
      c = { k, answer: '', runs: new Map(), unsettled: [], cites: [], stop: null, lastKind: 'none', lastIndex: -1 };
      let i = this.candidates.length;
      while (i > 0 && this.candidates[i - 1]!.k > k) i--;
      this.candidates.splice(i, 0, c);
    }
    return c;
  }


  /**
   * The chunk of one text or thought part, the bulk of every stream: written around the text's JSON
   * alone, the same bytes as chunk().
   */
  private textChunk(k: number, text: string, thought: boolean, chars?: string): void {
    this.tail ??= `${this.model === null ? '' : `,"modelVersion":${JSON.stringify(this.model)}`}${this.id === null ? '' : `,"responseId":${JSON.stringify(this.id)}`}}`;
    const after = `"${thought ? ',"thought":true' : ''}}]},"index":${k}}]${this.tail}`;
    const before = '{"candidates":[{"content":{"role":"model","parts":[{"text":"';
    if (this.framing === 'sse') this.ctx.writeText(`data: ${before}`, text, `${after}\r\n\r\n`, chars);
    else {
      const state = outputOf(this.ctx);
      this.ctx.writeText(state.open ? `\n,\r\n${before}` : `[${before}`, text, after, chars);
      state.open = true;
    }
  }

  /** A text or thought part with nothing else ({text} or {text, thought: true}, in that order). */
  private plainText(kind: PartKind, p: JsonObject): p is { text: string } {
    if (kind !== 'text' && kind !== 'thought') return false;
    if (typeof p['text'] !== 'string') return false;
    let n = 0;
    for (const key in p) if (++n > 2 || (n === 1 ? key !== 'text' : key !== 'thought' || p[key] !== true)) return false;
    return kind === 'thought' ? n === 2 : n === 1;
  }

  private chunk(cands: JsonObject[], extra?: JsonObject): void {
    const out: JsonObject = {};
    if (cands.length > 0) out['candidates'] = cands;
    if (extra !== undefined) Object.assign(out, extra);
    if (this.model !== null) out['modelVersion'] = this.model;
    if (this.id !== null) out['responseId'] = this.id;
    writeChunk(this.ctx, this.framing, out);
  }

  private content(parts: JsonObject[]): JsonObject {
    return { role: 'model', parts };
  }

  /** A signature alone, for a block with nothing else: an empty part of a new thought (or text) block. */
  private settle(p: Pending): JsonObject {
    if (p.kind !== 'signature') return p.part;
    const thought = this.candidate(p.k).lastKind !== 'thought';
    return thought ? { text: '', thought: true, ...p.part } : { text: '', ...p.part };
  }

  private flushPending(): void {
    if (this.pending === null) return;
    const p = this.pending;
    this.pending = null;
    if (this.plainText(p.kind, p.part)) this.textChunk(p.k, p.part.text, p.kind === 'thought', p.chars);
    else this.chunk([{ content: this.content([this.settle(p)]), index: p.k }]);
  }

  private part(k: number, kind: PartKind, index: number, p: JsonObject): void {
    this.wroteContent = true;
    if (this.pending !== null && this.pending.kind === 'signature' && this.pending.k === k && this.pending.index === index && (kind === 'text' || kind === 'thought')) {
      // the signature of a block that had not begun: it goes on the block's first part
      this.pending = { k, kind, index, part: { ...p, ...this.pending.part } };
    } else {
      this.flushPending();
      if (this.sameFamily) {
        // held for a signature that may follow: its text's JSON taken now, while the source's may be at hand
        this.pending = { k, kind, index, part: p };
        if (typeof p['text'] === 'string') this.pending.chars = this.ctx.chars(p['text']);
      }
      else if (this.plainText(kind, p)) this.textChunk(k, p.text, kind === 'thought');
      else this.chunk([{ content: this.content([p]), index: k }]);
    }
    const c = this.candidate(k);
    c.lastKind = kind;
    c.lastIndex = index;
  }

  private signature(k: number, index: number, sig: string): void {
    if (this.pending !== null && this.pending.k === k && this.pending.index === index && this.pending.part['thoughtSignature'] === undefined && this.pending.kind !== 'signature') {
      this.pending.part['thoughtSignature'] = sig;
      return;
    }
    const c = this.candidate(k);
    if (c.lastIndex === index) {
      // the block's later signature: an empty part of the same kind continues it
      const p: JsonObject =
        c.lastKind === 'text' ? { text: '', thoughtSignature: sig } : c.lastKind === 'thought' ? { text: '', thought: true, thoughtSignature: sig } : { thoughtSignature: sig };
      this.flushPending();
      this.wroteContent = true;
      this.chunk([{ content: this.content([p]), index: k }]);
      return;
    }
    this.flushPending();
    this.wroteContent = true;
    this.pending = { k, kind: 'signature', index, part: { thoughtSignature: sig } };
    c.lastIndex = index;
  }

  private callPart(k: number, callId: string, name: string, args: string, index: number): void {
    const { args: value, wrapped } = argumentsObject(args);
    if (wrapped) this.ctx.lose('tool_input', `input of ${name} that is not a JSON object, written as {"input": …}`);
    this.part(k, 'call', index, { functionCall: { id: callId, name, args: value } });
  }

  /**
   * generateContent's own hosted call, as the part it came in: code execution
   * (`executableCode`), a server-side tool (`toolCall`, named after its
   * type), else a server-side MCP `functionCall` (its `functionResponse`
   * follows as the next part, which is how a reader knows the server ran it).
   */
  private hostedCall(k: number, index: number, callId: string, name: string, args: string): void {
    const { args: value, wrapped } = argumentsObject(args);
    if (wrapped) this.ctx.lose('tool_input', `input of ${name} that is not a JSON object, written as {"input": …}`);
    if (name === 'code_execution') this.part(k, 'call', index, { executableCode: { ...value, id: callId } });
    else if (TOOL_TYPES.has(name) || name === 'server_tool') {
      const call: JsonObject = { id: callId };
      if (name !== 'server_tool') call['toolType'] = name.toUpperCase();
      call['args'] = value;
      this.part(k, 'call', index, { toolCall: call });
    } else this.part(k, 'call', index, { functionCall: { id: callId, name, args: value } });
  }

  /** The result of generateContent's own hosted call, as the part it came in; false when it has no such shape. */
  private hostedResult(k: number, index: number, callId: string, name: string, result: Json): boolean {
    if (name === 'code_execution') {
      if (!isObject(result)) return false;
      this.part(k, 'other', index, { codeExecutionResult: result });
    } else if (TOOL_TYPES.has(name) || name === 'server_tool') {
      const response: JsonObject = { id: callId };
      if (name !== 'server_tool') response['toolType'] = name.toUpperCase();
      response['response'] = result;
      this.part(k, 'other', index, { toolResponse: response });
    } else this.part(k, 'other', index, { functionResponse: { id: callId, name, response: result } });
    return true;
  }

  /** Calls whose done never came: written with what their deltas said. */
  private writeOpenCalls(): void {
    for (const [callId, call] of this.calls) this.callPart(call.k, callId, call.name, call.text, call.index);
    this.calls.clear();
  }

  private usageMetadata(): JsonObject | null {
    if (this.usage === null) return null;
    if (this.own && isObject(this.usage.raw)) return this.usage.raw;
    const out = geminiUsageMetadata(this.usage);
    if (this.usage.outputTokens === null && this.usage.reasoningTokens !== null) this.ctx.lose('usage', 'reasoning tokens without an output count');
    return out;
  }

  /** The unsettled deltas into the answer and its runs, in order. */
  private place(c: Candidate): void {
    for (const u of c.unsettled) {
      const text = u.raw ? decodeBody(u.text) : u.text;
      let runs = c.runs.get(u.index);
      if (runs === undefined) c.runs.set(u.index, (runs = []));
      const last = runs[runs.length - 1];
      // a block's deltas usually follow one another: one run for them
      if (last !== undefined && last.pos + last.len === c.answer.length) last.len += text.length;
      else runs.push({ pos: c.answer.length, len: text.length });
      c.answer += text;
    }
    c.unsettled.length = 0;
  }

  /** A citation of candidate c as a citationSources entry: uri, title, and UTF-8 offsets into the answer text. */
  private citationSource(c: Candidate, ev: CitationEvent): JsonObject {
    this.place(c);
    const label = ev.url ?? ev.source ?? ev.title ?? 'a citation';
    const out: JsonObject = {};
    if (ev.start !== undefined && ev.end !== undefined) {
      const start = this.answerPos(c, ev.index, ev.start);
      const end = this.answerPos(c, ev.index, ev.end);
      if (start !== null && end !== null) {
        out['startIndex'] = utf8(c.answer.slice(0, start));
        out['endIndex'] = utf8(c.answer.slice(0, end));
      } else this.ctx.lose('citation', `the offsets of ${label} (not in the text written)`);
    }
    if (ev.url !== undefined) out['uri'] = ev.url;
    if (ev.title !== undefined) out['title'] = ev.title;
    if (ev.url === undefined && ev.source !== undefined) this.ctx.lose('citation', `the source of ${label} (citationSources name a uri)`);
    if (ev.citedText !== undefined) this.ctx.lose('citation', `the cited text of ${label}`);
    return out;
  }

  /** A position in text block `index` (UTF-16) as a position in the candidate's answer text. */
  private answerPos(c: Candidate, index: number, offset: number): number | null {
    let base = 0;
    for (const run of c.runs.get(index) ?? []) {
      if (offset <= base + run.len) return run.pos + offset - base;
      base += run.len;
    }
    return null;
  }

  private citationMetadata(c: Candidate): JsonObject {
    return { citationMetadata: { citationSources: c.cites.map((ev) => this.citationSource(c, ev)) } };
  }

  private fail(ev: Pick<ErrorEvent, 'code' | 'message' | 'status' | 'raw'>): void {
    for (const c of this.candidates) for (const cite of c.cites) this.ctx.lose('citation', `${cite.url ?? cite.source ?? cite.title ?? 'a citation'} (the response failed)`);
    this.flushPending();
    this.writeOpenCalls();
    this.flushPending();
    const u = this.usageMetadata();
    // the usage so far still bills the request
    if (u !== null) this.chunk([], { usageMetadata: u });
    writeChunk(this.ctx, this.framing, this.sameFamily && isObject(ev.raw) && isObject(ev.raw['error']) ? ev.raw : errorChunk(ev));
    this.ended = true;
  }

  private finishReason(stop: DoneChoice): string {
    const native = stop.providerReason;
    if (this.sameFamily && native !== null) {
      const reads = FINISH_READS[native];
      if (reads === stop.stopReason || (reads === 'end' && stop.stopReason === 'tool_use')) return native;
    }
    if (stop.stopReason === 'error') return 'OTHER';
    return FINISH[stop.stopReason];
  }

  private finish(ev: DoneChoice): void {
    this.writeOpenCalls();
    const u = this.usageMetadata();
    const extra: JsonObject | undefined = u === null ? undefined : { usageMetadata: u };
    if (this.sameFamily && ev.stopReason === 'refusal' && !this.wroteContent && ev.providerReason !== null && BLOCK_REASONS.has(ev.providerReason)) {
      // the prompt itself was blocked: no candidate at all
      this.chunk([], { promptFeedback: { blockReason: ev.providerReason }, ...extra });
      this.ended = true;
      return;
    }
    this.candidate(0).stop = ev;
    const last = this.pending;
    this.pending = null;
    const cands = this.candidates.map((c) => {
      const out: JsonObject = {};
      if (last !== null && last.k === c.k) out['content'] = this.content([this.settle(last)]);
      if (c.cites.length > 0) Object.assign(out, this.own ? ownSources(c.cites) : this.citationMetadata(c));
      // a candidate whose own stop never came: Google's "not specified"
      out['finishReason'] = c.stop === null ? 'FINISH_REASON_UNSPECIFIED' : this.finishReason(c.stop);
      out['index'] = c.k;
      return out;
    });
    this.chunk(cands, extra);
    this.ended = true;
    const output = outputOf(this.ctx);
    output.lastId = this.id;
    output.lastWaiting = this.candidates.some((c) => c.lastKind === 'call');
  }

  push(ev: UnifiedEvent): void {
    if (this.ended) return;
    const k = ev.choice ?? 0;
    switch (ev.type) {
      case 'start': {
        const output = outputOf(this.ctx);
        // Gemini reads a response that ended on a call, followed by the same responseId, as one response
        // (server-side MCP): a source whose ids repeat (Live's session id) must not say it
        if (ev.id !== null && ev.id === output.lastId && output.lastWaiting) {
          this.ctx.lose('response_id', `${ev.id} repeated: the previous response ended on a call under it`);
          this.id = null;
        } else this.id = ev.id;
        this.model = ev.model;
        this.tail = null;
        this.sameFamily = ev.dialect !== undefined && (FAMILY as readonly string[]).includes(ev.dialect);
        this.own = ev.dialect === 'gemini';
        return;
      }
      case 'text_delta': {
        const raw = this.ctx.rawBody(ev.text);
        this.candidate(k).unsettled.push({ index: ev.index, text: raw ?? ev.text, raw: raw !== null });
        this.part(k, 'text', ev.index, { text: ev.text });
        return;
      }
      case 'reasoning_delta':
        this.part(k, 'thought', ev.index, { text: ev.text, thought: true });
        return;
      case 'signature':
        if (!this.sameFamily || ev.kind !== 'thought_signature') this.ctx.lose('signature', `a ${ev.kind} from another provider family`);
        else this.signature(k, ev.index, ev.signature);
        return;
      case 'tool_call_start':
        if (ev.providerExecuted === true) {
          if (this.own) this.hosted.add(ev.id);
          else this.ctx.lose('provider_tool_call', `${ev.name} (run by the source provider)`);
        } else if (!this.calls.has(ev.id)) this.calls.set(ev.id, { k, index: ev.index, name: ev.name, text: '' });
        return;
      case 'tool_call_delta': {
        if (ev.providerExecuted === true) return; // counted at its start
        let call = this.calls.get(ev.id);
        if (call === undefined) this.calls.set(ev.id, (call = { k, index: ev.index, name: '', text: '' }));
        call.text += ev.argumentsDelta;
        return;
      }
      case 'tool_call_done':
        if (ev.providerExecuted === true) {
          if (this.hosted.has(ev.id)) this.hostedCall(k, ev.index, ev.id, ev.name, ev.arguments);
          return;
        }
        this.calls.delete(ev.id);
        this.callPart(k, ev.id, ev.name, ev.arguments, ev.index);
        return;
      case 'tool_result':
        if (!this.own || !this.hostedResult(k, ev.index, ev.id, ev.name, ev.result)) this.ctx.lose('tool_result', `the result of ${ev.name === '' ? ev.id : ev.name}`);
        return;
      case 'citation':
        this.candidate(k).cites.push(ev);
        return;
      case 'file':
        if (ev.partial !== true) {
          const blob: JsonObject = { data: ev.data };
          if (ev.mimeType !== null) blob['mimeType'] = ev.mimeType;
          this.part(k, 'other', ev.index, { inlineData: blob });
        }
        return;
      case 'audio_delta':
        if (ev.mimeType === null || !ev.mimeType.startsWith('audio/')) this.ctx.lose('audio', `${ev.mimeType ?? 'untyped'} audio (inlineData needs an audio/… type)`);
        else this.part(k, 'audio', ev.index, { inlineData: { mimeType: ev.mimeType, data: ev.data } });
        return;
      case 'usage':
        this.usage = ev;
        return;
      case 'error':
        if (ev.terminal) this.fail(ev);
        else this.ctx.lose('error', `${ev.code}: ${ev.message}`);
        return;
      case 'done':
        if (k !== 0) {
          this.candidate(k).stop = { choice: k, stopReason: ev.stopReason, providerReason: ev.providerReason };
          return;
        }
        for (const c of ev.choices ?? []) this.candidate(c.choice).stop = c;
        if (ev.stopReason === 'error') this.fail({ code: 'api_error', message: `the response ended with an error${ev.providerReason === null ? '' : ` (${ev.providerReason})`}` });
        else this.finish({ choice: 0, stopReason: ev.stopReason, providerReason: ev.providerReason });
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

  // a part is held back (for a signature that may follow) only from its own family: written at once otherwise
  get rawDeltas() {
    return this.sameFamily ? undefined : 'all';
  }

  abort(): void {
    if (!this.ended) this.fail({ code: 'incomplete_stream', message: 'the source stream ended before the response was done' });
  }
}

function createResponse(ctx: TargetContext, framing: Framing): TargetResponse {
  return new GeminiResponse(ctx, framing);
}

function definition<const N extends string>(name: N, framing: Framing) {
  return defineTarget({
    name,
    contentType: framing === 'sse' ? 'text/event-stream' : 'application/json',
    family: FAMILY,
    passThrough: { dialects: ['gemini'], framing },
    createResponse: (ctx) => createResponse(ctx, framing),
    writeError(ev, ctx) {
      writeChunk(ctx, framing, errorChunk(ev));
    },
    end(ctx) {
      if (framing === 'sse') return;
      ctx.write(outputOf(ctx).open ? '\n]' : '[]');
      outputs.delete(ctx);
    },
  });
}

export const geminiTarget = definition('gemini', 'sse');
export const geminiJsonArrayTarget = definition('gemini-json-array', 'json-array');
