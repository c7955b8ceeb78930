/**
 * Resuming a stream after the connection dropped (OpenAI Responses background
 * mode: `GET /v1/responses/{id}?stream=true&starting_after=<sequence_number>`;
 * Gemini Interactions: `GET …/interactions/{id}?stream=true&last_event_id=<event_id>`).
 *
 * Works on unified events: the dialects stamp every event with `cursor` (the
 * sequence number or event id of the payload it came from).
 *
 * - `createResumeTracker()` passes events through and knows the resume point:
 *   the response id, the last cursor, and what a filter needs to splice the
 *   resumed connection onto the first (tool calls still open, event ids seen).
 * - `createResumeFilter(point)` drops what a resumed connection repeats: events
 *   at or before the cursor (replayed snapshots included), its new `start`,
 *   and repairs what its fresh parser could not know (tool calls opened on the
 *   first connection; the sequence check across the splice).
 * - `createResumeStage()` / `resumeEvents()` do the whole flow: feed the first
 *   connection's events, call `resume()`, feed the resumed connection's. The
 *   first connection's cut-off report (the `incomplete_stream` error and
 *   `done` its parser emitted when the bytes stopped) is withdrawn, so the
 *   final of both connections equals the final of an uninterrupted stream.
 */
import { assertNever, type DialectName, type ErrorEvent, type Json, type ToolCallDeltaEvent, type ToolCallDoneEvent, type UnifiedEvent } from './events.js';
import type { Emit, Stage } from './stage.js';
import { isFinalDone } from './accumulate/response.js';

export type Cursor = number | string;

/** A tool call begun (and not finished) before the cut. */
export interface OpenToolCall {
  choice: number;
  index: number;
  id: string;
  name: string;
  /** Argument text received so far. */
  arguments: string;
  /** A call the provider runs itself (its events carry the flag). */
  providerExecuted?: true;
  /**
   * Argument text the parser wrote when the call opened, from the same payload as its start (e.g.
   * the `{"code":"` of a code interpreter call): a parser that re-opens the call writes it again.
   */
  opening?: string;
}

/** Everything needed to resume a response: plain JSON, so it can be stored and used in another process. */
export interface ResumePoint {
  /** The response (or interaction) id from `start`: what the resume request names. */
  responseId: string | null;
  dialect: DialectName | null;
  /** The last cursor seen: `starting_after` / `last_event_id`. */
  cursor: Cursor | null;
  /** Every string cursor (Interactions event id) seen in the response, in order: ids are opaque, so a replay is recognised by id. */
  seen: string[];
  /** Tool calls still open at the cut. */
  openCalls: OpenToolCall[];
  /** Tool calls already finished: a resumed parser that meets their closing payloads again must not open them anew. */
  doneCalls: { choice: number; index: number; id: string }[];
  /** The response already ended (its final `done` was seen): there is nothing to resume. */
  finished: boolean;
  /** After the final `done`, the `[DONE]` sentinel was seen too (a resumed connection may send it again). */
  sentinelSeen: boolean;
  /** Code of a terminal error already reported (OpenAI sends `error`, then `response.failed` repeats it). */
  failedWith: string | null;
  /**
   * Citations already reported (their key, see citationKey): a resumed parser that never saw their
   * announcement reports them again from the finished item.
   */
  citations: string[];
}

/** What tells two citation events apart. */
function citationKey(ev: UnifiedEvent & { type: 'citation' }): string {
  return JSON.stringify([ev.choice ?? 0, ev.index, ev.url ?? null, ev.source ?? null, ev.title ?? null, ev.citedText ?? null, ev.start ?? null, ev.end ?? null]);
}

/** The same without the offsets, which a resumed parser that never saw the text before the cut may not know. */
function sourceKey(key: string): string {
  return JSON.stringify((JSON.parse(key) as unknown[]).slice(0, 6));
}

