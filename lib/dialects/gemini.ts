/**
 * Gemini `streamGenerateContent` (`?alt=sse` data-only SSE, or the default
 * JSON-array framing: same payloads). Every chunk is a partial
 * GenerateContentResponse holding only the newest parts.
 *
 * Positions (`index`): Gemini has no block index, and every chunk restarts
 * its `parts` at 0, so `index` is a per-candidate counter of *blocks*:
 * - consecutive text parts (across chunks) continue one text block, and
 *   consecutive `thought: true` parts one thought block (audio parts one audio block);
 * - a change of kind (text ↔ thought ↔ functionCall ↔ other) opens a new block;
 * - every functionCall, and every other part (executableCode, inlineData…),
 *   is a block of its own; the continuation chunks of a Vertex streamed call
 *   (`partialArgs`) stay on that call's block;
 * - an empty-text part without a signature carries nothing and changes nothing;
 *   a part carrying only a `thoughtSignature` attaches to the current block.
 *
 * Calls the provider runs itself (`providerExecuted` on their three events,
 * their outcome a `tool_result` with the call's id):
 * - `executableCode {language, code, id?}`: a call named `code_execution`,
 *   arguments `{"language","code"}`; its id is the part's, else
 *   `code_<block>` (`code_<k>_<block>` for candidate k > 0: unique within the
 *   response). `codeExecutionResult` is its result (the call of the same id,
 *   else the last code call still without one; isError unless `OUTCOME_OK`).
 * - `toolCall {id, toolType, args}` / `toolResponse {id, toolType, response}`
 *   (server-side tool invocations): a call named after the tool type in lower
 *   case (`google_search_web`, `url_context`, `file_search`…), id the part's
 *   (else `tool_<block>`); the result is `response` as received.
 * - server-side MCP: a plain `functionCall` the server runs shows up in the
 *   model's turn with `finishReason: STOP` ("Model generated function
 *   call(s).") and is followed, under the same `responseId`, by a
 *   `functionResponse` in the model's own content, more text and a second
 *   STOP. So a whole functionCall's events wait for the candidate's next part
 *   (or the end of the response): a `functionResponse` for it (same id, else
 *   same name) makes it provider-executed, with that response as its result;
 *   anything else makes it the client's. And a response whose candidates end
 *   with such a call waiting holds its `done` until the next payload: the same
 *   `responseId` continues the response (one start, one done, the last
 *   cumulative usage), anything else (or the end of the input) ends it first.
 *   A response without a `responseId` is never continued. Streamed Vertex
 *   calls (`partialArgs`) are always the client's: their deltas go out live.
 *
 * Citations (emitted when the response ends, once each however often the
 * metadata is repeated): one per (groundingSupport, groundingChunk) pair of
 * `groundingMetadata` (web / retrievedContext / maps / image chunks), one
 * without offsets per chunk no support cites, one per retrieved
 * `urlContextMetadata` URL not already cited, one per
 * `citationMetadata.citationSources` (Vertex: `citations`) entry. Google gives
 * `startIndex`/`endIndex` in UTF-8 bytes of the candidate's answer text; they
 * become UTF-16 offsets into the text block holding the range (`index`), kept
 * only when the range lies in one block and, where the provider quotes it
 * (`segment.text`), the text there is that quote.
 *
 * Files: an `inlineData` part is a `file` event (audio: `audio_delta`),
 * holding the base64 string as parsed.
 *
 * Enums sent as integers (Vertex `$alt=json;enum-encoding=int`) read like
 * their names (see the tables below).
 */
import type { CitationEvent, DoneEvent, Json, JsonObject, StopReason, UnifiedEvent, Usage } from '../events.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, str, sum, usageEvent } from './helpers.js';
import { isKeepAlive } from './detect.js';
import { TextLedger } from './text-offsets.js';
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

