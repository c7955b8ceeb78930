/**
 * Checks that read the provider payloads themselves (the unified events no
 * longer show these traps). Each check records what it sees with the frame it
 * came from; `finish` groups the records by response once the responses'
 * frame ranges are known and turns them into anomalies.
 */
import type { DialectName, Json, Position } from '../events.js';
import type { Anomaly, ResponseReport } from './report.js';
import { responseOfFrame } from './responses.js';

export interface Seen<T> {
  frame: number;
  at: Position | null;
  data: T;
}

export interface PayloadCheck {
  /** One JSON payload from the server (client messages of captures are not passed). */
  observe(payload: Json, frame: number, at: Position | null, dialect: DialectName | null): void;
  /** Anomalies of one response's records (or of the records outside any response, with `response` null). */
  judge(records: Seen<unknown>[], response: ResponseReport | null): Anomaly[];
  readonly records: Seen<unknown>[];
}

/** Runs every check's `judge` per response and files the anomalies where they belong. */
export function finishChecks(checks: PayloadCheck[], responses: ResponseReport[], outside: Anomaly[]): void {
  for (const check of checks) {
    const groups = new Map<ResponseReport | null, Seen<unknown>[]>();
    for (const rec of check.records) {
      const r = responseOfFrame(responses, rec.frame);
      let list = groups.get(r);
      if (list === undefined) groups.set(r, (list = []));
      list.push(rec);
    }
    for (const [r, records] of groups) {
      const found = check.judge(records, r);
      if (r === null) outside.push(...found);
      else r.anomalies.push(...found);
    }
  }
}

/** Orders anomalies by position (end-of-input ones last), stable. */
export function byPosition(a: Anomaly, b: Anomaly): number {
  const fa = a.at === null ? Infinity : a.at.offset;
  const fb = b.at === null ? Infinity : b.at.offset;
  return fa - fb;
}