export interface ResumeTracker extends Stage<UnifiedEvent, UnifiedEvent> {
  /** The last cursor of the current (or last) response, or null when it carried none. */
  cursor(): Cursor | null;
  /** The id of the current (or last) response, from its `start`. */
  responseId(): string | null;
  /** The resume point of the current (or last) response. */
  point(): ResumePoint;
}

const key = (choice: number | undefined, index: number): string => `${choice ?? 0}:${index}`;

/** Passes events through unchanged and keeps the resume point of the current response. */
export function createResumeTracker(): ResumeTracker {
  let responseId: string | null = null;
  let dialect: DialectName | null = null;
  let cursor: Cursor | null = null;
  let seen: string[] = [];
  let seenSet = new Set<string>();
  let calls = new Map<string, OpenToolCall>();
  let doneCalls: { choice: number; index: number; id: string }[] = [];
  let finished = false;
  let failedWith: string | null = null;
  let sentinelSeen = false;
  let citations: string[] = [];
  /** The cursor of each open call's start. */
  const cursorOf = new WeakMap<OpenToolCall, Cursor>();

  function observe(ev: UnifiedEvent): void {
    // A laned response (WebSocket mode) cannot be resumed (no background mode there): it is no resume point.
    if (ev.streamId !== undefined) return;
    if (ev.type === 'start') {
      responseId = ev.id;
      dialect = ev.dialect ?? null;
      cursor = null;
      seen = [];
      seenSet = new Set();
      calls = new Map();
      doneCalls = [];
      finished = false;
      failedWith = null;
      sentinelSeen = false;
      citations = [];
    }
    if (ev.cursor !== undefined) {
      cursor = ev.cursor;
      if (typeof ev.cursor === 'string' && !seenSet.has(ev.cursor)) {
        seenSet.add(ev.cursor);
        seen.push(ev.cursor);
      }
    }
    switch (ev.type) {
      case 'tool_call_start':
        const call: OpenToolCall = {
          choice: ev.choice ?? 0,
          index: ev.index,
          id: ev.id,
          name: ev.name,
          arguments: '',
          ...(ev.providerExecuted === true ? { providerExecuted: true as const } : {}),
        };
        calls.set(key(ev.choice, ev.index), call);
        if (ev.cursor !== undefined) cursorOf.set(call, ev.cursor);
        break;
      case 'tool_call_delta': {
        const call = calls.get(key(ev.choice, ev.index));
        if (call === undefined || call.id !== ev.id) break;
        if (call.arguments === '' && ev.cursor !== undefined && ev.cursor === cursorOf.get(call)) call.opening = ev.argumentsDelta;
        call.arguments += ev.argumentsDelta;
        break;
      }
      case 'tool_call_done':
        calls.delete(key(ev.choice, ev.index));
        doneCalls.push({ choice: ev.choice ?? 0, index: ev.index, id: ev.id });
        break;
      case 'done':
        if (isFinalDone(ev)) {
          finished = true;
          calls.clear();
        }
        break;
      case 'error':
        if (ev.terminal && ev.cursor !== undefined) failedWith = ev.code;
        break;
      case 'raw':
        if (finished && ev.event === '[DONE]') sentinelSeen = true;
        break;
      case 'citation':
        citations.push(citationKey(ev));
        break;
      case 'start':
      case 'text_delta':
      case 'reasoning_delta':
      case 'signature':
      case 'usage':
      case 'audio_delta':
      case 'tool_result':
      case 'file':
      case 'tool_call_cancel':
      case 'session':
      case 'steer':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        break; // nothing to track
      default:
        assertNever(ev);
    }
  }

  return {
    push(ev, emit) {
      observe(ev);
      emit(ev);
    },
    end() {},
    cursor: () => cursor,
    responseId: () => responseId,
    point: () => ({
      responseId,
      dialect,
      cursor,
      seen: [...seen],
      openCalls: [...calls.values()].map((c) => ({ ...c })),
      doneCalls: doneCalls.map((c) => ({ ...c })),
      finished,
      sentinelSeen,
      failedWith,
      citations: [...citations],
    }),
  };
}

