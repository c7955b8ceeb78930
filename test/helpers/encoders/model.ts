/**
 * The generated side of the round-trip property tests: a response in the
 * unified vocabulary (reasoning, text and tool-call blocks, usage, a stop
 * reason), the fast-check arbitraries that make random valid ones, and the
 * contract each per-dialect wire encoder fulfils.
 */
import fc from 'fast-check';
import type { DialectName, Json, JsonObject, StopReason, Usage } from '../../../lib/events.js';
import type { EventsStageOptions } from '../../../lib/pipeline/events-stage.js';
import { rng } from '../chunks.js';

export interface GenTextBlock {
  kind: 'text' | 'reasoning';
  /** The deltas as the provider streams them (may be empty strings). */
  deltas: string[];
  /** Reasoning only: the provider's signature for the block (may be empty: none). */
  signature: string;
}

export interface GenToolBlock {
  kind: 'tool';
  id: string;
  name: string;
  args: JsonObject;
  /** JSON.stringify(args) cut into non-empty fragments. */
  fragments: string[];
}

export type GenBlock = GenTextBlock | GenToolBlock;

export interface GenUsage {
  /** Every prompt token, cached ones included. */
  input: number;
  /** Part of `input` read from cache. */
  cached: number;
  /** Every generated token, reasoning included. */
  output: number;
  /** Part of `output` spent on reasoning. */
  reasoning: number;
}

/** The generator's own word for how a response ended; each dialect maps it to what its wire can say. */
export type GenStop = 'end' | 'max_tokens' | 'refusal';

export interface GenResponse {
  id: string;
  /** Suffix of the model name: each encoder prefixes a name its dialect is detected by. */
  model: string;
  blocks: GenBlock[];
  usage: GenUsage | null;
  stop: GenStop;
  /** Seed for wire-level choices (chunk grouping, optional fields, pretty-printing). */
  layout: number;
}

/** What the final result of one encoded response must carry. */
export interface ExpectedFinal {
  /** Left out when the id is not the response's own (checked otherwise). */
  id?: string | null;
  model: string | null;
  text: string;
  reasoning: string;
  /** `id` is left out where the wire carries none (the dialect makes one up). */
  toolCalls: { id?: string; name: string; arguments: Json }[];
  stopReason: StopReason;
  providerReason: string | null;
  usage: Usage;
  /** Signatures in order, where the dialect reports them (undefined: not checked). */
  signatures?: string[];
}

export interface DialectEncoder {
  /** Test label: the dialect, plus the framing when a dialect has several. */
  label: string;
  dialect: DialectName;
  /** Options for decodeAll / createOutputStage besides the dialect (always `auto`: detection is checked too). */
  options: EventsStageOptions;
  /** The wire bytes of a log of responses, in the dialect's exact framing. */
  encode(log: GenResponse[]): Buffer;
  /** What the final of `r` must carry once decoded. */
  expect(r: GenResponse): ExpectedFinal;
}

// ---------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------

/** Bytes and characters that break naive framers and escapers. */
const NASTY = [
  '"',
  '\\',
  '\\"',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u2028',
  '\u2029',
  '\ufeff',
  'data: ',
  'event: x\n',
  '[DONE]',
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  'é',
  'Ω',
  '中文',
  '😀',
  '👩‍👩‍👧',
  '🇫🇷',
  '\ud83d', // lone surrogate halves: JSON.stringify escapes them
  '\ude00',
];

/** One piece of a delta: ASCII, nasty characters, graphemes (emoji, combining marks) or any code point. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);

/** A delta: a few pieces joined; empty now and then (providers send empty deltas). */
export const deltaArb = fc.array(piece, { minLength: 0, maxLength: 4 }).map((ps) => ps.join(''));

const deltasArb = fc.array(deltaArb, { minLength: 1, maxLength: 6 });

const idChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''));
const idArb = fc.string({ unit: idChars, minLength: 4, maxLength: 12 });
const nameArb = fc
  .tuple(fc.constantFrom('get', 'lookup', 'run', 'search', 'x'), fc.string({ unit: idChars, maxLength: 8 }))
  .map(([a, b]) => `${a}_${b}`);

