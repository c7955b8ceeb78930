import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import type { UnifiedEvent } from '../lib/events.js';
import { decodeAll } from '../lib/pipeline/events-stage.js';
import { createFinalAccumulator } from '../lib/accumulate/final.js';
import type { FinalResult } from '../lib/accumulate/types.js';
import { runStage } from '../lib/stage.js';
import {
  createResumeFilter,
  createResumeStage,
  createResumeTracker,
  cutOffStart,
  resumeEvents,
  type ResumePoint,
} from '../lib/resume.js';
import { corpusFile, corpusFiles, fixture as fx } from './helpers/corpus.js';

// ---------------------------------------------------------------------------
// helpers: SSE blocks, simulated provider replays, comparisons

/** The SSE event blocks of a capture, each with its closing blank line (byte-exact). */
function blocks(buf: Buffer): Buffer[] {
  const s = buf.toString('latin1');
  const out: Buffer[] = [];
  const re = /\r?\n\r?\n/g;
  let i = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    out.push(buf.subarray(i, m.index + m[0].length));
    i = m.index + m[0].length;
  }
  if (i < buf.length) out.push(buf.subarray(i));
  return out;
}

const seqOf = (b: Buffer): number | undefined => {
  const m = /"sequence_number":(\d+)/.exec(b.toString());
  return m === null ? undefined : Number(m[1]);
};
const idOf = (b: Buffer): string | undefined => /"event_id":"([^"]+)"/.exec(b.toString())?.[1];
const isSnapshot = (b: Buffer): boolean => /"type":"response\.(created|queued|in_progress)"/.test(b.toString());

/** Opaque, unordered event ids (Interactions ids are tokens: nothing may depend on their order). */
const token = (j: number): string => Buffer.from(`ev${(j * 2654435761) % 4294967296}`).toString('base64url');

/** Gives every JSON payload an `event_id` (the corpus Interactions captures were recorded without them). */
function withEventIds(buf: Buffer): Buffer[] {
  return blocks(buf).map((b, j) => {
    const text = b.toString('utf8');
    const m = /^data: (\{.*\})$/m.exec(text);
    if (m === null) return b;
    const p = JSON.parse(m[1]!) as Record<string, unknown>;
    p['event_id'] ??= token(j);
    return Buffer.from(text.replace(m[1]!, () => JSON.stringify(p)));
  });
}

const finals = (events: readonly UnifiedEvent[]): FinalResult[] => runStage(createFinalAccumulator(), events);
const noAt = (events: readonly UnifiedEvent[]): unknown[] =>
  events.map((e) => {
    const { at: _at, ...rest } = e;
    return rest;
  });

/** The events with the offsets of citations the resumed parser could not check taken out (see withoutLostOffsets). */
function noOffsets(events: unknown[], combined: readonly UnifiedEvent[]): unknown[] {
  const lost = new Set(combined.filter((e) => e.type === 'citation' && e.start === undefined).map((e) => (e.type === 'citation' ? e.url : '')));
  return events.map((e) => {
    const ev = e as UnifiedEvent;
    if (ev.type !== 'citation' || !lost.has(ev.url)) return e;
    const { start: _s, end: _e, ...rest } = ev;
    return rest;
  });
}

function pointOf(events: readonly UnifiedEvent[]): ResumePoint {
  const tracker = createResumeTracker();
  runStage(tracker, events.slice(0, cutOffStart(events)));
  return tracker.point();
}

/** The resumed connection as the client decodes it: a fresh pipeline, told the dialect it already knows. */
function decodeResumed(bytes: Buffer[], point: ResumePoint): UnifiedEvent[] {
  return decodeAll([Buffer.concat(bytes)], { dialect: point.dialect ?? 'auto' });
}

interface Outcome {
  cases: number;
  failures: string[];
}

/**
 * A resumed parser never saw the text before the cut: a citation whose byte offsets it cannot check
 * against its block's text (Gemini Interactions) comes without `start`/`end`. Never with other ones.
 */
function withoutLostOffsets(got: FinalResult[], want: FinalResult[]): FinalResult[] {
  return want.map((w, i) => {
    const g = got[i];
    if (g === undefined || g.citations.length !== w.citations.length) return w;
    const citations = w.citations.map((c, j) => {
      const h = g.citations[j]!;
      if (h.start !== undefined || h.end !== undefined || c.start === undefined) return c;
      const { start: _s, end: _e, ...rest } = c;
      return rest;
    });
    return { ...w, citations };
  });
}

