/** What `wirefold doctor` finds in one input: plain data, built by diagnose.ts, printed by format.ts. */
import type { SessionSummary } from '../accumulate/types.js';
import type { DialectName, ErrorEvent, Position, StopReason, Usage } from '../events.js';
import type { FramingName } from '../framing/detect.js';
import { errorFromEvent } from '../pipeline/create-stream.js';

export type Severity = 'error' | 'warning';

/** Every kind of anomaly the doctor reports. */
export type AnomalyCode =
  // the stream is broken or failed: exit 1
  | 'incomplete_stream'
  | 'missing_terminal'
  | 'sequence_gap'
  | 'invalid_json'
  | 'invalid_utf8'
  | 'provider_error'
  | 'unknown_dialect'
  | 'dialect_mismatch'
  | 'frame_too_large'
  | 'invalid_json_array'
  | 'fatal_error'
  | 'no_frames'
  // the stream is fine, but a naive or borrowed parser gets it wrong
  | 'not_json'
  | 'usage_repeated'
  | 'usage_split'
  | 'signature_on_empty_part'
  | 'signature_on_function_call'
  | 'block_index_reuse'
  | 'trailing_data'
  // the stream is fine, but wirefold's dialect gets nothing out of it
  | 'no_unified_events';

/**
 * Errors mean the capture does not hold a complete, successful response
 * (cut off, corrupted, out of order, or failed at the provider); warnings mean
 * the stream is well-formed but holds a trap for simple parsers, or that
 * the dialect that took it reads nothing of it (every payload `raw`).
 */
export const SEVERITY: Record<AnomalyCode, Severity> = {
  incomplete_stream: 'error',
  missing_terminal: 'error',
  sequence_gap: 'error',
  invalid_json: 'error',
  invalid_utf8: 'error',
  provider_error: 'error',
  unknown_dialect: 'error',
  dialect_mismatch: 'error',
  frame_too_large: 'error',
  invalid_json_array: 'error',
  fatal_error: 'error',
  no_frames: 'error',
  not_json: 'warning',
  usage_repeated: 'warning',
  usage_split: 'warning',
  signature_on_empty_part: 'warning',
  signature_on_function_call: 'warning',
  block_index_reuse: 'warning',
  trailing_data: 'warning',
  no_unified_events: 'warning',
};

export interface Anomaly {
  code: AnomalyCode;
  severity: Severity;
  message: string;
  /** Where it was found: the frame that carried it, or the end of input (`frame` = frame count). */
  at: Position | null;
  /** True when `at` is the end of the input rather than a frame. */
  atEnd?: true;
}

export interface ResponseReport {
  /** 1-based, in input order. */
  number: number;
  dialect: DialectName | null;
  id: string | null;
  model: string | null;
  /** First and last frame that produced one of its events, and where the first began. */
  firstFrame: number;
  lastFrame: number;
  offset: number;
  /** Unified event counts by type, in order of first appearance. */
  counts: Record<string, number>;
  stopReason: StopReason | null;
  providerReason: string | null;
  /** Stop reasons of choices k > 0 (OpenAI Chat n > 1), by choice. */
  choiceStops: { choice: number; stopReason: StopReason; providerReason: string | null }[];
  /** The last usage event, or null when the response reported none. */
  usage: Usage | null;
  anomalies: Anomaly[];
  /** A laned response's lane (several responses at once, docs/lanes.md) and agent tag, only then. */
  streamId?: string;
  agent?: string;
  /** An agent session's turn: its session and turn ids, when the wire names them. */
  session?: string;
  turn?: string;
}

export interface InputReport {
  /** The file name, or `stdin`. */
  name: string;
  bytes: number;
  framing: FramingName | null;
  /** Forced by an option rather than detected. */
  framingForced: boolean;
  /** Every dialect in use, in order (a mixed log may switch between responses). */
  dialects: DialectName[];
  dialectForced: boolean;
  frames: number;
  responses: ResponseReport[];
  /** Events outside any response (raw messages between realtime turns…), by type. */
  outsideCounts: Record<string, number>;
  /** Where a fatal framing error stopped the reading (end-of-input anomalies are placed there), or null. */
  stoppedAt: Position | null;
  /** Anomalies that belong to no response (error bodies, fatal framing errors, trailing data…). */
  anomalies: Anomaly[];
  /** Agent sessions (agent session streams only): one per stop the session reported, as the final's session summary. */
  sessions?: SessionReport[];
}

/** An agent session up to a stop it reported (or the end of the input): the `kind: 'session'` final's summary and figures. */
export interface SessionReport extends SessionSummary {
  id: string | null;
  model: string | null;
  providerReason: string | null;
  usage: Usage;
}

/**
 * One line of `wirefold doctor --json`: the InputReport as diagnose.ts builds
 * it (the text report is printed from the same data) and its error and
 * warning counts (any error makes the exit status 1).
 */
export interface JsonReport extends InputReport {
  errors: number;
  warnings: number;
}

export function jsonReport(report: InputReport): JsonReport {
  return { ...report, ...countBySeverity(allAnomalies(report)) };
}

export function anomaly(code: AnomalyCode, message: string, at: Position | null | undefined): Anomaly {
  return { code, severity: SEVERITY[code], message: withoutPlace(code, message, at ?? null), at: at ?? null };
}

/**
 * `message` without the place `at` gives (the report line states it before
 * the message): the cause errorFromEvent keeps of it (a --strict error names
 * each once too), so a line reads `invalid_json_array at byte 56 (frame 1):
 * invalid JSON array: expected …`, not `… at byte 56` a second time.
 */
function withoutPlace(code: AnomalyCode, message: string, at: Position | null): string {
  // what errorFromEvent can take out: a leading `frame N`, an `at byte N`
  if (at === null || (!message.startsWith('frame ') && !message.includes(' at byte '))) return message;
  const ev: ErrorEvent = { type: 'error', code, message: '', terminal: true, at };
  const prefix = errorFromEvent(ev).message.length;
  return errorFromEvent({ ...ev, message }).message.slice(prefix);
}

/** Every anomaly of an input, responses first. */
export function allAnomalies(report: InputReport): Anomaly[] {
  const out: Anomaly[] = [];
  for (const r of report.responses) out.push(...r.anomalies);
  out.push(...report.anomalies);
  return out;
}

export function countBySeverity(anomalies: Anomaly[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const a of anomalies) {
    if (a.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings };
}
