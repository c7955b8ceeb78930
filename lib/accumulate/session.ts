/**
 * Agent session summaries: the final accumulator's view above the response.
 * An agent session stream (docs/dialects.md, "Agent sessions") is many turns,
 * each one response with its own final; the dialect says when the session
 * begins and stops with `session` events (`start`, `usage`, `end`).
 *
 * SessionTracker watches every event of the input (all lanes: a subagent's
 * turns count too) and, at each `session` `end`, emits one final of
 * `kind: 'session'`: the turns seen and how many failed, the stop reason and
 * pending ids, the cost, and the usage. The usage is the session's own
 * cumulative figure when the wire gave one (the last `usage` or `end`
 * snapshot replaces the earlier ones: snapshots are totals, never added up),
 * else the sum of the turns' usage; never both, so nothing is counted twice.
 * A session that never said it stopped gets its summary when the input
 * ends, with `stop: null`.
 */
import { assertNever, type DialectName, type SessionCost, type SessionEvent, type SessionStop, type StopReason, type UnifiedEvent, type Usage } from '../events.js';
import type { Emit } from '../stage.js';
import type { FinalResult, SessionSummary } from './types.js';
import { emptyUsage, usageOf } from './usage.js';
import { isFinalDone } from './response.js';

interface OpenSession {
  id: string | null;
  dialect: DialectName | null;
  model: string | null;
  turns: number;
  failedTurns: number;
  reportedTurns: number | null;
  /** Sum of the finished turns' usage (used only when the wire gives no cumulative figure). */
  turnUsage: Usage | null;
  /** The session's own cumulative usage, last snapshot. */
  cumulative: Usage | null;
  cost: SessionCost | null;
  /** The session said it stopped at least once (an `end`). */
  reported: boolean;
}

/** The unified stop reason of a session's stop, for consumers reading only `stopReason`. */
function stopReasonOf(stop: SessionStop | null): StopReason {
  switch (stop) {
    case 'end_turn':
      return 'end';
    case 'requires_action':
      return 'tool_use';
    case 'budget_reached':
    case 'max_turns':
      return 'max_tokens';
    case 'retries_exhausted':
    case 'failed':
      return 'error';
    default:
      return 'other';
  }
}

function addUsage(a: Usage | null, b: Usage): Usage {
  if (a === null) return { ...b };
  const add = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : x + y);
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    outputTokens: add(a.outputTokens, b.outputTokens),
    totalTokens: add(a.totalTokens, b.totalTokens),
    reasoningTokens: add(a.reasoningTokens, b.reasoningTokens),
    cachedInputTokens: add(a.cachedInputTokens, b.cachedInputTokens),
  };
}

export class SessionTracker {
  private open: OpenSession | null = null;
  /** Last usage of each lane's open turn ('' = the unlaned one). */
  private readonly laneUsage = new Map<string, Usage>();

  /** Sees one event (after the final accumulator took it: a turn's final comes before the session's). */
  push(ev: UnifiedEvent, emit: Emit<FinalResult>): void {
    const s = this.open;
    switch (ev.type) {
      case 'session':
        this.onSession(ev, emit);
        return;
      case 'start':
        if (s !== null) {
          s.dialect ??= ev.dialect ?? null;
          s.model ??= ev.model;
        }
        return;
      case 'usage':
        if (s !== null) this.laneUsage.set(ev.streamId ?? '', usageOf(ev));
        return;
      case 'done': {
        if (s === null || !isFinalDone(ev)) return;
        const key = ev.streamId ?? '';
        const u = this.laneUsage.get(key);
        if (u !== undefined) s.turnUsage = addUsage(s.turnUsage, u);
        this.laneUsage.delete(key);
        s.turns++;
        if (ev.stopReason === 'error') s.failedTurns++;
        return;
      }
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_call_start':
      case 'tool_call_delta':
      case 'tool_call_done':
      case 'tool_result':
      case 'citation':
      case 'file':
      case 'signature':
      case 'error':
      case 'raw':
      case 'audio_delta':
      case 'tool_call_cancel':
      case 'input_transcript':
      case 'segment':
      case 'notice':
      case 'steer':
        return;
      default:
        assertNever(ev);
    }
  }

  private onSession(ev: SessionEvent, emit: Emit<FinalResult>): void {
    if (ev.kind === 'go_away' || ev.kind === 'resumption') return;
    let s = this.open;
    if (ev.kind === 'start') {
      const id = ev.id ?? null;
      // Another session begins: the one open is summed up first (its stop unknown).
      if (s !== null && id !== null && s.id !== null && s.id !== id) {
        if (!s.reported) emit(this.summary(s, null, null, []));
        s = null;
      }
      if (s === null) {
        s = { id, dialect: null, model: null, turns: 0, failedTurns: 0, reportedTurns: null, turnUsage: null, cumulative: null, cost: null, reported: false };
        this.open = s;
        this.laneUsage.clear();
      }
      s.id ??= id;
      s.model ??= ev.model ?? null;
      return;
    }
    if (s === null) return; // usage or end of a session never started: the dialect always starts one first
    if (ev.usage !== undefined) s.cumulative = ev.usage;
    if (ev.cost !== undefined) s.cost = ev.cost;
    if (ev.kind === 'usage') return;
    if (ev.turns !== undefined) s.reportedTurns = ev.turns;
    emit(this.summary(s, ev.stop ?? 'other', ev.providerReason ?? null, ev.pending ?? []));
    s.reported = true;
  }

  private summary(s: OpenSession, stop: SessionStop | null, providerReason: string | null, pending: string[]): FinalResult {
    const usage = s.cumulative ?? s.turnUsage;
    const summary: SessionSummary = {
      turns: s.turns,
      failedTurns: s.failedTurns,
      reportedTurns: s.reportedTurns,
      stop,
      pending,
      usageFrom: s.cumulative !== null ? 'session' : 'turns',
      cost: s.cost,
    };
    const result: FinalResult = {
      dialect: s.dialect,
      id: s.id,
      model: s.model,
      content: [],
      text: '',
      refusal: null,
      reasoning: '',
      toolCalls: [],
      citations: [],
      usage: usage === null ? emptyUsage() : { ...usage },
      stopReason: stopReasonOf(stop),
      providerReason,
      signatures: [],
      errors: [],
      audio: null,
      kind: 'session',
      summary,
    };
    if (s.id !== null) result.session = s.id;
    return result;
  }

  /**
   * The input ended: a session that never said it stopped gets its summary
   * now, its stop unknown (turns after a stop wait for the next one, which
   * the input did not hold).
   */
  end(emit: Emit<FinalResult>): void {
    const s = this.open;
    this.open = null;
    this.laneUsage.clear();
    if (s !== null && !s.reported) emit(this.summary(s, null, null, []));
  }
}