// Integer enums: the numbering of google/cloud/aiplatform/v1 (Vertex is where
// `enum-encoding=int` applies): content.proto Candidate.FinishReason,
// prediction_service.proto GenerateContentResponse.PromptFeedback.BlockedReason,
// tool.proto CodeExecutionResult.Outcome and ExecutableCode.Language,
// content.proto UrlMetadata.UrlRetrievalStatus. Harm categories, probabilities
// and modalities only appear inside raw payloads, which stay as received.
const FINISH_REASONS = [
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'MODEL_ARMOR',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  'UNEXPECTED_TOOL_CALL',
  'NO_IMAGE',
];
const BLOCK_REASONS = ['BLOCKED_REASON_UNSPECIFIED', 'SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT'];
const OUTCOMES = ['OUTCOME_UNSPECIFIED', 'OUTCOME_OK', 'OUTCOME_FAILED', 'OUTCOME_DEADLINE_EXCEEDED'];
const LANGUAGES = ['LANGUAGE_UNSPECIFIED', 'PYTHON'];
const URL_STATUSES = [
  'URL_RETRIEVAL_STATUS_UNSPECIFIED',
  'URL_RETRIEVAL_STATUS_SUCCESS',
  'URL_RETRIEVAL_STATUS_ERROR',
  'URL_RETRIEVAL_STATUS_PAYWALL',
  'URL_RETRIEVAL_STATUS_UNSAFE',
];

/** An enum field as its name: a string as is, an integer by the table (an unknown one as its digits). */
export function enumName(v: Json | undefined, names: readonly string[]): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return names[v] ?? String(v);
  return undefined;
}

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
// Citations
// ---------------------------------------------------------------------------

/** A source a candidate's text cites, before its offsets are resolved. */
interface Cited {
  url: string | undefined;
  title: string | undefined;
  source: string | undefined;
  citedText: string | undefined;
  /** UTF-8 byte offsets into the candidate's answer text. */
  startByte: number | undefined;
  endByte: number | undefined;
  /** The provider's quote of that range (`segment.text`): the offsets are kept only if the text there is this. */
  quote: string | undefined;
  raw: Json;
}

function cited(raw: Json, url: string | undefined, title: string | undefined, source: string | undefined, citedText?: string): Cited {
  return { url, title, source, citedText, startByte: undefined, endByte: undefined, quote: undefined, raw };
}

/** Per grounding chunk kind: the keys of its URL (first present), of its source when it has no URL, of its quoted passage. */
const CHUNK_KINDS: [kind: string, url: string[], source: string[], passage: string | null][] = [
  ['web', ['uri'], ['domain'], null],
  ['retrievedContext', ['uri'], ['documentName', 'fileSearchStore'], 'text'],
  ['maps', ['uri'], ['placeId'], null],
  ['image', ['sourceUri', 'imageUri'], ['domain'], null],
];