interface Carried {
  call: OpenToolCall;
  /** The arguments received before the cut. */
  before: string;
  /** The id the resumed connection's parser gave the call (it never saw the call's start). */
  resumedId: string | null;
  /** Argument deltas received on the resumed connection. */
  resumed: string[];
  /** A server call's whole arguments, replayed on the resumed connection: written at its step.stop, as the parser would. */
  whole: string | null;
  /** The re-opening parser's repeat of the call's opening text was dropped. */
  openingSeen: boolean;
}

/** What `createResumeFilter` accepts: a full resume point, or just the cursor to resume after. */
export type ResumeFrom = ResumePoint | { after: Cursor; seen?: string[] };

function isPoint(from: ResumeFrom): from is ResumePoint {
  return 'openCalls' in from;
}

/** The payload of a raw event, as an object, or undefined. */
function rawObject(ev: UnifiedEvent): { [k: string]: Json } | undefined {
  if (ev.type !== 'raw') return undefined;
  const p = ev.event;
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? p : undefined;
}

/**
 * Drops what a resumed connection repeats and splices the rest onto the first
 * connection. Feed it the resumed connection's events only.
 *
 * Dropped: events whose cursor is at or before the resume point (numbers
 * compare; an event id is a replay when it was seen before — pass the
 * tracker's point, or `seen`, for that), and the resumed connection's own
 * `start`. Repaired: tool calls open at the cut (the new parser opens them
 * again under a made-up id, or passes their Interactions deltas as `raw`), and
 * the sequence check across the splice (a gap there is reported once, by the
 * filter; a parser's false gap after a replayed snapshot is dropped).
 */
