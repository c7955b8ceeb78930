/**
 * Gemini `streamGenerateContent` (`?alt=sse` data-only SSE, or the default
 * JSON-array framing: same payloads). Every chunk is a partial
 * GenerateContentResponse holding only the newest parts.
 *
 * Positions (`index`): Gemini has no block index, and every chunk restarts
 * its `parts` at 0, so `index` is a per-candidate counter of *blocks*:
 * - consecutive text parts (across chunks) continue one text block, and
 *   consecutive `thought: true` parts one thought block;
 * - a change of kind (text ↔ thought ↔ functionCall ↔ other) opens a new block;
 * - every functionCall, and every other part (executableCode, inlineData…),
 *   is a block of its own; the continuation chunks of a Vertex streamed call
 *   (`partialArgs`) stay on that call's block;
 * - an empty-text part without a signature carries nothing and changes nothing;
 *   a part carrying only a `thoughtSignature` attaches to the current block.
 */
import type { DoneEvent, Json, JsonObject, StopReason, UnifiedEvent, Usage } from '../events.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, str, sum, usageEvent } from './helpers.js';
import { isKeepAlive } from './detect.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

/** finishReason values that mean the output was withheld for policy reasons. */
const REFUSAL_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

function stopReasonOf(finishReason: string, sawFunctionCall: boolean): StopReason {
  if (finishReason === 'STOP') return sawFunctionCall ? 'tool_use' : 'end';
  if (finishReason === 'MAX_TOKENS') return 'max_tokens';
  return REFUSAL_REASONS.has(finishReason) ? 'refusal' : 'other';
}

/** usageMetadata → unified usage (the caller keeps only the last, cumulative one). */
export function geminiUsage(u: JsonObject): Usage {
  const prompt = num(u['promptTokenCount']);
  const toolPrompt = num(u['toolUsePromptTokenCount']);
  const candidates = num(u['candidatesTokenCount']);
  const thoughts = num(u['thoughtsTokenCount']);
  const inputTokens = sum(prompt, toolPrompt);
  const outputTokens = sum(candidates, thoughts);
  return {
    inputTokens,
    outputTokens,
    totalTokens: num(u['totalTokenCount']) ?? sum(inputTokens, outputTokens),
    reasoningTokens: thoughts ?? null,
    cachedInputTokens: num(u['cachedContentTokenCount']) ?? null,
  };
}

// ---------------------------------------------------------------------------
// Vertex streamed function-call arguments (`partialArgs`)
// ---------------------------------------------------------------------------

type PathSegment = string | number;
type Tree = { [key: string]: unknown } | unknown[];

interface OpenContainer {
  segment: PathSegment;
  isArray: boolean;
  /** Members written so far (decides the comma). */
  count: number;
}

/** Parses `$.a.b[0]['c d']` into segments; null when the path is not understood. */
export function parseJsonPath(path: string): PathSegment[] | null {
  if (path.charCodeAt(0) !== 0x24 /* $ */) return null;
  const out: PathSegment[] = [];
  let i = 1;
  const n = path.length;
  while (i < n) {
    const c = path.charCodeAt(i);
    if (c === 0x2e /* . */) {
      let j = i + 1;
      while (j < n) {
        const d = path.charCodeAt(j);
        if (d === 0x2e || d === 0x5b) break;
        j++;
      }
      if (j === i + 1) return null;
      out.push(path.slice(i + 1, j));
      i = j;
    } else if (c === 0x5b /* [ */) {
      const q = path.charCodeAt(i + 1);
      if (q === 0x27 || q === 0x22) {
        // Quoted member name: ['key'] / ["key"].
        const end = path.indexOf(String.fromCharCode(q) + ']', i + 2);
        if (end < 0) return null;
        out.push(path.slice(i + 2, end));
        i = end + 2;
      } else {
        const end = path.indexOf(']', i + 1);
        if (end < 0 || end === i + 1) return null;
        let value = 0;
        for (let k = i + 1; k < end; k++) {
          const d = path.charCodeAt(k) - 0x30;
          if (d < 0 || d > 9) return null;
          value = value * 10 + d;
        }
        out.push(value);
        i = end + 1;
      }
    } else return null;
  }
  return out.length === 0 ? null : out;
}

