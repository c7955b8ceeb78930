/**
 * The fuzzer shared by `test/fuzz/*.test.ts` (a bounded, seeded run) and
 * `test/fuzz/long-run.ts` (the long run): seed inputs (fixtures and corpus), cases
 * that are a pure function of (seed, index) so any failure replays from two
 * numbers, the oracle that checks one case, and a loop that runs a batch.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FinalAccumulatorOptions, FinalResult } from '../../lib/accumulate/types.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { BEGIN, OUTSIDE, RESTART, ResponseTracker } from '../../lib/accumulate/response.js';
import { StreamError } from '../../lib/errors.js';
import type { DialectName, DoneEvent, UnifiedEvent } from '../../lib/events.js';
import type { FramingName } from '../../lib/framing/detect.js';
import { createOutputStage, type CreateStreamOptions } from '../../lib/pipeline/create-stream.js';
import { createEventsStage } from '../../lib/pipeline/events-stage.js';
import { createDecoder } from '../../lib/dialects/decoder.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';
import { createAutoFramer, createFramer } from '../../lib/framing/detect.js';
import type { Stage } from '../../lib/stage.js';
import { dialectNames } from '../../lib/dialects/registry.js';
import { rng } from './chunks.js';
import { runChunks } from './run.js';
import { corpusFiles, repoRoot } from './corpus.js';

// ---------------------------------------------------------------------------
// Seed inputs
// ---------------------------------------------------------------------------

export interface SeedInput {
  /** `fixtures/<dir>/<file>` or `corpus/<dir>/<file>`. */
  name: string;
  bytes: Buffer;
  /** The dialect the file is in, when its directory says so. */
  dialect: DialectName | null;
}