function compare(o: Outcome, label: string, combined: UnifiedEvent[], whole: UnifiedEvent[], wholeFinals: FinalResult[], events = true): void {
  o.cases++;
  const got = finals(combined);
  if (!isDeepStrictEqual(got, withoutLostOffsets(got, wholeFinals))) o.failures.push(`${label}: final differs`);
  else if (events && !isDeepStrictEqual(noAt(combined), noAt(whole))) o.failures.push(`${label}: events differ`);
}

/** Cut points: every block boundary, or for long streams the structural ones plus a stride (text deltas are all alike). */
function cutPoints(bs: Buffer[]): number[] {
  if (bs.length <= 400) return bs.map((_, k) => k);
  const out: number[] = [];
  for (let k = 0; k < bs.length; k++) {
    const plainDelta = /"type":"response\.(output_text|reasoning_summary_text|reasoning_text)\.delta"/.test(bs[k]!.toString());
    if (!plainDelta || k % 25 === 0 || k < 20 || k > bs.length - 20) out.push(k);
  }
  return out;
}

/**
 * Responses: the first connection gets blocks 0..k; the client resumes with
 * `starting_after` = the last sequence number it saw; the server replays every
 * event with a greater sequence number, in order (no response.created, as in
 * the real capture). Variant: the replay begins with the snapshot seen last
 * (a repeated response.in_progress with its old sequence number).
 */
function responsesCuts(name: string, buf: Buffer): Outcome {
  const o: Outcome = { cases: 0, failures: [] };
  const bs = blocks(buf);
  const whole = decodeAll([buf]);
  const wholeFinals = finals(whole);
  for (const k of cutPoints(bs)) {
    const first = decodeAll([Buffer.concat(bs.slice(0, k + 1))]);
    const point = pointOf(first);
    if (typeof point.cursor !== 'number') continue; // nothing to resume from yet: a client restarts
    const after = point.cursor;
    const tail = bs.filter((b, j) => (seqOf(b) ?? (j > k ? Infinity : -1)) > after);
    // The one known difference in events (finals equal): cut just before a code interpreter call's
    // code.done, the resumed parser meets the call first there and sends its whole code as one delta.
    const events = !/"type":"response\.code_interpreter_call_code\.done"/.test(bs[k + 1]?.toString() ?? '');
    compare(o, `${name} cut after block ${k}`, resumeEvents(first, decodeResumed(tail, point)), whole, wholeFinals, events);
    const snapshot = bs.slice(0, k + 1).filter(isSnapshot).pop();
    if (snapshot !== undefined && !point.finished) {
      compare(o, `${name} cut after block ${k} + snapshot`, resumeEvents(first, decodeResumed([snapshot, ...tail], point)), whole, wholeFinals, events);
    }
  }
  return o;
}

/**
 * Interactions: `last_event_id` = the last event id seen; the server sends the
 * events after that one. Variants: the replay begins with the interaction's
 * created event or status update again (old ids).
 */
function interactionsCuts(name: string, bs: Buffer[]): Outcome & { eventDiffs: string[] } {
  const o = { cases: 0, failures: [] as string[], eventDiffs: [] as string[] };
  const buf = Buffer.concat(bs);
  const whole = decodeAll([buf]);
  const wholeFinals = finals(whole);
  for (let k = 0; k < bs.length; k++) {
    const first = decodeAll([Buffer.concat(bs.slice(0, k + 1))]);
    const point = pointOf(first);
    if (typeof point.cursor !== 'string') continue;
    const from = bs.findIndex((b) => idOf(b) === point.cursor);
    const tail = bs.slice(from + 1);
    const replays: [string, Buffer[]][] = [['', tail]];
    if (!point.finished) {
      replays.push([' + created', [bs[0]!, ...tail]]);
      const status = bs.findIndex((b) => b.toString().includes('"interaction.status_update"'));
      if (status >= 0 && status <= from) replays.push([' + status', [bs[status]!, ...tail]]);
    }
    for (const [variant, resumedBytes] of replays) {
      const label = `${name} cut after block ${k}${variant}`;
      const combined = resumeEvents(first, decodeResumed(resumedBytes, point));
      compare(o, label, combined, whole, wholeFinals, false);
      if (!isDeepStrictEqual(noOffsets(noAt(combined), combined), noOffsets(noAt(whole), combined))) o.eventDiffs.push(label);
    }
  }
  return o;
}

// ---------------------------------------------------------------------------
// the tracker