/** Keys that JS objects would reorder before the others (integer-like). */
function isIndexLike(key: string): boolean {
  const n = key.length;
  if (n === 0 || n > 10) return false;
  for (let i = 0; i < n; i++) {
    const d = key.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return false;
  }
  return n === 1 || key.charCodeAt(0) !== 0x30;
}

function newContainer(isArray: boolean): Tree {
  // Null prototype: a `__proto__` member stays an ordinary key.
  return isArray ? [] : (Object.create(null) as { [key: string]: unknown });
}

function getChild(c: Tree, seg: PathSegment): unknown {
  return Array.isArray(c) ? (typeof seg === 'number' ? c[seg] : undefined) : c[String(seg)];
}

function setChild(c: Tree, seg: PathSegment, v: unknown): void {
  if (Array.isArray(c)) {
    if (typeof seg === 'number') c[seg] = v;
  } else c[String(seg)] = v;
}

/**
 * Assembles one streamed call's arguments from `partialArgs` entries: keeps
 * the value tree (authoritative: `arguments` = its JSON.stringify) and writes
 * the JSON text as it goes so deltas can be streamed. A string with
 * `willContinue` stays open and later entries for the same path append to it.
 * Entries that would make the text disagree with the final object (revisiting
 * a closed container, skipped array slots, integer-like keys) switch delta
 * streaming off; `arguments` stays exact.
 */
export class PartialArgsAssembler {
  private readonly root = newContainer(false) as { [key: string]: unknown };
  /** Containers open in the streamed text; [0] is the root once written. */
  private readonly stack: OpenContainer[] = [];
  private readonly written: string[] = [];
  /** The path (serialized) of the string value left open, or null. */
  private openString: string | null = null;
  private openStringSegments: PathSegment[] | null = null;
  private diverged = false;

  /** Applies one `partialArgs` array; returns the text delta ('' when none). */
  apply(partialArgs: Json[]): string {
    let delta = '';
    for (const entry of partialArgs) {
      const a = obj(entry);
      if (a === undefined) continue;
      const path = str(a['jsonPath']);
      if (path === undefined) continue;
      const segments = parseJsonPath(path);
      if (segments === null) continue;
      const willContinue = a['willContinue'] === true;
      const s = str(a['stringValue']);
      if (s !== undefined && this.openString === path) {
        // Continuation of the open string.
        const segs = this.openStringSegments!;
        const parent = this.containerFor(segs, false);
        if (parent !== null) {
          const leaf = segs[segs.length - 1]!;
          setChild(parent, leaf, String(getChild(parent, leaf) ?? '') + s);
        }
        if (!this.diverged) {
          delta += JSON.stringify(s).slice(1, -1);
          if (!willContinue) delta += '"';
        }
        if (!willContinue) this.closeString();
        continue;
      }
      let value: Json;
      if (s !== undefined) value = s;
      else if (typeof a['numberValue'] === 'number') value = a['numberValue'];
      else if (typeof a['boolValue'] === 'boolean') value = a['boolValue'];
      else if ('nullValue' in a) value = null;
      else continue;
      if (this.openString !== null) {
        if (!this.diverged) delta += '"';
        this.closeString();
      }
      if (!this.diverged) {
        const text = this.navigateAndWrite(segments, value, s !== undefined && willContinue);
        if (text === null) this.diverged = true;
        else delta += text;
      }
      const parent = this.containerFor(segments, true);
      if (parent !== null) setChild(parent, segments[segments.length - 1]!, value);
      if (s !== undefined && willContinue) {
        this.openString = path;
        this.openStringSegments = segments;
      }
    }
    if (delta !== '') this.written.push(delta);
    return delta;
  }

  /** The complete arguments, and the delta that completes the streamed text (null when streaming diverged). */
  finish(): { args: string; rest: string | null } {
    const args = JSON.stringify(this.root);
    if (this.diverged) return { args, rest: null };
    const streamed = this.written.join('');
    return { args, rest: args.startsWith(streamed) ? args.slice(streamed.length) : null };
  }

  private closeString(): void {
    this.openString = null;
    this.openStringSegments = null;
  }

