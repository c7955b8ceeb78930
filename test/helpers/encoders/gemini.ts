/**
 * Gemini streamGenerateContent wire encoder, in both framings: `?alt=sse`
 * (`data: <json>\r\n\r\n`, corpus gemini-sse/*) and the default JSON array
 * streamed element by element, pretty-printed (corpus gemini-json-array/*).
 * Each chunk holds the newest parts of candidate 0; the last one carries
 * finishReason; usageMetadata is cumulative (the last one counts).
 */
import type { Json, JsonObject } from '../../../lib/events.js';
import {
  expectedTools,
  layoutRng,
  noUsage,
  sse,
  textOf,
  toolsOf,
  type DialectEncoder,
  type ExpectedFinal,
  type GenResponse,
  type GenUsage,
} from './model.js';

function finishReasonOf(r: GenResponse): string {
  return r.stop === 'max_tokens' ? 'MAX_TOKENS' : r.stop === 'refusal' ? 'SAFETY' : 'STOP';
}

function usageMetadata(u: GenUsage, final: boolean): JsonObject {
  // Intermediate chunks carry a running count; the last one the totals.
  const visible = final ? u.output - u.reasoning : 0;
  const thoughts = final ? u.reasoning : Math.floor(u.reasoning / 2);
  const m: JsonObject = { promptTokenCount: u.input };
  if (visible > 0 || final) m['candidatesTokenCount'] = visible;
  m['totalTokenCount'] = u.input + visible + thoughts;
  m['promptTokensDetails'] = [{ modality: 'TEXT', tokenCount: u.input }];
  if (thoughts > 0) m['thoughtsTokenCount'] = thoughts;
  if (u.cached > 0) m['cachedContentTokenCount'] = u.cached;
  return m;
}

// ---------------------------------------------------------------------------
// Vertex streamed function-call arguments (`partialArgs`, corpus
// vercel-ai--vertex-partial-function-args*): one entry per leaf value, in
// document order, strings cut into `willContinue` pieces; the call opens with
// `{name, willContinue: true}` and ends with an empty `functionCall: {}`.
// ---------------------------------------------------------------------------

/** partialArgs carry leaves only: an empty object or array becomes null (the expected value follows suit). */
export function vertexArgs(v: Json): Json {
  if (Array.isArray(v)) return v.length === 0 ? null : v.map(vertexArgs);
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    let keys = 0;
    for (const [k, x] of Object.entries(v)) {
      if (memberPath(k) === null) continue;
      Object.defineProperty(out, k, { value: vertexArgs(x), enumerable: true, writable: true, configurable: true });
      keys++;
    }
    return keys === 0 ? null : out;
  }
  return v;
}

/** `.key` for identifiers, else `['key']` / `["key"]`; null when no form can hold the key. */
function memberPath(key: string): string | null {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `.${key}`;
  if (!key.includes("']")) return `['${key}']`;
  if (!key.includes('"]')) return `["${key}"]`;
  return null;
}

function leafEntries(v: Json, path: string, pick: () => number, out: JsonObject[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => leafEntries(x, `${path}[${i}]`, pick, out));
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) leafEntries(x, path + memberPath(k)!, pick, out);
  } else if (typeof v === 'string') {
    // Strings stream in pieces; Vertex closes one with an empty piece, or the last piece says no more.
    const pieces = v === '' ? [''] : cutString(v, pick);
    pieces.forEach((piece, i) => {
      const last = i === pieces.length - 1;
      out.push(last && pick() < 0.5 ? { jsonPath: path, stringValue: piece } : { jsonPath: path, stringValue: piece, willContinue: true });
      if (last && out[out.length - 1]!['willContinue'] === true) out.push({ jsonPath: path, stringValue: '' });
    });
  } else if (typeof v === 'number') out.push({ jsonPath: path, numberValue: v });
  else if (typeof v === 'boolean') out.push({ jsonPath: path, boolValue: v });
  else out.push({ jsonPath: path, nullValue: null });
}

function cutString(s: string, pick: () => number): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest.length > 0) {
    const n = 1 + Math.floor(pick() * rest.length);
    out.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  return out;
}

/** The parts of one streamed call. */
function vertexCall(name: string, args: Json, pick: () => number): JsonObject[] {
  const entries: JsonObject[] = [];
  leafEntries(vertexArgs(args) ?? {}, '$', pick, entries);
  const parts: JsonObject[] = [{ functionCall: { name, willContinue: true } }];
  for (let i = 0; i < entries.length; ) {
    const n = 1 + Math.floor(pick() * 3);
    parts.push({ functionCall: { partialArgs: entries.slice(i, i + n), willContinue: true } });
    i += n;
  }
  parts.push({ functionCall: {} });
  return parts;
}

