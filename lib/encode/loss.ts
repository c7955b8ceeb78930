/** Counts what one response could not carry, for its loss report. */
import { StreamError } from '../errors.js';
import type { LossEntry, LossKind, LossReport, TargetName } from './types.js';

export class LossLedger {
  private entries = new Map<LossKind, LossEntry>();

  constructor(
    private readonly to: TargetName,
    private readonly strict: boolean,
  ) {}

  /** Records one event the target cannot carry; strict mode fails instead (raw events excepted). */
  lose(what: LossKind, detail: string): void {
    if (this.strict && what !== 'raw') {
      throw new StreamError('lossy_encoding', `${this.to} cannot carry ${what}: ${detail}`);
    }
    const entry = this.entries.get(what);
    if (entry === undefined) this.entries.set(what, { what, count: 1, detail });
    else entry.count++;
  }

  /** The report of what was lost since the last one, or null when nothing was; starts over. */
  take(id: string | null): LossReport | null {
    if (this.entries.size === 0) return null;
    const report: LossReport = { type: 'loss', to: this.to, id, dropped: [...this.entries.values()] };
    this.entries = new Map();
    return report;
  }
}