export function createResumeFilter(from: ResumeFrom): Stage<UnifiedEvent, UnifiedEvent> {
  const after: Cursor | null = isPoint(from) ? from.cursor : from.after;
  const seen = new Set<string>(isPoint(from) ? from.seen : (from.seen ?? []));
  if (typeof after === 'string') seen.add(after);
  const carried = new Map<string, Carried>();
  const finishedCalls = new Set<string>();
  if (isPoint(from)) {
    for (const call of from.openCalls) {
      carried.set(key(call.choice, call.index), { call: { ...call }, before: call.arguments, resumedId: null, resumed: [], whole: null, openingSeen: false });
    }
    for (const call of from.doneCalls) finishedCalls.add(key(call.choice, call.index));
  }
  /** The response had already ended: a resumed connection can only replay it. */
  const finished = isPoint(from) && from.finished;
  /** Interactions ends a response at `[DONE]` even without interaction.completed. */
  const doneEndsResponse = isPoint(from) && from.dialect === 'gemini-interactions';
  let open = isPoint(from) && !from.finished;
  /** Past the resumed response: nothing more to splice. */
  let passThrough = false;
  let sentinelSeen = isPoint(from) && from.sentinelSeen;
  /** A terminal error reported before the cut: the new parser reports it again from the terminal payload. */
  let failedWith = isPoint(from) ? from.failedWith : null;
  /** Citations reported before the cut (their keys), each matched at most once. */
  const citedBefore = isPoint(from) ? [...(from.citations ?? [])] : [];
  const citedAgain = (ev: UnifiedEvent & { type: 'citation' }): boolean => {
    const k = citationKey(ev);
    // the same citation; or, without offsets, one of the same source whose offsets the parser could not know
    let i = citedBefore.indexOf(k);
    if (i < 0 && ev.start === undefined && ev.end === undefined) i = citedBefore.findIndex((b) => sourceKey(b) === sourceKey(k));
    if (i < 0) return false;
    citedBefore.splice(i, 1);
    return true;
  };
  let startDropped = finished; // a finished response is only replayed: its start, if any, comes with an old cursor
  /** Cursor of the first event kept (the splice point), once known. */
  let firstKept: Cursor | undefined;
  /** The first resumed delta of a carried call, held until we know whether its `done` re-sends the whole arguments. */
  let held: ToolCallDeltaEvent | null = null;

  function isReplay(cursor: Cursor): boolean {
    if (typeof cursor === 'number') return typeof after === 'number' && cursor <= after;
    return seen.has(cursor);
  }

  function carriedFor(ev: { choice?: number; index: number; id?: string }): Carried | undefined {
    const c = carried.get(key(ev.choice, ev.index));
    if (c === undefined || ev.id === undefined) return c;
    return ev.id === c.call.id || ev.id === c.resumedId ? c : undefined;
  }

  function flushHeld(emit: Emit<UnifiedEvent>): void {
    if (held === null) return;
    const ev = held;
    held = null;
    const c = carriedFor(ev);
    if (c !== undefined) c.call.arguments += ev.argumentsDelta;
    emit(ev);
  }

  function delta(c: Carried, text: string, like: UnifiedEvent): ToolCallDeltaEvent {
    const ev: ToolCallDeltaEvent = { type: 'tool_call_delta', index: c.call.index, id: c.call.id, argumentsDelta: text };
    if (c.call.providerExecuted === true) ev.providerExecuted = true;
    copyBase(like, ev);
    return ev;
  }

  /** A tool_call_done for a carried call: the whole arguments, whichever connection delivered them. */
  function finishCarried(c: Carried, ev: UnifiedEvent & { type: 'tool_call_done' }, emit: Emit<UnifiedEvent>): void {
    const before = c.call.arguments;
    let args = ev.arguments;
    if (c.before !== '' && c.resumed.length > 0 && args === c.resumed.join('') && !args.startsWith(c.before)) {
      // The parser joined only the deltas it saw: the arguments are both connections' deltas.
      args = c.before + args;
    }
    if (held !== null) {
      const h = held;
      held = null;
      if (before + h.argumentsDelta === args || !args.startsWith(before)) emit(h);
      else if (args.length > before.length) emit(delta(c, args.slice(before.length), h)); // the parser re-sent the whole value
    }
    carried.delete(key(ev.choice, ev.index));
    const done = { ...ev, id: c.call.id, name: c.call.name !== '' ? c.call.name : ev.name, arguments: args };
    emit(done);
  }

  /**
   * The resumed connection ended early too: like the dialects at a cut, close
   * the carried calls whose arguments are already complete JSON (the new
   * parser does not know them).
   */
  function closeCompleteCalls(like: UnifiedEvent, emit: Emit<UnifiedEvent>): void {
    flushHeld(emit);
    for (const [k, c] of carried) {
      const args = c.call.arguments;
      if (args === '') continue;
      try {
        JSON.parse(args);
      } catch {
        continue;
      }
      carried.delete(k);
      const done: ToolCallDoneEvent = { type: 'tool_call_done', index: c.call.index, id: c.call.id, name: c.call.name, arguments: args };
      if (c.call.providerExecuted === true) done.providerExecuted = true;
      copyBase(like, done);
      if (c.call.choice !== 0) done.choice = c.call.choice;
      emit(done);
    }
  }

  /** Interactions: argument deltas and stops of a call opened before the cut arrive as raw (the parser has no step.start). */
  function repairRaw(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): boolean {
    const p = rawObject(ev);
    const index = p?.['index'];
    if (p === undefined || typeof index !== 'number') return false;
    const c = carried.get(key(ev.choice, index));
    if (c === undefined) return false;
    const type = p['event_type'] ?? p['type'];
    if (type === 'step.delta') {
      const d = p['delta'];
      if (typeof d !== 'object' || d === null || Array.isArray(d)) return false;
      // a function call's fragments (arguments_delta), or a server call's whole arguments (a delta of its own type)
      const kind = d['type'];
      if (kind !== 'arguments_delta' && !(typeof kind === 'string' && kind.endsWith('_call') && d['arguments'] !== undefined)) return false;
      const value = d['arguments'];
      const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : '';
      if (text === '') return false;
      if (kind !== 'arguments_delta') {
        // whole arguments: a replay when the first connection had them (it closed the call at its cut)
        if (c.call.arguments === '') c.whole = text;
        return true;
      }
      c.resumed.push(text);
      c.call.arguments += text;
      emit(delta(c, text, ev));
      return true;
    }
    if (type === 'step.stop') {
      carried.delete(key(ev.choice, index));
      if (c.whole !== null) {
        c.call.arguments = c.whole;
        emit(delta(c, c.whole, ev));
      }
      const done: ToolCallDoneEvent = { type: 'tool_call_done', index, id: c.call.id, name: c.call.name, arguments: c.call.arguments };
      if (c.call.providerExecuted === true) done.providerExecuted = true;
      copyBase(ev, done);
      emit(done);
      return true;
    }
    return false;
  }

  /** Sentinels and cut-off reports of the resumed connection. Returns true when the event was dealt with. */
  function endOfStream(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): boolean {
    if (ev.cursor !== undefined) return false;
    if (finished && firstKept === undefined) {
      // Fed only replays of a finished response, the new parser reports it cut off when the connection ends.
      if (isCutOffReport(ev)) return true;
      if (ev.type === 'raw' && ev.event === '[DONE]' && sentinelSeen) return true;
    }
    if (ev.type === 'raw' && ev.event === '[DONE]') {
      if (open && doneEndsResponse) {
        // The new parser never saw the response begin, so it passed the sentinel on: the response ends here, cut short.
        closeCompleteCalls(ev, emit);
        const cut: UnifiedEvent[] = [
          { type: 'error', code: 'incomplete_stream', message: 'the stream ended before interaction.completed', terminal: true },
          { type: 'done', stopReason: 'error', providerReason: null },
        ];
        for (const e of cut) {
          copyBase(ev, e);
          emit(e);
        }
        spliced();
        return true;
      }
      sentinelSeen = true;
    }
    if (isCutOffReport(ev)) closeCompleteCalls(ev, emit);
    return false;
  }

  /** The first kept cursor: report a gap across the splice (the new parser cannot see it). */
  function splicePoint(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): void {
    if (ev.cursor === undefined || firstKept !== undefined) return;
    firstKept = ev.cursor;
    if (typeof ev.cursor === 'number' && typeof after === 'number' && ev.cursor > after + 1) {
      const gap: ErrorEvent = {
        type: 'error',
        code: 'sequence_gap',
        message: `sequence_number ${ev.cursor} after ${after}: ${ev.cursor - after - 1} event(s) missing across the resume`,
        terminal: false,
        cursor: ev.cursor,
      };
      emit(gap);
    }
  }

  /** The resumed response is over: later responses of the connection owe nothing to the first one. */
  function spliced(): void {
    open = false;
    passThrough = true;
    carried.clear();
    finishedCalls.clear();
  }

  /** Tool-call events of calls that began before the cut. Returns true when the event was dealt with. */
  function toolCall(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): boolean {
    switch (ev.type) {
      case 'tool_call_start':
      case 'tool_call_delta':
      case 'tool_call_done':
        // A call finished before the cut, re-opened by a parser that met its closing payload again.
        if (finishedCalls.has(key(ev.choice, ev.index))) return true;
        break;
      case 'raw':
        flushHeld(emit);
        return repairRaw(ev, emit);
      case 'start':
      case 'text_delta':
      case 'reasoning_delta':
      case 'signature':
      case 'usage':
      case 'done':
      case 'error':
      case 'audio_delta':
      case 'tool_result':
      case 'citation':
      case 'file':
      case 'tool_call_cancel':
      case 'session':
      case 'steer':
      case 'input_transcript':
      case 'segment':
      case 'notice':
        return false;
      default:
        return assertNever(ev);
    }
    if (ev.type === 'tool_call_start') {
      const c = carried.get(key(ev.choice, ev.index));
      if (c === undefined) return false;
      c.resumedId = ev.id; // the parser re-opened, under an id of its own, the call it joined mid-way
      return true;
    }
    const c = carriedFor(ev);
    if (c === undefined) return false;
    if (ev.type === 'tool_call_delta') {
      const firstDelta = c.resumed.length === 0;
      // the re-opening parser writes the call's opening text again: the first connection had it
      if (firstDelta && c.resumedId !== null && c.call.opening !== undefined && ev.argumentsDelta === c.call.opening && !c.openingSeen) {
        c.openingSeen = true;
        return true;
      }
      flushHeld(emit);
      const fixed = { ...ev, id: c.call.id };
      c.resumed.push(ev.argumentsDelta);
      if (firstDelta) held = fixed;
      else {
        c.call.arguments += ev.argumentsDelta;
        emit(fixed);
      }
      return true;
    }
    if (held !== null && (held.index !== ev.index || held.choice !== ev.choice)) flushHeld(emit);
    finishCarried(c, ev, emit);
    return true;
  }

  function handle(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): void {
    if (passThrough) {
      emit(ev);
      return;
    }
    if (ev.cursor !== undefined && isReplay(ev.cursor)) return;
    if (endOfStream(ev, emit)) return;
    if (ev.type === 'start' && !startDropped) {
      startDropped = true; // the consumer has the response's start from the first connection
      return;
    }
    splicePoint(ev, emit);
    if (ev.type === 'error') {
      // Reported before the cut; the terminal payload that follows makes the new parser report it again.
      if (ev.terminal && failedWith !== null && ev.code === failedWith) {
        failedWith = null;
        return;
      }
      // The splice's continuity is judged by splicePoint; the new parser compared with a replayed snapshot.
      if (ev.code === 'sequence_gap' && ev.cursor !== undefined && ev.cursor === firstKept) return;
    }
    // announced before the cut, reported again from the finished item by the new parser
    if (ev.type === 'citation' && citedAgain(ev)) return;
    if (toolCall(ev, emit)) return;
    flushHeld(emit);
    emit(ev);
    if (ev.type === 'done' && isFinalDone(ev)) spliced();
  }

  return {
    push(ev, emit) {
      handle(ev, emit);
    },
    end(emit) {
      flushHeld(emit);
    },
  };
}