/** The chunks (GenerateContentResponse objects) of one response. */
function chunksOf(r: GenResponse, vertex = false): Json[] {
  const pick = layoutRng(r);
  const parts: JsonObject[] = [];
  for (const b of r.blocks) {
    if (b.kind === 'tool') {
      if (vertex) parts.push(...vertexCall(b.name, b.args, pick));
      else parts.push({ functionCall: { name: b.name, args: b.args } });
    } else for (const d of b.deltas) parts.push(b.kind === 'reasoning' ? { text: d, thought: true } : { text: d });
  }
  const chunks: Json[] = [];
  const chunk = (ps: JsonObject[], final: boolean): void => {
    const candidate: JsonObject = { content: { parts: ps, role: 'model' } };
    if (final) candidate['finishReason'] = finishReasonOf(r);
    candidate['index'] = 0;
    const c: JsonObject = { candidates: [candidate] };
    if (r.usage !== null) c['usageMetadata'] = usageMetadata(r.usage, final);
    c['modelVersion'] = `gemini-2.5-flash-${r.model}`;
    c['responseId'] = r.id;
    chunks.push(c);
  };
  let i = 0;
  while (i < parts.length) {
    // One to three parts per chunk; the finishReason rides on the last one, or on a chunk of its own.
    const n = 1 + Math.floor(pick() * 3);
    const ps = parts.slice(i, i + n);
    i += n;
    chunk(ps, i >= parts.length && pick() < 0.5);
  }
  const last = chunks[chunks.length - 1] as JsonObject | undefined;
  const finished = last !== undefined && (last['candidates'] as JsonObject[])[0]!['finishReason'] !== undefined;
  if (!finished) chunk([{ text: '' }], true);
  return chunks;
}

function expectGemini(r: GenResponse, vertex = false): ExpectedFinal {
  const finish = finishReasonOf(r);
  const u = r.usage;
  // Gemini API function calls carry no id: the dialect makes one up.
  const toolCalls = expectedTools(r, false).map((tc) => (vertex ? { ...tc, arguments: vertexArgs(tc.arguments) ?? {} } : tc));
  return {
    id: r.id,
    model: `gemini-2.5-flash-${r.model}`,
    text: textOf(r, 'text'),
    reasoning: textOf(r, 'reasoning'),
    toolCalls,
    stopReason: finish === 'MAX_TOKENS' ? 'max_tokens' : finish === 'SAFETY' ? 'refusal' : toolsOf(r).length > 0 ? 'tool_use' : 'end',
    providerReason: finish,
    usage:
      u === null
        ? noUsage()
        : {
            inputTokens: u.input,
            outputTokens: u.output,
            totalTokens: u.input + u.output,
            reasoningTokens: u.reasoning > 0 ? u.reasoning : null,
            cachedInputTokens: u.cached > 0 ? u.cached : null,
          },
  };
}

export const geminiSseEncoder: DialectEncoder = {
  label: 'gemini (sse)',
  dialect: 'gemini',
  options: {},
  encode(log) {
    let out = '';
    for (const r of log) for (const c of chunksOf(r)) out += sse(JSON.stringify(c), undefined, '\r\n');
    return Buffer.from(out, 'utf8');
  },
  expect: expectGemini,
};

/** One array per response, back to back (a log of several calls), elements pretty-printed with LF or CRLF. */
export const geminiJsonArrayEncoder: DialectEncoder = {
  label: 'gemini (json-array)',
  dialect: 'gemini',
  options: {},
  encode(log) {
    let out = '';
    for (const r of log) {
      const pick = layoutRng(r);
      const eol = pick() < 0.5 ? '\n' : '\r\n';
      const elements = chunksOf(r).map((c) => JSON.stringify(c, null, 2).replace(/\n/g, eol));
      out += `[${elements.join(`,${eol}`)}]${eol}`;
    }
    return Buffer.from(out, 'utf8');
  },
  expect: expectGemini,
};

/** Vertex AI: the same SSE, with function-call arguments streamed as `partialArgs`. */
export const geminiVertexEncoder: DialectEncoder = {
  label: 'gemini (vertex partialArgs)',
  dialect: 'gemini',
  options: {},
  encode(log) {
    let out = '';
    for (const r of log) for (const c of chunksOf(r, true)) out += sse(JSON.stringify(c), undefined, '\r\n');
    return Buffer.from(out, 'utf8');
  },
  expect: (r) => expectGemini(r, true),
};