  /** The container holding the leaf of `segments`, created when `create` (null on a type clash). */
  private containerFor(segments: PathSegment[], create: boolean): Tree | null {
    let cur: Tree = this.root;
    for (let i = 0; i < segments.length - 1; i++) {
      const seg = segments[i]!;
      const wantArray = typeof segments[i + 1] === 'number';
      let next = getChild(cur, seg);
      if (next === undefined || next === null || typeof next !== 'object') {
        if (!create) return null;
        if (Array.isArray(cur) && typeof seg !== 'number') return null;
        next = newContainer(wantArray);
        setChild(cur, seg, next);
      } else if (Array.isArray(next) !== wantArray) return null;
      cur = next as Tree;
    }
    return cur;
  }

  /** JSON text that moves from the open containers to the new leaf and writes it; null if it cannot stay consistent. */
  private navigateAndWrite(segments: PathSegment[], value: Json, leaveStringOpen: boolean): string | null {
    const parts: string[] = [];
    if (this.stack.length === 0) {
      this.stack.push({ segment: '', isArray: false, count: 0 });
      parts.push('{');
    }
    const depth = segments.length - 1; // containers below the root
    // Keep the open containers that are a prefix of the target's container path.
    let common = 0;
    while (common < depth && common + 1 < this.stack.length && this.stack[common + 1]!.segment === segments[common]) common++;
    while (this.stack.length > common + 1) parts.push(this.stack.pop()!.isArray ? ']' : '}');
    // Open the missing containers; each must be new, or the text would repeat a key.
    let cur: unknown = this.root;
    for (let i = 0; i < common; i++) cur = getChild(cur as Tree, segments[i]!);
    for (let i = common; i <= depth; i++) {
      const seg = segments[i]!;
      const parent = this.stack[this.stack.length - 1]!;
      if (!this.fits(parent, seg)) return null;
      if (cur !== undefined && cur !== null && typeof cur === 'object' && getChild(cur as Tree, seg) !== undefined) return null;
      if (parent.count > 0) parts.push(',');
      parent.count++;
      if (!parent.isArray) parts.push(JSON.stringify(seg), ':');
      if (i === depth) break;
      const isArray = typeof segments[i + 1] === 'number';
      parts.push(isArray ? '[' : '{');
      this.stack.push({ segment: seg, isArray, count: 0 });
      cur = undefined;
    }
    const json = JSON.stringify(value);
    parts.push(leaveStringOpen ? json.slice(0, -1) : json);
    return parts.join('');
  }

  private fits(parent: OpenContainer, seg: PathSegment): boolean {
    if (parent.isArray) return typeof seg === 'number' && seg === parent.count;
    return typeof seg === 'string' && !isIndexLike(seg);
  }
}

// ---------------------------------------------------------------------------
// Response handler
// ---------------------------------------------------------------------------

type BlockKind = 'none' | 'text' | 'thought' | 'call' | 'other';

interface OpenCall {
  index: number;
  id: string;
  name: string;
  assembler: PartialArgsAssembler;
}

interface CandidateState {
  /** Candidate index: 0, or k for `choice: k`. */
  choice: number;
  blocks: number;
  kind: BlockKind;
  current: number;
  call: OpenCall | null;
  sawFunctionCall: boolean;
  finishReason: string | null;
}

/**
 * A generateContent response's handler, with the text mapping that both the
 * parse path (part) and the template path (lib/fast/dialects/gemini.ts) go
 * through.
 */
export interface GeminiResponse extends ResponseHandler {
  /** Candidate k's state (made on first sight), or null once it has a finishReason: its next chunk ends the response. */
  openCandidate(k: number): GeminiCandidate | null;
  /** The chunk's usageMetadata: parsed, or its JSON text (parsed only if it stays the last). */
  setUsage(u: JsonObject | string): void;
  /** A text (thought) part of candidate c: a call still open ends, the text (thought) block goes on or a new one opens; its index. */
  textBlock(c: GeminiCandidate, thought: boolean): number;
  /** A text (reasoning: thought) delta, not empty, of block `index` of candidate c. */
  textDelta(c: GeminiCandidate, index: number, thought: boolean, text: string): void;
  /** A thoughtSignature, not empty, of block `index` of candidate c. */
  signature(c: GeminiCandidate, index: number, sig: string): void;
}