function dialectOfDir(dir: string): DialectName | null {
  if (dir === 'gemini-sse' || dir === 'gemini-json-array') return 'gemini';
  return (dialectNames as string[]).includes(dir) ? (dir as DialectName) : null;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

/** Every hand-written fixture (`fixtures/**` but the corpus) and every corpus file, the corpus's with their dialect. */
export function seedInputs(): SeedInput[] {
  const fixturesDir = join(repoRoot, 'fixtures');
  const handWritten = readdirSync(fixturesDir)
    .filter((d) => d !== 'corpus')
    .sort()
    .flatMap((d) => (statSync(join(fixturesDir, d)).isDirectory() ? walk(join(fixturesDir, d)) : [join(fixturesDir, d)]));
  const inputs: SeedInput[] = handWritten.map((path) => {
    const rel = path.slice(fixturesDir.length + 1);
    return { name: `fixtures/${rel}`, bytes: readFileSync(path), dialect: dialectOfDir(rel.split('/')[0]!) };
  });
  for (const f of corpusFiles()) inputs.push({ name: `corpus/${f.name}`, bytes: f.bytes, dialect: dialectOfDir(f.dir) });
  return inputs;
}

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

export interface FuzzCase {
  seed: number;
  index: number;
  /** The seed input's name, or `random` for pure random bytes. */
  source: string;
  /** What was done to the input, in order (for the report). */
  mutations: string[];
  bytes: Buffer;
  /** Pipeline options (no `output`, no `strict`: the oracle sets those). */
  options: CreateStreamOptions;
  /** Limits added for the `final` run only (small on purpose, now and then). */
  finalLimits: FinalAccumulatorOptions;
  /** Chunk sizes of the chunked runs (their sum is bytes.length). */
  chunkSizes: number[];
}

/** Byte strings that mean something to one framer or another. */
const TOKENS = [
  '\r',
  '\n',
  '\r\n',
  '\n\n',
  '\r\n\r\n',
  '[',
  ']',
  '{',
  '}',
  '"',
  '\\',
  ':',
  ',',
  ' ',
  'data: ',
  'data:',
  'event: error\n',
  'id: 1\n',
  'retry: 10\n',
  ': comment\n',
  '[DONE]',
  'data: [DONE]\n\n',
  '{"error":{"message":"x","type":"overloaded_error"}}',
  '{"type":"error","error":{"type":"api_error","message":"boom"}}',
  '\u0000',
  '\uffff',
  '😀',
].map((s) => Buffer.from(s, 'utf8'));

const RAW_BYTES = [0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xef, 0xbb, 0xf0, 0xf4, 0xf8, 0xff].map((b) => Buffer.from([b]));

/** Mixes the seed and the case index into one PRNG seed (murmur3 finalizer). */
export function caseSeed(seed: number, index: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

type Rand = () => number;

function int(r: Rand, n: number): number {
  return Math.floor(r() * n);
}

function pickOf<T>(r: Rand, items: readonly T[]): T {
  return items[int(r, items.length)]!;
}

function randomBytes(r: Rand, n: number): Buffer {
  const parts: Buffer[] = [];
  let len = 0;
  while (len < n) {
    const roll = r();
    const part = roll < 0.4 ? Buffer.from([int(r, 256)]) : roll < 0.7 ? pickOf(r, TOKENS) : roll < 0.8 ? pickOf(r, RAW_BYTES) : Buffer.from(String.fromCharCode(0x20 + int(r, 95)));
    parts.push(part);
    len += part.length;
  }
  return Buffer.concat(parts);
}

function insertAt(buf: Buffer, pos: number, piece: Buffer): Buffer {
  return Buffer.concat([buf.subarray(0, pos), piece, buf.subarray(pos)]);
}

/** Applies one random mutation; returns the new bytes and its description. */
function mutate(r: Rand, buf: Buffer, inputs: SeedInput[]): [Buffer, string] {
  const len = buf.length;
  const kind = int(r, 8);
  switch (kind) {
    case 0: {
      const at = int(r, len + 1);
      return [buf.subarray(0, at), `truncate@${at}`];
    }
    case 1: {
      // Byte flips: a few bits or whole bytes.
      const out = Buffer.from(buf);
      const n = 1 + int(r, 8);
      const at: number[] = [];
      for (let i = 0; i < n && len > 0; i++) {
        const p = int(r, len);
        out[p] = r() < 0.5 ? out[p]! ^ (1 << int(r, 8)) : int(r, 256);
        at.push(p);
      }
      return [out, `flip@${at.join(',')}`];
    }
    case 2:
    case 3: {
      const piece = r() < 0.8 ? pickOf(r, TOKENS) : pickOf(r, RAW_BYTES);
      const at = int(r, len + 1);
      return [insertAt(buf, at, piece), `insert${JSON.stringify(piece.toString('latin1'))}@${at}`];
    }
    case 4: {
      // A duplicated span (a proxy replaying part of the stream).
      if (len === 0) return [buf, 'duplicate(empty)'];
      const from = int(r, len);
      const span = 1 + int(r, Math.min(len - from, 2048));
      const to = r() < 0.5 ? from + span : int(r, len + 1);
      return [insertAt(buf, to, Buffer.from(buf.subarray(from, from + span))), `duplicate[${from},+${span}]@${to}`];
    }
    case 5: {
      if (len === 0) return [buf, 'delete(empty)'];
      const from = int(r, len);
      const span = 1 + int(r, Math.min(len - from, 512));
      return [Buffer.concat([buf.subarray(0, from), buf.subarray(from + span)]), `delete[${from},+${span}]`];
    }
    case 6: {
      // Splice in a span of another input (streams of two dialects mixed).
      const other = pickOf(r, inputs);
      if (other.bytes.length === 0) return [buf, 'splice(empty)'];
      const from = int(r, other.bytes.length);
      const span = 1 + int(r, Math.min(other.bytes.length - from, 4096));
      const at = int(r, len + 1);
      return [insertAt(buf, at, other.bytes.subarray(from, from + span)), `splice(${other.name}[${from},+${span}])@${at}`];
    }
    default: {
      const n = 1 + int(r, 64);
      const at = int(r, len + 1);
      return [insertAt(buf, at, randomBytes(r, n)), `random(${n})@${at}`];
    }
  }
}

/** Large inputs are mostly fuzzed through a window this big. */
const WINDOW = 16 * 1024;

const FRAMINGS: FramingName[] = ['sse', 'json-array', 'ndjson', 'json-values'];
const MAX_CHUNKS = [1, 2, 7, 64, 512, 4096, Infinity, Infinity];

function chunkPlan(r: Rand, len: number): number[] {
  let max = pickOf(r, MAX_CHUNKS);
  // Byte-by-byte feeding of a large input costs time without finding more.
  if (len > 8 * 1024 && max < 64) max = 64;
  if (max === Infinity) return [len];
  const sizes: number[] = [];
  for (let left = len; left > 0; ) {
    const n = Math.min(left, 1 + int(r, max));
    sizes.push(n);
    left -= n;
  }
  return sizes;
}

/** The case `index` of a run seeded with `seed`: the same two numbers always give the same case. */
export function makeCase(inputs: SeedInput[], seed: number, index: number): FuzzCase {
  const r = rng(caseSeed(seed, index));
  let bytes: Buffer;
  let source: string;
  let dialect: DialectName | null = null;
  const mutations: string[] = [];
  if (r() < 0.04) {
    source = 'random';
    bytes = randomBytes(r, int(r, 4096));
  } else {
    // Round robin: every input is a seed once per inputs.length consecutive cases.
    const input = inputs[index % inputs.length]!;
    source = input.name;
    dialect = input.dialect;
    bytes = input.bytes;
    if (bytes.length > WINDOW && r() < 0.75) {
      // Most cases of a large input take a window of it (often cut mid-frame): same coverage per byte, less time.
      const at = r() < 0.5 ? 0 : int(r, bytes.length - WINDOW);
      bytes = bytes.subarray(at, at + WINDOW);
      mutations.push(`window[${at},+${WINDOW}]`);
    }
    // One in ten cases runs the input unchanged (only the window, chunking and options vary).
    const n = r() < 0.1 ? 0 : 1 + int(r, 4);
    for (let i = 0; i < n; i++) {
      const [next, what] = mutate(r, bytes, inputs);
      bytes = next;
      mutations.push(what);
    }
  }
  const options: CreateStreamOptions = {};
  const d = r();
  if (d < 0.25 && dialect !== null) options.dialect = dialect;
  else if (d > 0.85) options.dialect = pickOf(r, dialectNames);
  if (r() < 0.3) options.framing = pickOf(r, FRAMINGS);
  options.maxFrameBytes = r() < 0.1 ? 64 + int(r, 4096) : 64 * 1024;
  if (r() < 0.5) options.positions = true;
  if (r() < 0.2) options.flushIncomplete = false;
  if (r() < 0.1) options.captures = 'all';
  // Small limits now and then: the events-stage ones apply to every run, the accumulator's to the final run.
  if (r() < 0.1) {
    options.maxBlocks = 1 + int(r, 16);
    options.maxToolArgumentBytes = 2 + int(r, 2048);
  }
  const finalLimits: FinalAccumulatorOptions =
    r() < 0.15 ? { maxBlocks: 1 + int(r, 64), maxTextBytes: 16 + int(r, 8192), maxToolArgumentBytes: 2 + int(r, 4096) } : {};
  return { seed, index, source, mutations, bytes, options, finalLimits, chunkSizes: chunkPlan(r, bytes.length) };
}

export function chunksOf(c: FuzzCase): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const n of c.chunkSizes) {
    out.push(c.bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

// ---------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------

type Output = UnifiedEvent | FinalResult | string;

export interface RunOutcome<T> {
  items: T[];
  thrown: unknown;
}

/** Runs one pipeline over the chunks; anything thrown is captured, never rethrown. */
export function runOutput<T extends Output>(chunks: Buffer[], options: CreateStreamOptions): RunOutcome<T> {
  const items: T[] = [];
  const emit = (x: Output): void => {
    items.push(x as T);
  };
  try {
    const stage = createOutputStage(options);
    for (const c of chunks) stage.push(c, emit);
    stage.end(emit);
  } catch (thrown) {
    return { items, thrown };
  }
  return { items, thrown: undefined };
}

function describe(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}\n${thrown.stack ?? ''}`;
  return String(thrown);
}

/** True for what may escape the library: a StreamError with a code. */
export function isTypedError(thrown: unknown): thrown is StreamError {
  return thrown instanceof StreamError && typeof thrown.code === 'string' && thrown.code !== '';
}

const CONTENT = new Set(['text_delta', 'reasoning_delta', 'tool_call_start', 'tool_call_delta', 'tool_call_done', 'signature', 'audio_delta']);

function isFinalDone(ev: DoneEvent): boolean {
  return ev.choice === undefined || ev.choice === 0;
}

/**
 * Checks a complete lenient event sequence; returns what is wrong, or null.
 * - a `start` never comes while a response is open (the previous one got its `done`);
 * - content events come only inside a response;
 * - a tool call's delta/done follow its start, and nothing follows its done;
 * - every `done` closes an open response, or follows a terminal error that
 *   stood for a response that never began (a plain error body);
 * - at the end no response is open: everything opened got its `done`.
 */
export function checkEvents(events: UnifiedEvent[]): string | null {
  // Laned events (streamId: several responses open at once) are checked lane by lane, each like a log of its own.
  const lanes = new Map<string, number[]>();
  for (let i = 0; i < events.length; i++) {
    const lane = events[i]!.streamId;
    if (lane !== undefined) (lanes.get(lane) ?? lanes.set(lane, []).get(lane)!).push(i);
  }
  if (lanes.size === 0) return checkLane(events, (i) => i, '');
  for (const [lane, at] of [['', events.map((e, i) => (e.streamId === undefined ? i : -1)).filter((i) => i >= 0)] as const, ...lanes]) {
    const problem = checkLane(at.map((i) => events[i]!), (k) => at[k]!, lane === '' ? '' : ` of lane ${lane}`);
    if (problem !== null) return problem;
  }
  return null;
}

/** checkEvents of one lane's events; `index` maps their position back to the whole log's. */
function checkLane(events: UnifiedEvent[], index: (k: number) => number, lane: string): string | null {
  let open = false;
  let terminalError = false;
  /** Tool calls of the open response: key → starts not yet matched by a done. */
  let calls = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const ev = events[i]!;
    const where = `event ${index(i)} (${ev.type}${lane})`;
    if (ev.type === 'start') {
      if (open) return `${where}: a response started while the previous one was still open (its done was lost)`;
      open = true;
      calls = new Map();
      continue;
    }
    if (CONTENT.has(ev.type) && !open) return `${where}: content outside any response (no start before it)`;
    switch (ev.type) {
      case 'tool_call_start': {
        // A repeated start of an open call is what the provider sent (a replayed block): counted, allowed.
        const key = `${ev.choice ?? 0}:${ev.id}`;
        calls.set(key, (calls.get(key) ?? 0) + 1);
        break;
      }
      case 'tool_call_delta':
      case 'tool_call_done': {
        const key = `${ev.choice ?? 0}:${ev.id}`;
        const pending = calls.get(key);
        if (pending === undefined) return `${where}: tool call ${ev.id} has no tool_call_start`;
        if (pending === 0) return `${where}: tool call ${ev.id} continues after its tool_call_done`;
        if (ev.type === 'tool_call_done') calls.set(key, pending - 1);
        break;
      }
      case 'error':
        if (ev.terminal) terminalError = true;
        break;
      case 'done':
        if (!open && !terminalError) return `${where}: done without a response (no start, no terminal error before it)`;
        if (isFinalDone(ev)) {
          open = false;
          terminalError = false;
        }
        break;
      default:
        break;
    }
  }
  if (open) return `end: a response${lane} was opened and never got its done`;
  return null;
}

export interface CaseReport {
  /** What is wrong, or null when every check passed. */
  problem: string | null;
  /** Wall time of the whole case (all runs), ms. */
  ms: number;
  /** The lenient events run produced error events. */
  hadErrors: boolean;
  /** Events of the lenient run. */
  events: number;
  /** The lenient events of a failing case (to classify the failure). */
  output?: UnifiedEvent[];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function firstDiff(a: unknown[], b: unknown[]): string {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (!sameJson(a[i], b[i])) return `item ${i}: ${JSON.stringify(a[i])?.slice(0, 300)} vs ${JSON.stringify(b[i])?.slice(0, 300)}`;
  }
  return 'equal';
}

/**
 * Runs one case through the pipelines below and checks them:
 * 1. lenient events, chunked: nothing thrown; checkEvents holds;
 * 2. lenient events, whole buffer: the same events (chunk boundaries change nothing);
 * 3. strict events, chunked: throws a StreamError exactly when (1) had an error
 *    event, with that event's code, after emitting exactly the events before it;
 * 4. lenient finals, chunked: only a typed error may escape (a limit); without
 *    one, one final per final `done` of (1), with that done's stop reason,
 *    and one more (stop reason `error`) when error events follow the last
 *    response with none after them;
 * 5. the fused finals of (4) are what the standalone final accumulator makes
 *    of the same run's events (the fused stage takes text deltas by a direct
 *    route, see TextSink), the limit that stopped it included;
 * 6. lenient events, chunked, with the raw-text fast path off (every payload
 *    parsed, every SSE event framed line by line): the same events as (1);
 * 7. the separate stages' plain cores (framer, decoder, normalizer) composed
 *    as stream.pipeline wires them, chunked: the same events, or the same
 *    fatal error after the same events, as the fused events stage without
 *    the lenient guard (but for not_a_stream, which only the fused stage
 *    reports: a standalone framer yields no frame for such an input); and
 *    with a final accumulator after the normalizer, when nothing threw, the
 *    finals a standalone accumulator makes of those events.
 */
/**
 * How many error-only finals the accumulator makes at the end: one per lane
 * (and one for the unlaned events) where error events came while no response
 * was open and no response began after them (each lane keeps its own).
 */
function trailingErrors(events: readonly UnifiedEvent[]): number {
  const lanes = new Map<string, { tracker: ResponseTracker; pending: boolean }>();
  for (const ev of events) {
    const key = ev.streamId ?? '';
    let lane = lanes.get(key);
    if (lane === undefined) lanes.set(key, (lane = { tracker: new ResponseTracker(), pending: false }));
    const step = lane.tracker.step(ev);
    if (step === BEGIN || step === RESTART) lane.pending = false;
    else if (step === OUTSIDE && ev.type === 'error') lane.pending = true;
  }
  let n = 0;
  for (const lane of lanes.values()) if (lane.pending && !lane.tracker.open) n++;
  return n;
}

export function runCase(c: FuzzCase): CaseReport {
  const started = performance.now();
  const chunks = chunksOf(c);
  let events: UnifiedEvent[] = [];
  const report = (problem: string | null, hadErrors = false): CaseReport => {
    const r: CaseReport = { problem, ms: performance.now() - started, hadErrors, events: events.length };
    if (problem !== null) r.output = events;
    return r;
  };

  const lenient = runOutput<UnifiedEvent>(chunks, { ...c.options, output: 'events' });
  events = lenient.items;
  if (lenient.thrown !== undefined) return report(`lenient events threw: ${describe(lenient.thrown)}`);
  const bad = checkEvents(events);
  if (bad !== null) return report(`lenient events: ${bad}`);

  // (6) payload and event templates must be invisible (fastPath: internal switch, see events-stage.ts)
  const parsed = runOutput<UnifiedEvent>(chunks, { ...c.options, output: 'events', fastPath: false } as CreateStreamOptions);
  if (parsed.thrown !== undefined) return report(`lenient events (fast path off) threw: ${describe(parsed.thrown)}`);
  if (!sameJson(parsed.items, events)) return report(`events differ with the fast path off: ${firstDiff(events, parsed.items)}`);

  // (7) the separate stages' plain cores give the fused stage's events (its fast paths are invisible)
  const separate = runStages(chunks, separateStages(c.options));
  const unguarded = runStages(chunks, createEventsStage(c.options));
  const expected = unframedOnly(unguarded.items) ? [] : unguarded.items;
  if (!sameJson(separate.items, expected)) return report(`separate stages differ from the fused stage: ${firstDiff(expected, separate.items)}`);
  if (codeOf(separate.thrown) !== codeOf(unguarded.thrown)) {
    return report(`separate stages threw ${codeOf(separate.thrown)}, the fused stage ${codeOf(unguarded.thrown)}`);
  }
  if (unguarded.thrown === undefined) {
    const staged = runStages<FinalResult>(chunks, separateStages(c.options, c.finalLimits));
    const folded = foldFinals(expected, c.finalLimits);
    if (!sameJson(staged.items, folded.items) || codeOf(staged.thrown) !== codeOf(folded.thrown)) {
      return report(`separate stages' finals differ from the folded events': ${firstDiff(folded.items, staged.items)} (threw ${codeOf(staged.thrown)} / ${codeOf(folded.thrown)})`);
    }
  }

  if (chunks.length > 1) {
    const whole = runOutput<UnifiedEvent>([c.bytes], { ...c.options, output: 'events' });
    if (whole.thrown !== undefined) return report(`lenient events (whole) threw: ${describe(whole.thrown)}`);
    if (!sameJson(whole.items, events)) return report(`events depend on chunk boundaries: ${firstDiff(events, whole.items)}`);
  }

  const firstError = events.findIndex((e) => e.type === 'error');
  const hadErrors = firstError >= 0;
  const strict = runOutput<UnifiedEvent>(chunks, { ...c.options, output: 'events', strict: true });
  if (hadErrors) {
    const expected = events[firstError] as UnifiedEvent & { type: 'error' };
    if (strict.thrown === undefined) return report(`strict did not throw although lenient reported error ${expected.code}`, true);
    if (!isTypedError(strict.thrown)) return report(`strict threw an untyped error: ${describe(strict.thrown)}`, true);
    if (strict.thrown.code !== expected.code) return report(`strict threw ${strict.thrown.code}, lenient reported ${expected.code} first`, true);
    if (!sameJson(strict.items, events.slice(0, firstError))) {
      return report(`strict events before the error differ from lenient: ${firstDiff(strict.items, events.slice(0, firstError))}`, true);
    }
  } else if (strict.thrown !== undefined) {
    return report(`strict threw although lenient reported no error: ${describe(strict.thrown)}`);
  } else if (!sameJson(strict.items, events)) {
    return report(`strict events differ from lenient: ${firstDiff(strict.items, events)}`);
  }

  // The case's own limits win, so the final run's events stay those of run (1) until an accumulator limit trips.
  const finals = runOutput<FinalResult>(chunks, { ...c.finalLimits, ...c.options, output: 'final' });
  if (finals.thrown !== undefined) {
    // Only an accumulator limit may stop a lenient final run (the guard passes downstream failures on).
    if (!isTypedError(finals.thrown)) return report(`finals threw an untyped error: ${describe(finals.thrown)}`, hadErrors);
    if (finals.thrown.code !== 'limit_exceeded') return report(`finals threw ${finals.thrown.code} in lenient mode`, hadErrors);
  } else if (Object.keys(c.finalLimits).length === 0 || !finals.items.some((f) => f.errors.some((e) => e.code === 'limit_exceeded'))) {
    // The final run saw the events of run (1) (no limit of its own tripped): one final per final done,
    // besides an agent session's summaries (kind 'session'): at most one per session end, one more at the input's end.
    const dones = events.filter((e): e is DoneEvent => e.type === 'done' && isFinalDone(e));
    const stops = dones.map((d) => d.stopReason);
    for (let n = trailingErrors(events); n > 0; n--) stops.push('error');
    const responses = finals.items.filter((f) => f.kind !== 'session');
    const summaries = finals.items.length - responses.length;
    const sessionNews = events.filter((e) => e.type === 'session' && (e.kind === 'end' || e.kind === 'start')).length;
    if (summaries > sessionNews) return report(`${summaries} session finals for ${sessionNews} session start or end events`, hadErrors);
    if (responses.length !== stops.length) {
      return report(`${responses.length} finals for ${dones.length} final done events (${stops.length - dones.length} more for trailing errors)`, hadErrors);
    }
    for (let i = 0; i < stops.length; i++) {
      if (responses[i]!.stopReason !== stops[i]) {
        return report(`final ${i} has stopReason ${responses[i]!.stopReason}, expected ${stops[i]}`, hadErrors);
      }
    }
  }
  // (5) The same options as the final run, as events, folded by a standalone accumulator.
  const merged: CreateStreamOptions = { ...c.finalLimits, ...c.options };
  const mergedEvents = Object.keys(c.finalLimits).length === 0 ? lenient : runOutput<UnifiedEvent>(chunks, { ...merged, output: 'events' });
  const folded = foldFinals(mergedEvents.items, merged);
  if (!sameJson(folded.items, finals.items)) {
    return report(`fused finals differ from the accumulated events' finals: ${firstDiff(finals.items, folded.items)}`, hadErrors);
  }
  if (codeOf(folded.thrown) !== codeOf(finals.thrown)) {
    return report(`fused finals threw ${codeOf(finals.thrown)}, the accumulated events' finals ${codeOf(folded.thrown)}`, hadErrors);
  }
  return report(null, hadErrors);
}

/**
 * True for the fused stage's report of an SSE input with no event but lines
 * that are not SSE fields (not_a_stream, then done): the separate stages
 * yield nothing there.
 */
function unframedOnly(events: readonly UnifiedEvent[]): boolean {
  return events.length === 2 && events[0]!.type === 'error' && events[0]!.code === 'not_a_stream' && events[1]!.type === 'done';
}

/** The plain cores of framer → decoder → normalizer (→ final accumulator, given its limits), as the separate stages run them. */
function separateStages(o: CreateStreamOptions): Stage<Buffer, UnifiedEvent>;
function separateStages(o: CreateStreamOptions, finalLimits: FinalAccumulatorOptions): Stage<Buffer, FinalResult>;
function separateStages(o: CreateStreamOptions, finalLimits?: FinalAccumulatorOptions): Stage<Buffer, UnifiedEvent | FinalResult> {
  const framerOptions = {
    ...(o.maxFrameBytes === undefined ? {} : { maxFrameBytes: o.maxFrameBytes }),
    ...(o.flushIncomplete === undefined ? {} : { flushIncomplete: o.flushIncomplete }),
    positions: o.positions ?? false,
  };
  const framing = o.framing ?? 'auto';
  const framer = framing === 'auto' ? createAutoFramer(framerOptions) : createFramer(framing, framerOptions);
  const decoder = createDecoder(o.captures === undefined ? {} : { captures: o.captures });
  const normalizer = createNormalizer({
    dialect: o.dialect ?? 'auto',
    ...(o.maxBlocks === undefined ? {} : { maxBlocks: o.maxBlocks }),
    ...(o.maxToolArgumentBytes === undefined ? {} : { maxToolArgumentBytes: o.maxToolArgumentBytes }),
  });
  const stages: Stage<unknown, unknown>[] = [framer, decoder, normalizer] as Stage<unknown, unknown>[];
  if (finalLimits !== undefined) stages.push(createFinalAccumulator(finalLimits) as Stage<unknown, unknown>);
  return batchwise<UnifiedEvent | FinalResult>(stages);
}

/**
 * The stages one after the other over each input chunk's items (its end
 * included), as stream.pipeline runs the separate stages: each stage sees
 * the same inputs in the same order. A stage that throws still hands on what
 * it emitted first, and a later stage failing on those items failed earlier
 * in the fused stage's terms, so its error is the one reported.
 */
function batchwise<O>(stages: Stage<unknown, unknown>[]): Stage<Buffer, O> {
  let failed = false;
  function through(items: unknown[], ending: boolean, emit: (o: O) => void): void {
    let failure: unknown = null;
    for (const stage of stages) {
      const out: unknown[] = [];
      const collect = (x: unknown): void => {
        out.push(x);
      };
      try {
        for (const x of items) stage.push(x, collect);
        if (ending && failure === null) stage.end(collect);
      } catch (err) {
        failure = err;
      }
      items = out;
    }
    for (const x of items) emit(x as O);
    if (failure !== null) {
      failed = true;
      throw failure;
    }
  }
  return {
    push(chunk, emit) {
      if (!failed) through([chunk], false, emit);
    },
    end(emit) {
      if (!failed) through([], true, emit);
    },
  };
}

/** Runs a stage over the chunks; anything thrown is captured. */
function runStages<T = UnifiedEvent>(chunks: Buffer[], stage: Stage<Buffer, T>): RunOutcome<T> {
  const { items, error } = runChunks(stage, chunks);
  return { items, thrown: error ?? undefined };
}

/** The finals a standalone final accumulator makes of `events` (stopping where it throws). */
function foldFinals(events: UnifiedEvent[], options: FinalAccumulatorOptions): RunOutcome<FinalResult> {
  const items: FinalResult[] = [];
  const emit = (f: FinalResult): void => {
    items.push(f);
  };
  const acc = createFinalAccumulator(options);
  try {
    for (const ev of events) acc.push(ev, emit);
    acc.end(emit);
  } catch (thrown) {
    return { items, thrown };
  }
  return { items, thrown: undefined };
}

function codeOf(thrown: unknown): string {
  return thrown === undefined ? 'nothing' : isTypedError(thrown) ? thrown.code : describe(thrown);
}

// ---------------------------------------------------------------------------
// Known library bugs (reproduced in test/fuzz/found.test.ts)
// ---------------------------------------------------------------------------

export interface KnownBug {
  id: string;
  /** The todo reason the fuzz test reports while the bug stands. */
  todo: string;
  matches(problem: string, events: UnifiedEvent[]): boolean;
}

/** Index of the event a problem names (`event N (...)`), or the end of the output. */
function problemAt(problem: string, events: UnifiedEvent[]): number {
  const m = /event (\d+) \(/.exec(problem);
  return m === null ? events.length : Number(m[1]);
}

/**
 * Library bugs the fuzzer found and that are not fixed yet: a failure matching
 * one is tallied as that bug instead of failing the run. Empty: the three
 * found so far (a late Anthropic argument fragment, a limit tripping again
 * while a response was abandoned, a refused call still getting its done) are
 * fixed and kept as regression tests in test/fuzz/found.test.ts.
 */
export const KNOWN_BUGS: KnownBug[] = [];

export function knownBug(problem: string, events: UnifiedEvent[]): KnownBug | undefined {
  return KNOWN_BUGS.find((b) => b.matches(problem, events));
}

// ---------------------------------------------------------------------------
// A batch
// ---------------------------------------------------------------------------

export interface BatchOptions {
  seed: number;
  /** First case index (a long run can resume, a reproducer replays one). */
  from?: number;
  cases: number;
  /** A case slower than this fails (ms). */
  maxCaseMs: number;
  /** heapUsed above this fails (bytes). */
  maxHeapBytes: number;
  /** Stop after this many failures of no known bug. @defaultValue 1 */
  maxFailures?: number;
  /** Count failures of a known bug as failures too (by default they are tallied apart). */
  stopOnKnown?: boolean;
  /** Called every `progressEvery` cases. */
  onProgress?: (done: number, stats: BatchStats) => void;
  progressEvery?: number;
  /** Called before each case runs (the long run publishes the index for its watchdog). */
  onCase?: (index: number) => void;
}

export interface BatchFailure {
  case: FuzzCase;
  problem: string;
  /** The known bug it is an instance of, if any. */
  known: string | null;
}

export interface BatchStats {
  cases: number;
  /** Cases whose lenient run reported error events. */
  withErrors: number;
  events: number;
  bytes: number;
  maxCaseMs: number;
  slowestCase: number;
  maxHeapBytes: number;
  ms: number;
  /** Failures of no known bug (the run stops at maxFailures of them). */
  failures: BatchFailure[];
  /** Known bug id → cases that hit it, and the first of them. */
  known: Map<string, { count: number; first: BatchFailure }>;
}

/** Runs cases [from, from + cases) and checks time and memory bounds on the way. */
export function runBatch(inputs: SeedInput[], o: BatchOptions): BatchStats {
  const from = o.from ?? 0;
  const maxFailures = o.maxFailures ?? 1;
  const every = o.progressEvery ?? 1000;
  const stats: BatchStats = {
    cases: 0,
    withErrors: 0,
    events: 0,
    bytes: 0,
    maxCaseMs: 0,
    slowestCase: -1,
    maxHeapBytes: 0,
    ms: 0,
    failures: [],
    known: new Map(),
  };
  const started = performance.now();
  for (let i = from; i < from + o.cases; i++) {
    o.onCase?.(i);
    const c = makeCase(inputs, o.seed, i);
    const r = runCase(c);
    stats.cases++;
    stats.bytes += c.bytes.length;
    stats.events += r.events;
    if (r.hadErrors) stats.withErrors++;
    if (r.ms > stats.maxCaseMs) {
      stats.maxCaseMs = r.ms;
      stats.slowestCase = i;
    }
    let problem = r.problem;
    if (problem === null && r.ms > o.maxCaseMs) problem = `case took ${r.ms.toFixed(0)} ms (bound ${o.maxCaseMs} ms)`;
    if (stats.cases % 50 === 0 || problem !== null) {
      const heap = process.memoryUsage().heapUsed;
      if (heap > stats.maxHeapBytes) stats.maxHeapBytes = heap;
      if (problem === null && heap > o.maxHeapBytes) problem = `heapUsed ${(heap / 2 ** 20).toFixed(0)} MiB over the bound`;
    }
    if (problem !== null) {
      const bug = r.problem === null ? undefined : knownBug(r.problem, r.output ?? []);
      const failure: BatchFailure = { case: c, problem, known: bug?.id ?? null };
      if (bug !== undefined && o.stopOnKnown !== true) {
        const k = stats.known.get(bug.id);
        if (k === undefined) stats.known.set(bug.id, { count: 1, first: failure });
        else k.count++;
      } else {
        stats.failures.push(failure);
        if (stats.failures.length >= maxFailures) break;
      }
    }
    if (o.onProgress !== undefined && stats.cases % every === 0) {
      stats.ms = performance.now() - started;
      o.onProgress(stats.cases, stats);
    }
  }
  stats.ms = performance.now() - started;
  return stats;
}

/** One line naming a case and how to replay it. */
export function describeCase(c: FuzzCase): string {
  const chunking = c.chunkSizes.length === 1 ? 'whole' : `${c.chunkSizes.length} chunks (max ${Math.max(...c.chunkSizes)})`;
  return (
    `seed ${c.seed} case ${c.index}: ${c.source} ${c.mutations.length === 0 ? 'unmutated' : c.mutations.join(' ')}; ` +
    `${c.bytes.length} bytes, ${chunking}; options ${JSON.stringify(c.options)} limits ${JSON.stringify(c.finalLimits)} ` +
    `(replay: npm run fuzz -- --seed ${c.seed} --from ${c.index} --cases 1)`
  );
}
