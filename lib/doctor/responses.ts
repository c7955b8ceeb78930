/**
 * Unified events → one ResponseReport per response (counts, stop reason,
 * usage, the anomalies the pipeline itself reported as error events). The
 * boundaries are the accumulators' (ResponseTracker), so a response here is a
 * FinalResult there.
 */
import { assertNever, type DialectName, type ErrorEvent, type Position, type UnifiedEvent } from '../events.js';
import { BEGIN, OUTSIDE, RESTART, ResponseTracker, isFinalDone } from '../accumulate/response.js';
import { usageOf } from '../accumulate/usage.js';
import { anomaly, type Anomaly, type ResponseReport } from './report.js';

/** Longest provider message quoted in a report line. */
const MAX_QUOTE = 160;

export function quote(text: string, max = MAX_QUOTE): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Text that was meant to be JSON (and is broken) rather than some other text. */
function looksLikeJson(text: string): boolean {
  const c = text.trimStart()[0];
  return c === '{' || c === '[' || c === '"';
}

/** The anomaly an error event stands for; `end` is the end-of-input position for errors raised by the end of input. */
export function errorAnomaly(ev: ErrorEvent, endAt: Position | null): Anomaly {
  const at = endAt ?? ev.at;
  let a: Anomaly;
  switch (ev.code) {
    case 'incomplete_stream':
      a = anomaly('incomplete_stream', ev.message, at);
      break;
    case 'missing_terminal':
      // The dialect saw a complete Chat response without `[DONE]` (TerminalWatch then files none of its own).
      a = anomaly('missing_terminal', ev.message, at);
      break;
    case 'sequence_gap':
      a = anomaly('sequence_gap', ev.message, at);
      break;
    case 'invalid_utf8':
      a = anomaly('invalid_utf8', ev.message, at);
      break;
    case 'unknown_dialect':
      a = anomaly('unknown_dialect', ev.message, at);
      break;
    case 'dialect_mismatch':
      a = anomaly('dialect_mismatch', ev.message, at);
      break;
    case 'invalid_json': {
      const text = typeof ev.raw === 'string' ? ev.raw : '';
      a = looksLikeJson(text)
        ? anomaly('invalid_json', `broken JSON payload: ${quote(text, 60)}`, at)
        : anomaly('not_json', `frame is not JSON: ${JSON.stringify(quote(text, 60))}`, at);
      break;
    }
    default:
      // Every other code on an error event is the provider's own (or wirefold's `provider_error` fallback).
      a = anomaly('provider_error', `${ev.code}: ${quote(ev.message)}${ev.terminal ? '' : ' (not terminal)'}`, at);
  }
  if (endAt !== null) a.atEnd = true;
  return a;
}

function newResponse(number: number, at: Position | undefined): ResponseReport {
  return {
    number,
    dialect: null,
    id: null,
    model: null,
    firstFrame: at?.frame ?? 0,
    lastFrame: at?.frame ?? 0,
    offset: at?.offset ?? 0,
    counts: {},
    stopReason: null,
    providerReason: null,
    choiceStops: [],
    usage: null,
    anomalies: [],
  };
}

export class ResponseCollector {
  readonly responses: ResponseReport[] = [];
  /** Anomalies outside any response. */
  readonly outside: Anomaly[] = [];
  /** Events outside any response, by type. */
  readonly outsideCounts: Record<string, number> = {};
  private readonly tracker = new ResponseTracker();
  private current: ResponseReport | null = null;
  /** Set while the input is ending: errors raised then are placed at the end of the input. */
  endAt: Position | null = null;

  push(ev: UnifiedEvent, dialect: DialectName | null): void {
    const step = this.tracker.step(ev);
    if (step === RESTART && this.current !== null) {
      this.current.anomalies.push(
        anomaly('incomplete_stream', 'a new response began before this response\'s terminal event', ev.at),
      );
    }
    if (step === BEGIN || step === RESTART) this.begin(ev, dialect);
    const r = step === OUTSIDE ? null : this.current;
    if (r === null) {
      this.outsideCounts[ev.type] = (this.outsideCounts[ev.type] ?? 0) + 1;
      if (ev.type === 'error') this.outside.push(errorAnomaly(ev, this.endAt));
      return;
    }
    r.counts[ev.type] = (r.counts[ev.type] ?? 0) + 1;
    if (ev.at !== undefined) {
      if (ev.at.frame < r.firstFrame) {
        r.firstFrame = ev.at.frame;
        r.offset = ev.at.offset;
      }
      if (ev.at.frame > r.lastFrame) r.lastFrame = ev.at.frame;
    }
    switch (ev.type) {
      case 'start':
        r.id = ev.id;
        if (ev.streamId !== undefined) r.streamId = ev.streamId;
        if (ev.agent !== undefined) r.agent = ev.agent;
        if (ev.session !== undefined) r.session = ev.session;
        if (ev.turn !== undefined) r.turn = ev.turn;
        r.model = ev.model;
        if (ev.dialect !== undefined) r.dialect = ev.dialect;
        break;
      case 'usage':
        r.usage = usageOf(ev);
        break;
      case 'error':
        r.anomalies.push(errorAnomaly(ev, this.endAt));
        break;
      case 'done':
        if (isFinalDone(ev)) {
          r.stopReason = ev.stopReason;
          r.providerReason = ev.providerReason;
          // Several choices: choice 0's is the response's own, the others are listed.
          if (ev.choices !== undefined) {
            for (const c of ev.choices) if (c.choice !== 0) r.choiceStops.push({ choice: c.choice, stopReason: c.stopReason, providerReason: c.providerReason });
          }
          this.current = null;
        } else {
          r.choiceStops.push({ choice: ev.choice ?? 0, stopReason: ev.stopReason, providerReason: ev.providerReason });
        }
        break;
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_call_start':
      case 'tool_call_delta':
      case 'tool_call_done':
      case 'signature':
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
      case 'raw':
        break; // counted above
      default:
        assertNever(ev);
    }
  }

  private begin(ev: UnifiedEvent, dialect: DialectName | null): void {
    const r = newResponse(this.responses.length + 1, ev.at);
    r.dialect = dialect;
    // An error body (or an error before any response) comes as error then done from one frame: one response.
    const frame = ev.at?.frame;
    for (let i = this.outside.length - 1; i >= 0; i--) {
      const a = this.outside[i]!;
      if (a.at === null || a.at.frame !== frame || a.atEnd === true) break;
      r.anomalies.unshift(a);
      this.outside.splice(i, 1);
      this.outsideCounts['error'] = (this.outsideCounts['error'] ?? 1) - 1;
      if (this.outsideCounts['error'] === 0) delete this.outsideCounts['error'];
      r.counts['error'] = (r.counts['error'] ?? 0) + 1;
    }
    this.responses.push(r);
    this.current = r;
  }

  /** True while a response is open. */
  get open(): boolean {
    return this.tracker.open;
  }
}

/** The response whose frame range holds `frame` (responses are in frame order), or null. */
export function responseOfFrame(responses: ResponseReport[], frame: number): ResponseReport | null {
  let lo = 0;
  let hi = responses.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = responses[mid]!;
    if (frame < r.firstFrame) hi = mid - 1;
    else if (frame > r.lastFrame) lo = mid + 1;
    else return r;
  }
  return null;
}