export type GeminiCandidate = CandidateState;

/** Top-level keys that carry nothing beyond what the unified events already say. */
const QUIET_TOP = new Set(['candidates', 'usageMetadata', 'modelVersion', 'responseId', 'createTime', 'turnToken']);
/** Candidate keys handled here or pure per-chunk scalars. */
const QUIET_CANDIDATE = new Set(['content', 'finishReason', 'index', 'avgLogprobs', 'tokenCount']);
/** Part keys mapped to unified events. */
const HANDLED_PART = new Set(['text', 'thought', 'thoughtSignature', 'functionCall']);

/** Empty objects/arrays (Gemini sends `groundingMetadata: {}` on every chunk) carry nothing. */
function isEmptyValue(v: Json | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    for (const _ in v) return false;
    return true;
  }
  return false;
}

function createGeminiResponse(ctx: DialectContext): GeminiResponse {
  /** The last usageMetadata; its JSON text while it came through the fast path (parsed only if it stays the last). */
  let usage: JsonObject | string | null = null;
  const candidates: CandidateState[] = [];
  /** Events emitted for the payload being handled (to know when a raw is owed). */
  let emitted = 0;

  const self = {
    emit(ev: UnifiedEvent): void {
      emitted++;
      ctx.emit(ev);
    },

    candidate(k: number): CandidateState {
      for (const c of candidates) if (c.choice === k) return c;
      const c: CandidateState = { choice: k, blocks: 0, kind: 'none', current: -1, call: null, sawFunctionCall: false, finishReason: null };
      // Kept sorted by choice: done events go out in that order.
      let i = candidates.length;
      while (i > 0 && candidates[i - 1]!.choice > k) i--;
      candidates.splice(i, 0, c);
      return c;
    },

    /** Stamps `choice` for candidates other than 0 (key order stays fixed: it is always last). */
    out<E extends UnifiedEvent>(c: CandidateState, ev: E): void {
      if (c.choice !== 0) ev.choice = c.choice;
      self.emit(ev);
    },

    openBlock(c: CandidateState, kind: BlockKind): number {
      c.kind = kind;
      c.current = c.blocks++;
      return c.current;
    },

    // ---- the text mapping (see GeminiResponse) ----

    openCandidate(k: number): CandidateState | null {
      for (const c of candidates) if (c.choice === k) return c.finishReason === null ? c : null;
      return self.candidate(k);
    },

    setUsage(u: JsonObject | string): void {
      usage = u;
    },

    textBlock(c: CandidateState, thought: boolean): number {
      const kind: BlockKind = thought ? 'thought' : 'text';
      self.closeCall(c);
      return c.kind === kind ? c.current : self.openBlock(c, kind);
    },

    textDelta(c: CandidateState, index: number, thought: boolean, text: string): void {
      self.out(c, thought ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text });
    },

    signature(c: CandidateState, index: number, sig: string): void {
      self.out(c, { type: 'signature', index, signature: sig, kind: 'thought_signature' });
    },

    closeCall(c: CandidateState): void {
      const call = c.call;
      if (call === null) return;
      c.call = null;
      const { args, rest } = call.assembler.finish();
      if (rest !== null && rest !== '') self.out(c, { type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: rest });
      self.out(c, { type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: args });
    },

    functionCallPart(c: CandidateState, fc: JsonObject, sig: string | undefined): void {
      const name = str(fc['name']);
      const partialArgs = arr(fc['partialArgs']);
      const willContinue = fc['willContinue'] === true;
      if ((name === undefined || name === '') && c.call !== null) {
        // Continuation of a Vertex streamed call (also its empty `{}` terminator).
        const call = c.call;
        if (partialArgs !== undefined) {
          const delta = call.assembler.apply(partialArgs);
          if (delta !== '') self.out(c, { type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: delta });
        }
        if (sig !== undefined && sig !== '') self.signature(c, call.index, sig);
        if (!willContinue) self.closeCall(c);
        return;
      }
      if (name === undefined && partialArgs === undefined && !isObject(fc['args'])) {
        // A stray terminator or keep-alive with no call open: nothing to map.
        if (sig !== undefined && sig !== '' && c.current >= 0) self.signature(c, c.current, sig);
        return;
      }
      self.closeCall(c); // a new named call ends one whose terminator never came
      const index = self.openBlock(c, 'call');
      const id = str(fc['id']) || `call_${index}`;
      const callName = name ?? '';
      c.sawFunctionCall = true;
      self.out(c, { type: 'tool_call_start', index, id, name: callName });
      if (partialArgs !== undefined || willContinue) {
        const call: OpenCall = { index, id, name: callName, assembler: new PartialArgsAssembler() };
        c.call = call;
        if (partialArgs !== undefined) {
          const delta = call.assembler.apply(partialArgs);
          if (delta !== '') self.out(c, { type: 'tool_call_delta', index, id, argumentsDelta: delta });
        }
        if (sig !== undefined && sig !== '') self.signature(c, index, sig);
        if (!willContinue) self.closeCall(c);
        return;
      }
      const args = JSON.stringify(fc['args'] ?? {});
      self.out(c, { type: 'tool_call_delta', index, id, argumentsDelta: args });
      self.out(c, { type: 'tool_call_done', index, id, name: callName, arguments: args });
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    /** Maps one part; returns true when the part holds something no unified event carries. */
    part(c: CandidateState, p: JsonObject): boolean {
      let notable = false;
      for (const k in p) {
        if (!HANDLED_PART.has(k)) {
          notable = true;
          break;
        }
      }
      const sig = str(p['thoughtSignature']);
      const fc = obj(p['functionCall']);
      if (fc !== undefined) {
        self.functionCallPart(c, fc, sig);
        return notable;
      }
      const text = str(p['text']);
      if (text !== undefined) {
        if (text === '' && (sig === undefined || sig === '')) return notable;
        const thought = p['thought'] === true;
        const index = self.textBlock(c, thought);
        if (text !== '') self.textDelta(c, index, thought, text);
        if (sig !== undefined && sig !== '') self.signature(c, index, sig);
        return notable;
      }
      if (!notable) {
        // Only a signature (or nothing): it belongs to the current block.
        if (sig !== undefined && sig !== '') self.signature(c, c.current >= 0 ? c.current : self.openBlock(c, 'other'), sig);
        return false;
      }
      // executableCode, codeExecutionResult, inlineData, fileData, toolCall…: a block of its own, carried by raw.
      self.closeCall(c);
      const index = self.openBlock(c, 'other');
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
      return true;
    },

    /** Maps one candidate; returns true when it holds something only raw carries. */
    candidatePayload(c: CandidateState, cand: JsonObject): boolean {
      let notable = false;
      for (const k in cand) {
        if (!QUIET_CANDIDATE.has(k) && !isEmptyValue(cand[k])) {
          notable = true;
          break;
        }
      }
      const content = obj(cand['content']);
      const parts = content === undefined ? undefined : arr(content['parts']);
      if (parts !== undefined) {
        for (const p of parts) {
          if (isObject(p)) {
            if (self.part(c, p)) notable = true;
          } else notable = true;
        }
      }
      const finish = str(cand['finishReason']);
      if (finish !== undefined && finish !== '') {
        self.closeCall(c);
        c.finishReason = finish;
      }
      return notable;
    },

    doneFor(c: CandidateState, fallback: StopReason): DoneEvent {
      const reason = c.finishReason;
      return reason === null ? doneEvent(fallback, null) : doneEvent(stopReasonOf(reason, c.sawFunctionCall), reason);
    },

    /** Closes open calls and reports the last usage. */
    flush(): void {
      for (const c of candidates) self.closeCall(c);
      if (usage === null) return;
      if (typeof usage === 'string') usage = JSON.parse(usage) as JsonObject;
      const u = geminiUsage(usage);
      // Vertex sends `{trafficType}` alone until the last chunk: no count known is no usage.
      if (u.inputTokens === null && u.outputTokens === null && u.totalTokens === null) return;
      self.emit(usageEvent(u, usage));
    },

    /** Choices k>0 first, then the response's own done (candidate 0). */
    finish(final: DoneEvent, fallback: StopReason): void {
      for (const c of candidates) if (c.choice !== 0) self.out(c, self.doneFor(c, fallback));
      self.emit(final);
    },

    finishNormally(): void {
      self.flush();
      const c0 = candidates.length > 0 && candidates[0]!.choice === 0 ? candidates[0]! : null;
      self.finish(c0 === null ? doneEvent('other', null) : self.doneFor(c0, 'other'), 'other');
    },

    abort(code: string, message: string, raw: Json | undefined): void {
      self.flush();
      self.emit(errorEvent(code, message, true, raw));
      // A terminal error is followed by done(error); finished choices k>0 keep their own reason.
      self.finish(doneEvent('error', null), 'error');
    },

    errorChunk(payload: JsonObject, err: JsonObject): void {
      const status = str(err['status']);
      const codeValue = err['code'];
      const code = status || (typeof codeValue === 'number' ? String(codeValue) : str(codeValue)) || 'provider_error';
      self.abort(code, str(err['message']) ?? code, payload);
    },

    onPayload(payload: Json): void {
      if (!isObject(payload)) {
        self.emit({ type: 'raw', event: payload });
        return;
      }
      emitted = 0;
      const cands = arr(payload['candidates']);
      const err = obj(payload['error']);
      if (err !== undefined && cands === undefined) {
        self.errorChunk(payload, err);
        return;
      }
      if (!handler.started) {
        handler.started = true;
        self.emit({ type: 'start', id: str(payload['responseId']) ?? null, model: str(payload['modelVersion']) ?? null });
      }
      const u = obj(payload['usageMetadata']);
      if (u !== undefined) self.setUsage(u);
      let notable = false;
      for (const k in payload) {
        if (!QUIET_TOP.has(k) && !isEmptyValue(payload[k])) {
          notable = true;
          break;
        }
      }
      if (cands !== undefined) {
        for (let i = 0; i < cands.length; i++) {
          const cand = cands[i];
          if (!isObject(cand)) {
            notable = true;
            continue;
          }
          const c = self.candidate(num(cand['index']) ?? i);
          if (self.candidatePayload(c, cand)) notable = true;
        }
      }
      // The response ends when every candidate has finished, or on a prompt block (no candidates at all).
      let blockReason: string | undefined;
      let finishing = candidates.length > 0;
      if (finishing) {
        for (const c of candidates) if (c.finishReason === null) finishing = false;
      } else {
        blockReason = str(obj(payload['promptFeedback'])?.['blockReason']);
        finishing = blockReason !== undefined && blockReason !== '';
      }
      // Raw keeps what no unified event carries, and stands for a chunk that maps to nothing.
      if (notable || (emitted === 0 && !finishing)) self.emit({ type: 'raw', event: payload });
      if (!finishing) return;
      if (blockReason !== undefined) {
        self.flush();
        self.emit(doneEvent('refusal', blockReason));
      } else self.finishNormally();
    },
  };

  const handler = {
    onPayload: self.onPayload,
    openCandidate: self.openCandidate,
    setUsage: self.setUsage,
    textBlock: self.textBlock,
    textDelta: self.textDelta,
    signature: self.signature,
    onDoneSentinel() {
      // `[DONE]` is not part of this dialect; a proxy's sentinel before finishReason ends the response cut short.
      if (!handler.started) {
        self.emit({ type: 'raw', event: '[DONE]' });
        return;
      }
      self.abort('incomplete_stream', 'the stream ended before a finishReason', undefined);
    },
    onIncomplete() {
      if (candidates.some((c) => c.choice !== 0)) {
        // Choices k>0 owe their own done, which only this handler can emit in order.
        self.abort('incomplete_stream', "input ended before the response's terminal event", undefined);
        return;
      }
      self.flush();
    },
    // a data field, not a getter: an accessor would put the handler in dictionary mode (see normalizer.ts)
    started: false as boolean,
  } satisfies GeminiResponse;
  return handler;
}

export const gemini = defineDialect({
  name: 'gemini',
  family: 'gemini',
  // generateContent's chunks (SSE or a JSON array); gemini-live, before it in the registry, has taken Live's messages.
  detect: (payload) => !isKeepAlive(payload) && ('candidates' in payload || 'usageMetadata' in payload || 'promptFeedback' in payload),
  createResponse: createGeminiResponse,
});