function isCutOffReport(ev: UnifiedEvent): boolean {
  return (ev.type === 'error' && ev.code === 'incomplete_stream') || (ev.type === 'done' && ev.stopReason === 'error');
}

function copyBase(from: UnifiedEvent, to: UnifiedEvent): void {
  if (from.at !== undefined) to.at = from.at;
  if (from.cursor !== undefined) to.cursor = from.cursor;
  if (from.choice !== undefined) to.choice = from.choice;
}

/** What a parser closes because its input stopped (see cutOffStart). */
const CLOSED_AT_CUT = new Set<UnifiedEvent['type']>(['tool_call_delta', 'tool_call_done', 'tool_result', 'citation']);

/**
 * The events a parser emits because its input stopped (not because the
 * provider said so): the torn last frame's `invalid_json`, calls, results
 * and citations closed early, `incomplete_stream`, `done {error}`.
 * They carry no cursor and end the list. Returns where they begin, or the
 * length when the list does not end in such a report.
 */
export function cutOffStart(events: readonly UnifiedEvent[]): number {
  let i = events.length;
  const last = events[i - 1];
  if (last === undefined || last.cursor !== undefined || last.type !== 'done' || last.stopReason !== 'error') return i;
  i--;
  const prev = events[i - 1];
  if (prev !== undefined && prev.cursor === undefined && prev.type === 'error' && prev.code === 'incomplete_stream') i--;
  while (i > 0) {
    const ev = events[i - 1]!;
    // what the parser closed because the input stopped: calls, results and citations it was holding
    if (ev.cursor !== undefined || !CLOSED_AT_CUT.has(ev.type)) break;
    i--;
  }
  // A last frame torn by the cut fails to parse; the resumed connection sends it again whole.
  const torn = events[i - 1];
  if (torn !== undefined && torn.cursor === undefined && torn.type === 'error' && torn.code === 'invalid_json') i--;
  return i;
}