t.test('tracker: passes events through; cursor, response id and open calls at every point', (t) => {
  const buf = fx('openai-responses/reasoning-function-call.sse');
  const events = decodeAll([buf]);
  const tracker = createResumeTracker();
  const out = runStage(tracker, events);
  t.same(out, events, 'unchanged, same order');
  t.equal(tracker.responseId(), events.find((e) => e.type === 'start')?.type === 'start' ? (events[0] as { id: string }).id : null);
  const lastCursor = [...events].reverse().find((e) => e.cursor !== undefined)?.cursor;
  t.equal(tracker.cursor(), lastCursor);
  t.equal(tracker.point().finished, true);
  t.same(tracker.point().openCalls, [], 'every call finished');

  // Mid-call: the call is open with the arguments so far.
  const mid = events.slice(0, events.findIndex((e) => e.type === 'tool_call_delta') + 1);
  const midTracker = createResumeTracker();
  runStage(midTracker, mid);
  const delta = mid[mid.length - 1] as UnifiedEvent & { type: 'tool_call_delta' };
  t.match(midTracker.point(), {
    cursor: delta.cursor,
    finished: false,
    openCalls: [{ choice: 0, index: delta.index, id: delta.id, arguments: delta.argumentsDelta }],
    seen: [],
  });
  t.end();
});

t.test('tracker: Interactions event ids are kept in order as `seen`', (t) => {
  const events = decodeAll([fx('gemini-interactions/text.sse')]);
  const tracker = createResumeTracker();
  runStage(tracker, events.slice(0, 6));
  t.equal(tracker.responseId(), 'v1_fx1');
  const cursors = [...new Set(events.slice(0, 6).flatMap((e) => (typeof e.cursor === 'string' ? [e.cursor] : [])))];
  t.same(tracker.point().seen, cursors);
  t.equal(tracker.cursor(), cursors[cursors.length - 1]);
  t.equal(tracker.point().dialect, 'gemini-interactions');
  t.end();
});

// ---------------------------------------------------------------------------
// the filter alone

t.test('filter from a bare cursor: drops replays and the repeated start, keeps the rest', (t) => {
  const events = decodeAll([fx('openai-responses/text.sse')]);
  const filtered = runStage(createResumeFilter({ after: 5 }), events);
  t.ok(filtered.every((e) => e.type !== 'start'), 'no start');
  t.ok(filtered.every((e) => e.cursor === undefined || (e.cursor as number) > 5), 'nothing at or before 5');
  t.same(
    noAt(filtered),
    noAt(events.filter((e) => e.type !== 'start' && (e.cursor === undefined || (e.cursor as number) > 5))),
  );
  t.end();
});

t.test('filter: a gap across the splice is reported once, by the filter', (t) => {
  const events = decodeAll([fx('openai-responses/text.sse')]);
  const tail = events.filter((e) => e.cursor === undefined || (e.cursor as number) >= 8);
  const out = runStage(createResumeFilter({ after: 5 }), tail);
  const gaps = out.filter((e) => e.type === 'error' && e.code === 'sequence_gap');
  t.equal(gaps.length, 1);
  t.match(gaps[0], { cursor: 8, terminal: false, message: /sequence_number 8 after 5: 2 event\(s\) missing across the resume/ });

  // A replayed snapshot makes the new parser see a false gap at the splice: dropped.
  const snapshot = blocks(fx('openai-responses/text.sse')).find(isSnapshot)!;
  const after = 6;
  const rest = blocks(fx('openai-responses/text.sse')).filter((b) => (seqOf(b) ?? -1) > after);
  const resumed = decodeAll([Buffer.concat([snapshot, ...rest])], { dialect: 'openai-responses' });
  t.ok(resumed.some((e) => e.type === 'error' && e.code === 'sequence_gap'), 'the fresh parser does report one');
  const spliced = runStage(createResumeFilter({ after }), resumed);
  t.notOk(spliced.some((e) => e.type === 'error'), 'none after the filter: 7 follows 6');
  t.end();
});

t.test('filter: opaque event ids — replays recognised by id, never by order', (t) => {
  const bs = withEventIds(fx('gemini-interactions/text.sse'));
  const ids = bs.map(idOf);
  // Resume after block 5; the server replays the created event (an old id) before the new ones.
  const resumed = decodeAll([Buffer.concat([bs[0]!, ...bs.slice(6)])], { dialect: 'gemini-interactions' });
  const seen = ids.slice(0, 6).filter((x): x is string => x !== undefined);
  const out = runStage(createResumeFilter({ after: seen[seen.length - 1]!, seen }), resumed);
  t.ok(out.every((e) => typeof e.cursor !== 'string' || !seen.includes(e.cursor)), 'no replayed id');
  t.ok(out.every((e) => e.type !== 'start'));
  t.equal(out.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join(''), '1, 2, 3 — fin 😀');
  t.end();
});

