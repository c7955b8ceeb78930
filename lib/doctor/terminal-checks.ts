/**
 * What comes (or does not come) after a response's terminal event:
 * - Chat Completions streams end with `data: [DONE]`; a stream that stops
 *   without it (Groq after an `event: error`) leaves a naive reader waiting.
 * - Frames after the final terminal event of the input (other than a
 *   `[DONE]` sentinel) are left over: a parser that stops at the terminal
 *   never sees them, one that reads on may fold them into the response.
 */
import type { Json, Position, ProviderEvent } from '../events.js';
import { isObject, str } from '../dialects/helpers.js';
import { dialects } from '../dialects/registry.js';
import { anomaly, type Anomaly, type ResponseReport } from './report.js';
import { plural } from './signature-checks.js';

function describe(pe: ProviderEvent): string {
  if (pe.kind !== 'json') return pe.kind === 'invalid' ? 'text that is not JSON' : pe.kind;
  const p: Json = pe.payload;
  if (!isObject(p)) return typeof p === 'string' ? JSON.stringify(p.slice(0, 40)) : 'a JSON value';
  const type = str(p['type']) ?? str(p['event_type']) ?? str(p['object']);
  return type ?? `{${Object.keys(p).slice(0, 3).join(', ')}}`;
}

export class TerminalWatch {
  private readonly sentinels: number[] = [];
  /** Frame of the last event that ended a response, or null before any. */
  private lastDone: number | null = null;
  private trailing = 0;
  private first: { at: Position | null; what: string } | null = null;

  /** A provider event, after the normalizer has handled it. */
  provider(pe: ProviderEvent): void {
    if (pe.kind === 'done') {
      this.sentinels.push(pe.frame);
      return;
    }
    if (this.lastDone === null || pe.frame <= this.lastDone) return;
    if (pe.kind === 'json' && (pe.direction === 'send' || (typeof pe.payload === 'string' && pe.payload.trim() === ''))) return;
    if (pe.kind === 'invalid_utf8') return;
    this.trailing++;
    this.first ??= { at: pe.at ?? null, what: describe(pe) };
  }

  /** A unified `done` that ends a response. */
  responseDone(frame: number | undefined): void {
    this.lastDone = frame ?? this.lastDone ?? 0;
    this.trailing = 0;
    this.first = null;
  }

  /**
   * Files the anomalies: a missing `[DONE]` per response of a dialect that ends
   * with one (DialectDefinition.doneSentinel), trailing frames at input level
   * (none in a WebSocket session, DialectDefinition.session).
   */
  finish(responses: ResponseReport[], outside: Anomaly[], end: Position): void {
    for (let i = 0; i < responses.length; i++) {
      const r = responses[i]!;
      if (r.dialect === null || dialects[r.dialect].doneSentinel !== true) continue;
      // already reported: cut off, or by the dialect itself (a complete response without `[DONE]`)
      if (r.anomalies.some((a) => a.code === 'incomplete_stream' || a.code === 'missing_terminal')) continue;
      const next = responses[i + 1]?.firstFrame ?? Infinity;
      if (this.sentinels.some((f) => f >= r.lastFrame && f < next)) continue;
      const following = responses[i + 1];
      const a = anomaly(
        'missing_terminal',
        following === undefined ? 'the stream ended without `data: [DONE]`' : 'the next response began without `data: [DONE]` before it',
        following === undefined ? end : { frame: following.firstFrame, offset: following.offset },
      );
      if (following === undefined) a.atEnd = true;
      r.anomalies.push(a);
    }
    const last = responses[responses.length - 1];
    if (this.trailing === 0 || last === undefined || (last.dialect !== null && dialects[last.dialect].session === true)) return;
    outside.push(
      anomaly(
        'trailing_data',
        `${plural(this.trailing, 'frame')} after the last response's terminal event (first: ${this.first!.what})`,
        this.first!.at,
      ),
    );
  }
}