export interface ResumeStage extends Stage<UnifiedEvent, UnifiedEvent> {
  /** The connection dropped: the events pushed from now on come from a resumed connection. */
  resume(): void;
  /** Where to resume from (the request needs `responseId` and `cursor`). */
  point(): ResumePoint;
}

/**
 * The whole flow as one stage. Before `resume()` it passes events through,
 * except that once cursors are flowing it holds back events without one (the
 * cut-off report comes without a cursor) until the next cursored event shows
 * they were genuine; `resume()` withdraws a held cut-off report. After
 * `resume()` the events go through a ResumeFilter from the point reached.
 * `resume()` may be called again for a further drop.
 */
export function createResumeStage(): ResumeStage {
  const tracker = createResumeTracker();
  let filter: Stage<UnifiedEvent, UnifiedEvent> | null = null;
  /** Events without a cursor, held while it is unknown whether they are a cut-off report. */
  let held: UnifiedEvent[] = [];
  /** Events that passed the tracker during `resume()` (which has no emit): emitted at the next push or end. */
  let ready: UnifiedEvent[] = [];
  let cursored = false;
  /** The first connection's cut-off report, withdrawn at `resume()`; given back if the resumed connection never ends the response. */
  let withdrawn: UnifiedEvent[] = [];

  function accept(ev: UnifiedEvent, emit: Emit<UnifiedEvent>): void {
    if (ev.type === 'done' && isFinalDone(ev)) withdrawn = [];
    if (ev.cursor !== undefined) {
      cursored = true;
      release(emit);
      tracker.push(ev, emit);
    } else if (cursored) held.push(ev);
    else tracker.push(ev, emit);
  }

  function release(emit: Emit<UnifiedEvent>): void {
    const list = held;
    held = [];
    for (const ev of list) tracker.push(ev, emit);
  }

  function giveBack(emit: Emit<UnifiedEvent>): void {
    const list = withdrawn;
    withdrawn = [];
    for (const ev of list) tracker.push(ev, emit);
  }

  function flushReady(emit: Emit<UnifiedEvent>): void {
    if (ready.length === 0) return;
    const list = ready;
    ready = [];
    for (const ev of list) emit(ev);
  }

  return {
    push(ev, emit) {
      flushReady(emit);
      if (filter === null) accept(ev, emit);
      else filter.push(ev, (e) => accept(e, emit));
    },
    end(emit) {
      flushReady(emit);
      if (filter !== null) filter.end((e) => accept(e, emit));
      release(emit);
      giveBack(emit);
    },
    resume() {
      const sink: Emit<UnifiedEvent> = (ev) => {
        ready.push(ev);
      };
      if (filter !== null) filter.end((e) => accept(e, sink));
      const cut = cutOffStart(held);
      // A connection that brought nothing leaves the previous withdrawn report in force.
      if (cut < held.length) withdrawn = held.slice(cut);
      held = held.slice(0, cut);
      release(sink);
      filter = createResumeFilter(tracker.point());
      cursored = false;
    },
    point: () => tracker.point(),
  };
}

/**
 * First connection's events + the resumed connection's events → the events of
 * the response as if it had never been interrupted.
 */
export function resumeEvents(first: readonly UnifiedEvent[], resumed: readonly UnifiedEvent[]): UnifiedEvent[] {
  const stage = createResumeStage();
  const out: UnifiedEvent[] = [];
  const emit: Emit<UnifiedEvent> = (ev) => {
    out.push(ev);
  };
  for (const ev of first) stage.push(ev, emit);
  stage.resume();
  for (const ev of resumed) stage.push(ev, emit);
  stage.end(emit);
  return out;
}