t.test('a resume point is plain JSON: stored and read back, it resumes the same', (t) => {
  const bs = blocks(fx('openai-responses/reasoning-function-call.sse'));
  const k = bs.findIndex((b) => b.toString().includes('function_call_arguments.delta'));
  const first = decodeAll([Buffer.concat(bs.slice(0, k + 1))]);
  const point = pointOf(first);
  const copy = JSON.parse(JSON.stringify(point)) as ResumePoint;
  t.same(copy, point);
  const resumed = decodeResumed(bs.filter((b) => (seqOf(b) ?? -1) > (point.cursor as number)), point);
  t.same(runStage(createResumeFilter(copy), resumed), runStage(createResumeFilter(point), resumed));
  t.end();
});

// ---------------------------------------------------------------------------
// first + resumed = uninterrupted

t.test('the real pair: background stream cut after response.created + the recorded resume (starting_after=0)', (t) => {
  const initial = corpusFile('openai-responses/pydantic-ai--background-initial.sse');
  const resume = corpusFile('openai-responses/pydantic-ai--background-resume-starting-after.sse');
  const whole = decodeAll([initial]);
  const first = decodeAll([blocks(initial)[0]!]);
  t.match(first[first.length - 1], { type: 'done', stopReason: 'error' }, 'alone, the first connection is cut off');
  const point = pointOf(first);
  t.equal(point.cursor, 0);
  t.equal(point.responseId, 'resp_0850765c843cca5300699cc47d93c0819089a181f5feeff8eb');
  const combined = resumeEvents(first, decodeResumed([resume], point));
  t.same(finals(combined), finals(whole));
  t.equal(finals(combined)[0]!.text, '2 + 2 equals 4.');
  t.same(
    noAt(combined).map((e) => (e as UnifiedEvent).type),
    noAt(whole).map((e) => (e as UnifiedEvent).type),
    'the same event sequence',
  );
  t.end();
});

const responsesInputs: [string, () => Buffer][] = [
  ...['text', 'reasoning-function-call', 'refusal', 'incomplete-max-output-tokens', 'error-then-failed'].map(
    (n): [string, () => Buffer] => [`fixtures/openai-responses/${n}.sse`, () => fx(`openai-responses/${n}.sse`)],
  ),
  ['fixtures/xai-responses/reasoning-function-call.sse', () => fx('xai-responses/reasoning-function-call.sse')],
  ...corpusFiles(['openai-responses', 'xai-responses'])
    .filter((f) => f.name.endsWith('.sse'))
    .map((f): [string, () => Buffer] => [f.name, () => f.bytes]),
];

t.test('Responses: cut at every event boundary, resume after the last sequence number: same finals, same events', (t) => {
  let cases = 0;
  for (const [name, bytes] of responsesInputs) {
    const o = responsesCuts(name, bytes());
    cases += o.cases;
    t.same(o.failures, [], `${name}: ${o.cases} resumes`);
  }
  t.ok(cases > 3000, `${cases} resumes checked`);
  t.end();
});

t.test('Interactions: cut at every event boundary, resume after the last event id: same finals', (t) => {
  const inputs: [string, Buffer[]][] = [
    ...['text', 'error', 'function-call-fragments', 'done-without-completed'].map((n): [string, Buffer[]] => [
      `fixtures/gemini-interactions/${n}.sse`,
      withEventIds(fx(`gemini-interactions/${n}.sse`)),
    ]),
    ...corpusFiles(['gemini-interactions']).map((f): [string, Buffer[]] => [f.name, withEventIds(f.bytes)]),
  ];
  let cases = 0;
  const eventDiffs: string[] = [];
  for (const [name, bs] of inputs) {
    const o = interactionsCuts(name, bs);
    cases += o.cases;
    eventDiffs.push(...o.eventDiffs);
    t.same(o.failures, [], `${name}: ${o.cases} resumes`);
  }
  t.ok(cases > 100, `${cases} resumes checked`);
  // The one known difference: a call cut between its step.start and step.stop with no argument
  // deltas at all. Its arguments came whole on step.start, which the unified events do not carry,
  // so the spliced stream closes it with '' (final arguments {} either way) instead of a '{}' delta.
  t.same(
    eventDiffs,
    [
      'fixtures/gemini-interactions/function-call-fragments.sse cut after block 6',
      'fixtures/gemini-interactions/function-call-fragments.sse cut after block 6 + created',
    ],
    'events equal everywhere else',
  );
  t.end();
});