/** Arguments: a JSON object of random (unicode) keys and nested values. */
const argsArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 })),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) as fc.Arbitrary<Json>,
  { maxKeys: 5 },
);

/** Cuts `text` at the given fractions into non-empty fragments. */
export function cut(text: string, fractions: number[]): string[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * text.length)))]
    .filter((p) => p > 0 && p < text.length)
    .sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(text.slice(prev, p));
    prev = p;
  }
  out.push(text.slice(prev));
  return out;
}

const fractionsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 });

const toolArb: fc.Arbitrary<GenToolBlock> = fc
  .record({ id: idArb, name: nameArb, args: argsArb, fractions: fractionsArb })
  .map(({ id, name, args, fractions }) => ({
    kind: 'tool' as const,
    id: `call_${id}`,
    name,
    args,
    fragments: cut(JSON.stringify(args), fractions),
  }));

const textBlockArb: fc.Arbitrary<GenTextBlock> = fc.record({
  kind: fc.constantFrom('text' as const, 'reasoning' as const),
  deltas: deltasArb,
  signature: fc.oneof(fc.constant(''), idArb.map((s) => `sig_${s}`)),
});

const usageArb: fc.Arbitrary<GenUsage> = fc
  .record({
    uncached: fc.nat({ max: 200_000 }),
    cached: fc.nat({ max: 100_000 }),
    visible: fc.nat({ max: 50_000 }),
    reasoning: fc.nat({ max: 50_000 }),
  })
  .map(({ uncached, cached, visible, reasoning }) => ({
    input: uncached + cached,
    cached,
    output: visible + reasoning,
    reasoning,
  }));

export const responseArb: fc.Arbitrary<GenResponse> = fc.record({
  id: idArb,
  model: idArb,
  blocks: fc.array(fc.oneof({ weight: 3, arbitrary: textBlockArb }, { weight: 1, arbitrary: toolArb }), { maxLength: 6 }),
  usage: fc.option(usageArb, { freq: 4 }),
  stop: fc.constantFrom<GenStop>('end', 'end', 'max_tokens', 'refusal'),
  layout: fc.nat(),
});

/** A log of one to three responses with distinct ids (providers never reuse one). */
export const logArb: fc.Arbitrary<GenResponse[]> = fc
  .array(responseArb, { minLength: 1, maxLength: 3 })
  .map((log) => log.map((r, i) => ({ ...r, id: `${r.id}${i}` })));

// ---------------------------------------------------------------------------
// Helpers shared by the encoders
// ---------------------------------------------------------------------------

export function textOf(r: GenResponse, kind: 'text' | 'reasoning'): string {
  let out = '';
  for (const b of r.blocks) if (b.kind === kind) out += b.deltas.join('');
  return out;
}

export function toolsOf(r: GenResponse): GenToolBlock[] {
  return r.blocks.filter((b): b is GenToolBlock => b.kind === 'tool');
}

/** The arguments as a decoder must parse them (JSON.stringify drops -0 and the like). */
export function parsedArgs(tool: GenToolBlock): Json {
  return JSON.parse(JSON.stringify(tool.args)) as Json;
}

export function expectedTools(r: GenResponse, withIds: boolean): ExpectedFinal['toolCalls'] {
  return toolsOf(r).map((t) => (withIds ? { id: t.id, name: t.name, arguments: parsedArgs(t) } : { name: t.name, arguments: parsedArgs(t) }));
}

export function noUsage(): Usage {
  return { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
}

/** Usage as every dialect reports it when the wire carries all five numbers. */
export function fullUsage(u: GenUsage): Usage {
  return {
    inputTokens: u.input,
    outputTokens: u.output,
    totalTokens: u.input + u.output,
    reasoningTokens: u.reasoning,
    cachedInputTokens: u.cached,
  };
}

/** Deterministic wire-level choices for one response. */
export function layoutRng(r: GenResponse): () => number {
  return rng(r.layout);
}

/** One SSE event block. */
export function sse(data: string, event?: string, eol = '\n'): string {
  return `${event === undefined ? '' : `event: ${event}${eol}`}data: ${data}${eol}${eol}`;
}