function firstString(o: JsonObject, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(o[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** What a grounding chunk names (web, retrievedContext, maps, image); `source` only when there is no URL. */
function chunkCitation(chunk: JsonObject, raw: Json): Cited {
  for (const [kind, urlKeys, sourceKeys, passage] of CHUNK_KINDS) {
    const o = obj(chunk[kind]);
    if (o === undefined) continue;
    const url = firstString(o, urlKeys);
    return cited(raw, url, str(o['title']), url === undefined ? firstString(o, sourceKeys) : undefined, passage === null ? undefined : str(o[passage]));
  }
  return cited(raw, undefined, undefined, undefined);
}

/**
 * One candidate's sources: grounding metadata, URL context and citation
 * metadata as they come (possibly repeated or cumulative from chunk to
 * chunk: each source is kept once), resolved into citation events at the end.
 */
class CandidateSources {
  private readonly list: Cited[] = [];
  private readonly seen = new Set<string>();
  /** Chunks by their JSON, in order of appearance, and those some support cites. */
  private readonly chunks = new Map<string, JsonObject>();
  private readonly supported = new Set<string>();
  /** Retrieved URL context entries by URL. */
  private readonly urls = new Map<string, JsonObject>();

  /** Reads groundingMetadata; true when it holds more than its chunks and supports (search entry point, queries…). */
  grounding(gm: JsonObject): boolean {
    const chunks = arr(gm['groundingChunks']) ?? [];
    const keys = chunks.map((c) => (isObject(c) ? JSON.stringify(c) : null));
    for (let i = 0; i < chunks.length; i++) {
      const key = keys[i];
      if (key !== null && key !== undefined && !this.chunks.has(key)) this.chunks.set(key, chunks[i] as JsonObject);
    }
    for (const s of arr(gm['groundingSupports']) ?? []) {
      const support = obj(s);
      if (support === undefined) continue;
      const segment = obj(support['segment']);
      const segmentKey = segment === undefined ? '' : JSON.stringify(segment);
      for (const ci of arr(support['groundingChunkIndices']) ?? []) {
        const i = num(ci);
        const key = i === undefined ? undefined : keys[i];
        if (key === undefined || key === null) continue;
        this.supported.add(key);
        if (!this.once(`g${key}\n${segmentKey}`)) continue;
        const c = chunkCitation(chunks[i!] as JsonObject, { groundingChunk: chunks[i!]!, groundingSupport: support });
        if (segment !== undefined) {
          const quote = str(segment['text']);
          const part = num(segment['partIndex']) ?? 0;
          // Offsets into another part than the first are only trusted when the quote confirms them.
          if (part === 0 || quote !== undefined) {
            c.startByte = num(segment['startIndex']) ?? 0;
            c.endByte = num(segment['endIndex']);
            c.quote = quote;
          }
        }
        this.list.push(c);
      }
    }
    for (const k in gm) {
      if (k !== 'groundingChunks' && k !== 'groundingSupports' && !isEmptyValue(gm[k])) return true;
    }
    return false;
  }

  /** Reads urlContextMetadata; true when some entry is not a retrieved URL (a failed retrieval stays raw). */
  urlContext(um: JsonObject): boolean {
    let rest = false;
    for (const e of arr(um['urlMetadata']) ?? []) {
      const entry = obj(e);
      const url = str(entry?.['retrievedUrl']);
      const status = enumName(entry?.['urlRetrievalStatus'], URL_STATUSES);
      if (url === undefined || (status !== undefined && status !== 'URL_RETRIEVAL_STATUS_SUCCESS')) rest = true;
      else if (!this.urls.has(url)) this.urls.set(url, entry!);
    }
    for (const k in um) if (k !== 'urlMetadata' && !isEmptyValue(um[k])) rest = true;
    return rest;
  }

  /** Reads citationMetadata (`citationSources`; Vertex: `citations`). */
  citationMetadata(cm: JsonObject): boolean {
    for (const s of arr(cm['citationSources']) ?? arr(cm['citations']) ?? []) {
      const source = obj(s);
      if (source === undefined || !this.once(`c${JSON.stringify(source)}`)) continue;
      const c = cited(source, str(source['uri']), str(source['title']), undefined);
      const end = num(source['endIndex']);
      if (end !== undefined) {
        c.startByte = num(source['startIndex']) ?? 0;
        c.endByte = end;
      }
      this.list.push(c);
    }
    return false;
  }

  private once(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  /** The citation events, offsets resolved against the candidate's answer text. */
  resolve(text: TextLedger | null): CitationEvent[] {
    const all = this.list.slice();
    for (const [key, chunk] of this.chunks) if (!this.supported.has(key)) all.push(chunkCitation(chunk, chunk));
    const cites = new Set<string>();
    for (const c of all) if (c.url !== undefined) cites.add(c.url);
    for (const [url, entry] of this.urls) if (!cites.has(url)) all.push(cited(entry, url, undefined, undefined));
    const offsets: number[] = [];
    for (const c of all) if (c.startByte !== undefined && c.endByte !== undefined) offsets.push(c.startByte, c.endByte);
    const utf16 = text === null || offsets.length === 0 ? null : text.utf16(offsets);
    const fallback = text?.firstBlock() ?? 0;
    return all.map((c) => {
      const ev: CitationEvent = { type: 'citation', index: fallback, raw: c.raw };
      if (c.url !== undefined) ev.url = c.url;
      if (c.title !== undefined) ev.title = c.title;
      if (c.source !== undefined) ev.source = c.source;
      if (c.citedText !== undefined) ev.citedText = c.citedText;
      if (utf16 !== null && c.startByte !== undefined && c.endByte !== undefined) {
        const start = utf16.get(c.startByte);
        const end = utf16.get(c.endByte);
        const span = start === undefined || end === undefined ? null : text!.span(start, end, c.quote);
        if (span !== null) {
          ev.index = span.index;
          ev.start = span.start;
          ev.end = span.end;
        }
      }
      return ev;
    });
  }
}

// ---------------------------------------------------------------------------
// Response handler
// ---------------------------------------------------------------------------

type BlockKind = 'none' | 'text' | 'thought' | 'call' | 'audio' | 'other';

interface OpenCall {
  index: number;
  id: string;
  name: string;
  assembler: PartialArgsAssembler;
}

/** A whole functionCall whose events wait: the server ran it if a functionResponse for it follows. */
interface HeldCall {
  index: number;
  id: string;
  name: string;
  args: string;
  signatures: string[];
}

/** A provider-executed call (code execution, server-side tool) waiting for its result. */
interface ServerCall {
  index: number;
  id: string;
  name: string;
  code: boolean;
}

interface CandidateState {
  /** Candidate index: 0, or k for `choice: k`. */
  choice: number;
  blocks: number;
  kind: BlockKind;
  current: number;
  call: OpenCall | null;
  /** A call the client must run was emitted. */
  sawFunctionCall: boolean;
  finishReason: string | null;
  held: HeldCall[];
  server: ServerCall[];
  /** The answer text (for citation offsets), made on the first text delta. */
  text: TextLedger | null;
  sources: CandidateSources | null;
}

/**
 * A generateContent response's handler, with the text mapping that both the
 * parse path (part) and the template path (lib/fast/dialects/gemini.ts) go
 * through.
 */
export interface GeminiResponse extends ResponseHandler {
  /** Candidate k's state (made on first sight), or null once it has a finishReason (or the response's done is held): its next chunk may end the response. */
  openCandidate(k: number): GeminiCandidate | null;
  /** The chunk's usageMetadata: parsed, or its JSON text (parsed only if it stays the last). */
  setUsage(u: JsonObject | string): void;
  /** A text (thought) part of candidate c: a call still open ends, the text (thought) block goes on or a new one opens; its index. */
  textBlock(c: GeminiCandidate, thought: boolean): number;
  /** A text (reasoning: thought) delta, not empty, of block `index` of candidate c. */
  textDelta(c: GeminiCandidate, index: number, thought: boolean, text: string): void;
  /**
   * A text delta of block `index` that the fast path gave straight to a fused
   * final accumulator: kept (decoded text, or its wire bytes when `raw`) for
   * the offsets of the citations, as textDelta keeps the ones it emits.
   */
  keepText(c: GeminiCandidate, index: number, text: string, raw: boolean): void;
  /** A thoughtSignature, not empty, of block `index` of candidate c. */
  signature(c: GeminiCandidate, index: number, sig: string): void;
}

export type GeminiCandidate = CandidateState;

/** Top-level keys that carry nothing beyond what the unified events already say. */
const QUIET_TOP = new Set(['candidates', 'usageMetadata', 'modelVersion', 'responseId', 'createTime', 'turnToken']);
/** Candidate keys handled here or pure per-chunk scalars. */
const QUIET_CANDIDATE = new Set(['content', 'finishReason', 'index', 'avgLogprobs', 'tokenCount']);
/** Candidate keys read into citations (raw only for what they hold beyond them). */
const SOURCE_CANDIDATE = new Set(['groundingMetadata', 'urlContextMetadata', 'citationMetadata']);
/** Part keys mapped to unified events. */
const HANDLED_PART = new Set([
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
  'inlineData',
]);

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

/** A functionResponse's error flag: `response.error` (the API's convention), or an MCP result's `isError`. */
function responseIsError(response: JsonObject | undefined): boolean {
  if (response === undefined) return false;
  if (response['error'] !== undefined && response['error'] !== null) return true;
  const mcp = str(response['call_tool_result_json']);
  if (mcp === undefined || !mcp.includes('"isError"')) return false;
  try {
    const parsed = JSON.parse(mcp) as Json;
    return isObject(parsed) && parsed['isError'] === true;
  } catch {
    return false;
  }
}

function createGeminiResponse(ctx: DialectContext): GeminiResponse {
  /** The last usageMetadata; its JSON text while it came through the fast path (parsed only if it stays the last). */
  let usage: JsonObject | string | null = null;
  const candidates: CandidateState[] = [];
  /** Events emitted for the payload being handled (to know when a raw is owed). */
  let emitted = 0;
  /** The response's id (its first chunk's responseId). */
  let responseId: string | null = null;
  /** Every candidate has finished, with a call waiting: the done waits for the next payload (see the header). */
  let holding = false;

  const self = {
    emit(ev: UnifiedEvent): void {
      emitted++;
      ctx.emit(ev);
    },

    candidate(k: number): CandidateState {
      for (const c of candidates) if (c.choice === k) return c;
      const c: CandidateState = {
        choice: k,
        blocks: 0,
        kind: 'none',
        current: -1,
        call: null,
        sawFunctionCall: false,
        finishReason: null,
        held: [],
        server: [],
        text: null,
        sources: null,
      };
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

    /** An id for a call the wire gives none: unique within the response. */
    syntheticId(c: CandidateState, prefix: string, index: number): string {
      return c.choice === 0 ? `${prefix}_${index}` : `${prefix}_${c.choice}_${index}`;
    },

    // ---- the text mapping (see GeminiResponse) ----

    openCandidate(k: number): CandidateState | null {
      if (holding) return null;
      for (const c of candidates) if (c.choice === k) return c.finishReason === null ? c : null;
      return self.candidate(k);
    },

    setUsage(u: JsonObject | string): void {
      usage = u;
    },

    textBlock(c: CandidateState, thought: boolean): number {
      const kind: BlockKind = thought ? 'thought' : 'text';
      self.closeCall(c);
      self.releaseHeld(c);
      return c.kind === kind ? c.current : self.openBlock(c, kind);
    },

    textDelta(c: CandidateState, index: number, thought: boolean, text: string): void {
      if (thought) self.out(c, { type: 'reasoning_delta', index, text });
      else {
        (c.text ??= new TextLedger()).add(index, text, false);
        self.out(c, { type: 'text_delta', index, text });
      }
    },

    keepText(c: CandidateState, index: number, text: string, raw: boolean): void {
      (c.text ??= new TextLedger()).add(index, text, raw);
    },

    signature(c: CandidateState, index: number, sig: string): void {
      self.out(c, { type: 'signature', index, signature: sig, kind: 'thought_signature' });
    },

    // ---- calls ----

    closeCall(c: CandidateState): void {
      const call = c.call;
      if (call === null) return;
      c.call = null;
      const { args, rest } = call.assembler.finish();
      if (rest !== null && rest !== '') self.out(c, { type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: rest });
      self.out(c, { type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: args });
    },

    /** A whole call: start, one delta holding all the arguments, done. */
    wholeCall(c: CandidateState, index: number, id: string, name: string, args: string, server: boolean): void {
      const start: UnifiedEvent = { type: 'tool_call_start', index, id, name };
      const delta: UnifiedEvent = { type: 'tool_call_delta', index, id, argumentsDelta: args };
      const done: UnifiedEvent = { type: 'tool_call_done', index, id, name, arguments: args };
      if (server) start.providerExecuted = delta.providerExecuted = done.providerExecuted = true;
      else c.sawFunctionCall = true;
      self.out(c, start);
      self.out(c, delta);
      self.out(c, done);
    },

    emitHeld(c: CandidateState, call: HeldCall, server: boolean): void {
      self.wholeCall(c, call.index, call.id, call.name, call.args, server);
      for (const sig of call.signatures) self.signature(c, call.index, sig);
    },

    /** The waiting functionCalls are the client's: something other than their functionResponse came. */
    releaseHeld(c: CandidateState): void {
      if (c.held.length === 0) return;
      const held = c.held;
      c.held = [];
      for (const call of held) self.emitHeld(c, call, false);
    },

    result(c: CandidateState, index: number, id: string, name: string, result: Json, isError: boolean): void {
      const ev: UnifiedEvent = { type: 'tool_result', index, id, name, result };
      if (isError) ev.isError = true;
      self.out(c, ev);
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
        if (sig !== undefined && sig !== '' && c.current >= 0) self.heldOrSignature(c, sig);
        return;
      }
      self.closeCall(c); // a new named call ends one whose terminator never came
      const index = self.openBlock(c, 'call');
      const id = str(fc['id']) || `call_${index}`;
      const callName = name ?? '';
      if (partialArgs !== undefined || willContinue) {
        // Streamed arguments go out live: such a call is the client's.
        self.releaseHeld(c);
        c.sawFunctionCall = true;
        self.out(c, { type: 'tool_call_start', index, id, name: callName });
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
      const held: HeldCall = { index, id, name: callName, args: JSON.stringify(fc['args'] ?? {}), signatures: [] };
      if (sig !== undefined && sig !== '') held.signatures.push(sig);
      c.held.push(held);
    },

    /** A signature with no block of its own: on the waiting call it belongs to, else emitted on the current block. */
    heldOrSignature(c: CandidateState, sig: string): void {
      const last = c.held[c.held.length - 1];
      if (last !== undefined && last.index === c.current) last.signatures.push(sig);
      else self.signature(c, c.current, sig);
    },

    functionResponsePart(c: CandidateState, fr: JsonObject, sig: string | undefined): void {
      const id = str(fr['id']);
      const name = str(fr['name']) ?? '';
      let i = id === undefined || id === '' ? -1 : c.held.findIndex((h) => h.id === id);
      if (i < 0) i = c.held.findIndex((h) => h.name === name);
      const call = i < 0 ? undefined : c.held.splice(i, 1)[0];
      // Run by the server: the model's own turn holds its response.
      if (call !== undefined) self.emitHeld(c, call, true);
      const index = self.openBlock(c, 'other');
      const response = obj(fr['response']);
      self.result(c, index, call?.id ?? (id || self.syntheticId(c, 'call', index)), call?.name ?? name, fr['response'] ?? null, responseIsError(response));
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    executableCodePart(c: CandidateState, code: JsonObject, sig: string | undefined): void {
      const index = self.openBlock(c, 'call');
      const id = str(code['id']) || self.syntheticId(c, 'code', index);
      const args: JsonObject = {};
      const language = enumName(code['language'], LANGUAGES);
      if (language !== undefined) args['language'] = language;
      if (code['code'] !== undefined) args['code'] = code['code'];
      self.wholeCall(c, index, id, 'code_execution', JSON.stringify(args), true);
      c.server.push({ index, id, name: 'code_execution', code: true });
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    codeResultPart(c: CandidateState, res: JsonObject, sig: string | undefined): void {
      const call = self.pairServer(c, str(res['id']), true, undefined);
      const index = self.openBlock(c, 'other');
      const outcome = enumName(res['outcome'], OUTCOMES);
      self.result(c, index, call?.id ?? (str(res['id']) || self.syntheticId(c, 'code', index)), 'code_execution', res, outcome !== 'OUTCOME_OK');
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    toolCallPart(c: CandidateState, tc: JsonObject, sig: string | undefined): void {
      const index = self.openBlock(c, 'call');
      const id = str(tc['id']) || self.syntheticId(c, 'tool', index);
      const name = toolName(tc['toolType']);
      self.wholeCall(c, index, id, name, JSON.stringify(tc['args'] ?? {}), true);
      c.server.push({ index, id, name, code: false });
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    toolResponsePart(c: CandidateState, tr: JsonObject, sig: string | undefined): void {
      const name = toolName(tr['toolType']);
      const call = self.pairServer(c, str(tr['id']), false, name);
      const index = self.openBlock(c, 'other');
      self.result(c, index, call?.id ?? (str(tr['id']) || self.syntheticId(c, 'tool', index)), call?.name ?? name, tr['response'] ?? null, false);
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
    },

    /** The call a result belongs to: the one of the same id, else the last of its kind still without one. */
    pairServer(c: CandidateState, id: string | undefined, code: boolean, name: string | undefined): ServerCall | undefined {
      let i = id === undefined || id === '' ? -1 : c.server.findIndex((s) => s.id === id);
      if (i < 0) {
        for (let j = c.server.length - 1; j >= 0; j--) {
          const s = c.server[j]!;
          if (s.code === code && (name === undefined || s.name === name)) {
            i = j;
            break;
          }
        }
      }
      return i < 0 ? undefined : c.server.splice(i, 1)[0];
    },

    /** An inlineData part: audio continues the audio block, any other file is a block of its own. */
    inlineDataPart(c: CandidateState, blob: JsonObject, sig: string | undefined): boolean {
      const data = str(blob['data']);
      if (data === undefined) return true;
      const mimeType = str(blob['mimeType']) ?? null;
      let index: number;
      if (mimeType !== null && mimeType.startsWith('audio/')) {
        index = c.kind === 'audio' ? c.current : self.openBlock(c, 'audio');
        self.out(c, { type: 'audio_delta', index, mimeType, data });
      } else {
        index = self.openBlock(c, 'other');
        self.out(c, { type: 'file', index, mimeType, data });
      }
      if (sig !== undefined && sig !== '') self.signature(c, index, sig);
      return false;
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
      const fr = obj(p['functionResponse']);
      if (fr !== undefined) {
        self.closeCall(c);
        self.functionResponsePart(c, fr, sig);
        return notable;
      }
      const known = obj(p['executableCode']) ?? obj(p['codeExecutionResult']) ?? obj(p['toolCall']) ?? obj(p['toolResponse']) ?? obj(p['inlineData']);
      if (known === undefined && !notable) {
        // Only a signature (or nothing): it belongs to the current block.
        if (sig !== undefined && sig !== '') {
          if (c.current >= 0) self.heldOrSignature(c, sig);
          else self.signature(c, self.openBlock(c, 'other'), sig);
        }
        return false;
      }
      self.closeCall(c);
      self.releaseHeld(c);
      if (known === undefined) {
        // fileData or a part this mapping does not know: a block of its own, carried by raw.
        const index = self.openBlock(c, 'other');
        if (sig !== undefined && sig !== '') self.signature(c, index, sig);
        return true;
      }
      if (known === p['executableCode']) self.executableCodePart(c, known, sig);
      else if (known === p['codeExecutionResult']) self.codeResultPart(c, known, sig);
      else if (known === p['toolCall']) self.toolCallPart(c, known, sig);
      else if (known === p['toolResponse']) self.toolResponsePart(c, known, sig);
      else if (self.inlineDataPart(c, known, sig)) notable = true;
      return notable;
    },

    /** Maps one candidate; returns true when it holds something only raw carries. */
    candidatePayload(c: CandidateState, cand: JsonObject): boolean {
      let notable = false;
      for (const k in cand) {
        const v = cand[k];
        if (QUIET_CANDIDATE.has(k) || isEmptyValue(v)) continue;
        if (SOURCE_CANDIDATE.has(k) && isObject(v)) {
          const sources = (c.sources ??= new CandidateSources());
          if (k === 'groundingMetadata' ? sources.grounding(v) : k === 'urlContextMetadata' ? sources.urlContext(v) : sources.citationMetadata(v)) notable = true;
        } else notable = true;
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
      const finish = enumName(cand['finishReason'], FINISH_REASONS);
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

    /** Closes open calls, releases waiting ones (the client's), then the citations and the last usage. */
    flush(): void {
      holding = false;
      for (const c of candidates) {
        self.closeCall(c);
        self.releaseHeld(c);
        if (c.sources !== null) for (const ev of c.sources.resolve(c.text)) self.out(c, ev);
      }
      if (usage === null) return;
      if (typeof usage === 'string') usage = JSON.parse(usage) as JsonObject;
      const u = geminiUsage(usage);
      // Vertex sends `{trafficType}` alone until the last chunk: no count known is no usage.
      if (u.inputTokens === null && u.outputTokens === null && u.totalTokens === null) return;
      self.emit(usageEvent(u, usage));
    },

    /** The response's one done (candidate 0's stop); several candidates: each one's stop in `choices`. */
    finish(final: DoneEvent, fallback: StopReason): void {
      const others = candidates.filter((c) => c.choice !== 0);
      if (others.length > 0) {
        final.choices = [
          { choice: 0, stopReason: final.stopReason, providerReason: final.providerReason },
          ...others.map((c) => {
            const d = self.doneFor(c, fallback);
            return { choice: c.choice, stopReason: d.stopReason, providerReason: d.providerReason };
          }),
        ];
      }
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

    /** A payload after a held done: the same responseId goes on with the response, anything else ends it first. */
    beforePayload(payload: JsonObject): void {
      if (!holding) return;
      holding = false;
      if (responseId !== null && payload['responseId'] === responseId) {
        // The candidates that ended on a waiting call go on (the server ran it).
        for (const c of candidates) if (c.held.length > 0) c.finishReason = null;
        return;
      }
      self.finishNormally();
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
        responseId = str(payload['responseId']) || null;
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
      let waiting = false;
      if (finishing) {
        for (const c of candidates) {
          if (c.finishReason === null) finishing = false;
          if (c.held.length > 0) waiting = true;
        }
      } else {
        blockReason = enumName(obj(payload['promptFeedback'])?.['blockReason'], BLOCK_REASONS);
        finishing = blockReason !== undefined && blockReason !== '';
      }
      // Raw keeps what no unified event carries, and stands for a chunk that maps to nothing.
      if (notable || (emitted === 0 && !finishing)) self.emit({ type: 'raw', event: payload });
      if (!finishing) return;
      if (blockReason !== undefined) {
        self.flush();
        self.emit(doneEvent('refusal', blockReason));
      } else if (waiting && responseId !== null) holding = true;
      else self.finishNormally();
    },
  };

  const handler = {
    onPayload: self.onPayload,
    beforePayload: self.beforePayload,
    openCandidate: self.openCandidate,
    setUsage: self.setUsage,
    textBlock: self.textBlock,
    textDelta: self.textDelta,
    keepText: self.keepText,
    signature: self.signature,
    onDoneSentinel() {
      if (holding) {
        // The response was complete: the sentinel (a proxy's) follows it.
        self.finishNormally();
        ctx.emit({ type: 'raw', event: '[DONE]' });
        return;
      }
      // `[DONE]` is not part of this dialect; a proxy's sentinel before finishReason ends the response cut short.
      if (!handler.started) {
        self.emit({ type: 'raw', event: '[DONE]' });
        return;
      }
      self.abort('incomplete_stream', 'the stream ended before a finishReason', undefined);
    },
    onIncomplete() {
      if (holding) {
        self.finishNormally();
        return;
      }
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

/** A server-side tool's name: its toolType in lower case (`GOOGLE_SEARCH_WEB` → `google_search_web`). */
function toolName(toolType: Json | undefined): string {
  return typeof toolType === 'string' && toolType !== '' ? toolType.toLowerCase() : 'server_tool';
}

export const gemini = defineDialect({
  name: 'gemini',
  family: 'gemini',
  // generateContent's chunks (SSE or a JSON array); gemini-live, before it in the registry, has taken Live's messages.
  detect: (payload) => !isKeepAlive(payload) && ('candidates' in payload || 'usageMetadata' in payload || 'promptFeedback' in payload),
  createResponse: createGeminiResponse,
});