t.test('cut at every byte (torn last frame, with and without flushing it): same finals', (t) => {
  for (const name of ['openai-responses/reasoning-function-call.sse', 'openai-responses/error-then-failed.sse']) {
    const buf = fx(name);
    const bs = blocks(buf);
    const wholeFinals = finals(decodeAll([buf]));
    const o: Outcome = { cases: 0, failures: [] };
    for (const flushIncomplete of [true, false]) {
      for (let b = 1; b < buf.length; b++) {
        const first = decodeAll([buf.subarray(0, b)], { flushIncomplete });
        const point = pointOf(first);
        if (typeof point.cursor !== 'number') continue;
        const after = point.cursor;
        const combined = resumeEvents(first, decodeResumed(bs.filter((x) => (seqOf(x) ?? -1) > after), point));
        o.cases++;
        if (!isDeepStrictEqual(finals(combined), wholeFinals)) o.failures.push(`byte ${b} flush=${flushIncomplete}`);
      }
    }
    t.same(o.failures, [], `${name}: ${o.cases} cuts`);
  }
  t.end();
});

// ---------------------------------------------------------------------------
// the stage

t.test('stage: fed event by event, resumed twice (the second connection drops too)', (t) => {
  const buf = fx('openai-responses/reasoning-function-call.sse');
  const bs = blocks(buf);
  const whole = decodeAll([buf]);
  const failures: string[] = [];
  for (let k1 = 1; k1 < bs.length - 1; k1++) {
    for (let k2 = k1 + 1; k2 < bs.length; k2++) {
      const stage = createResumeStage();
      const out: UnifiedEvent[] = [];
      const emit = (e: UnifiedEvent): void => {
        out.push(e);
      };
      for (const e of decodeAll([Buffer.concat(bs.slice(0, k1 + 1))])) stage.push(e, emit);
      stage.resume();
      const p1 = stage.point();
      const second = bs.filter((b, j) => j <= k2 && (seqOf(b) ?? -1) > (p1.cursor as number));
      for (const e of decodeResumed(second, p1)) stage.push(e, emit);
      stage.resume();
      const p2 = stage.point();
      for (const e of decodeResumed(bs.filter((b) => (seqOf(b) ?? -1) > (p2.cursor as number)), p2)) stage.push(e, emit);
      stage.end(emit);
      if (!isDeepStrictEqual(noAt(out), noAt(whole))) failures.push(`${k1}/${k2}`);
    }
  }
  t.same(failures, []);
  t.end();
});

t.test('stage: a resumed connection that brings nothing gives the cut-off report back', (t) => {
  const bs = blocks(fx('openai-responses/text.sse'));
  const first = decodeAll([Buffer.concat(bs.slice(0, 5))]);
  const combined = resumeEvents(first, []);
  t.same(noAt(combined), noAt(first), 'exactly the first connection, report included');
  t.match(finals(combined)[0], { stopReason: 'error', errors: [{ code: 'incomplete_stream' }] });
  t.end();
});

t.test('stage: without resume() nothing is held back for good, nothing is dropped', (t) => {
  for (const name of ['openai-responses/text.sse', 'gemini-interactions/text.sse', 'anthropic-messages/missing-message-stop.sse']) {
    const events = decodeAll([fx(name)]);
    t.same(runStage(createResumeStage(), events), events, name);
  }
  t.end();
});

t.test('cutOffStart finds only the report a cut produces', (t) => {
  const cut = decodeAll([Buffer.concat(blocks(fx('openai-responses/reasoning-function-call.sse')).slice(0, 9))]);
  const at = cutOffStart(cut);
  t.ok(at < cut.length);
  t.same(
    cut.slice(at).map((e) => e.type),
    cut.slice(at).map((e) => e.type).filter((x) => ['error', 'tool_call_done', 'done'].includes(x)),
  );
  t.match(cut[cut.length - 1], { type: 'done', stopReason: 'error' });
  const whole = decodeAll([fx('openai-responses/reasoning-function-call.sse')]);
  t.equal(cutOffStart(whole), whole.length, 'a complete stream has none');
  t.end();
});
