/**
 * InputReport → plain text: a header line per input, a few lines per
 * response, one line per kind of anomaly (repeats folded), a result line.
 * Stable output (no timing, no absolute paths added); colour only on request.
 */
import type { Usage } from '../events.js';
import { allAnomalies, countBySeverity, type Anomaly, type InputReport, type ResponseReport, type SessionReport } from './report.js';
import { plural } from './signature-checks.js';

export interface FormatOptions {
  /** ANSI colours for the severity words (the CLI asks for them only on a TTY). @defaultValue false */
  color?: boolean;
}

const RED = '\u001b[31m';
const YELLOW = '\u001b[33m';
const RESET = '\u001b[0m';

function where(a: Anomaly, stopped: boolean): string {
  if (a.at === null) return '';
  if (a.atEnd === true) return ` at byte ${a.at.offset} (${stopped ? 'where reading stopped' : 'end of input'})`;
  return ` at byte ${a.at.offset} (frame ${a.at.frame})`;
}

/** One line per anomaly code; repeats of a code are folded into the first line. */
function anomalyLines(anomalies: Anomaly[], indent: string, color: boolean, stopped: boolean): string[] {
  const groups = new Map<string, Anomaly[]>();
  for (const a of anomalies) {
    const list = groups.get(a.code);
    if (list === undefined) groups.set(a.code, [a]);
    else list.push(a);
  }
  const lines: string[] = [];
  for (const list of groups.values()) {
    const a = list[0]!;
    const word = color ? `${a.severity === 'error' ? RED : YELLOW}${a.severity}${RESET}` : a.severity;
    let more = '';
    if (list.length > 1) {
      const last = list[list.length - 1]!;
      more = ` (+${list.length - 1} more${last.at === null ? '' : `, last at byte ${last.at.offset}`})`;
    }
    lines.push(`${indent}${word} ${a.code}${where(a, stopped)}: ${a.message}${more}`);
  }
  return lines;
}

function counts(c: Record<string, number>): string {
  return Object.entries(c)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
}

function usageText(u: Usage | null): string {
  if (u === null) return 'none reported';
  const parts: string[] = [];
  if (u.inputTokens !== null) parts.push(`input ${u.inputTokens}`);
  if (u.cachedInputTokens !== null) parts.push(`cached ${u.cachedInputTokens}`);
  if (u.outputTokens !== null) parts.push(`output ${u.outputTokens}`);
  if (u.reasoningTokens !== null) parts.push(`reasoning ${u.reasoningTokens}`);
  if (u.totalTokens !== null) parts.push(`total ${u.totalTokens}`);
  // A usage event without token counts (a transcription billed by duration): reported, but no tokens to show.
  return parts.length === 0 ? 'no token counts' : parts.join(', ');
}

function stopText(r: ResponseReport): string {
  const one = (stop: string | null, reason: string | null): string =>
    stop === null ? 'none' : reason === null ? stop : `${stop} (${reason})`;
  let text = one(r.stopReason, r.providerReason);
  for (const c of r.choiceStops) text += `; choice ${c.choice}: ${one(c.stopReason, c.providerReason)}`;
  return text;
}

function responseLines(r: ResponseReport, showDialect: boolean, color: boolean, stopped: boolean): string[] {
  const head: string[] = [];
  if (showDialect && r.dialect !== null) head.push(r.dialect);
  if (r.id !== null) head.push(`id ${r.id}`);
  if (r.streamId !== undefined) head.push(`lane ${r.streamId}`);
  if (r.agent !== undefined) head.push(`agent ${r.agent}`);
  // An agent session's turn (its id is the response's unless the wire has none of its own).
  if (r.turn !== undefined && r.turn !== r.id) head.push(`turn ${r.turn}`);
  if (r.session !== undefined) head.push(`session ${r.session}`);
  if (r.model !== null) head.push(`model ${r.model}`);
  const frames = r.firstFrame === r.lastFrame ? `frame ${r.firstFrame}` : `frames ${r.firstFrame}-${r.lastFrame}`;
  head.push(`${frames} from byte ${r.offset}`);
  return [
    `  response ${r.number}: ${head.join(', ')}`,
    `    events: ${counts(r.counts)}`,
    `    stop: ${stopText(r)}`,
    `    usage: ${usageText(r.usage)}`,
    ...anomalyLines(r.anomalies, '    ', color, stopped),
  ];
}

/** An agent session's line: its turns, why it stopped, its usage (and whose figure that is), its cost. */
function sessionLine(s: SessionReport): string {
  const parts = [`${plural(s.turns, 'turn')}${s.failedTurns > 0 ? ` (${s.failedTurns} failed)` : ''}`];
  if (s.reportedTurns !== null && s.reportedTurns !== s.turns) parts.push(`${s.reportedTurns} by the wire's count`);
  let stop = s.stop === null ? 'none (the input ended first)' : s.providerReason === null || s.providerReason === s.stop ? s.stop : `${s.stop} (${s.providerReason})`;
  if (s.pending.length > 0) stop += `, waiting on ${s.pending.join(', ')}`;
  parts.push(`stop ${stop}`);
  parts.push(`usage ${usageText(s.usage)} (${s.usageFrom === 'session' ? "the session's own" : "the turns' sum"})`);
  if (s.cost !== null) parts.push(`cost ${s.cost.amount} ${s.cost.currency}`);
  const head = [s.id === null ? 'session' : `session ${s.id}`, ...(s.model === null ? [] : [`model ${s.model}`])].join(', ');
  return `  ${head}: ${parts.join(', ')}`;
}

function resultText(errors: number, warnings: number): string {
  if (errors === 0 && warnings === 0) return 'ok';
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

export function formatReport(report: InputReport, options: FormatOptions = {}): string {
  const color = options.color ?? false;
  const head = [`${report.bytes} bytes`, plural(report.frames, 'frame')];
  if (report.framing !== null) head.push(`framing ${report.framing}${report.framingForced ? ' (forced)' : ''}`);
  const unique = [...new Set(report.dialects)];
  if (unique.length === 0) head.push('dialect none detected');
  else head.push(`${unique.length === 1 ? 'dialect' : 'dialects'} ${unique.join(', ')}${report.dialectForced ? ' (forced)' : ''}`);
  head.push(plural(report.responses.length, 'response'));
  const lines = [`${report.name}: ${head.join(', ')}`];
  const stopped = report.stoppedAt !== null;
  for (const r of report.responses) lines.push(...responseLines(r, unique.length > 1, color, stopped));
  for (const s of report.sessions ?? []) lines.push(sessionLine(s));
  if (Object.keys(report.outsideCounts).length > 0) lines.push(`  outside responses: ${counts(report.outsideCounts)}`);
  lines.push(...anomalyLines(report.anomalies, '  ', color, stopped));
  const { errors, warnings } = countBySeverity(allAnomalies(report));
  lines.push(`  result: ${resultText(errors, warnings)}`);
  return lines.join('\n') + '\n';
}

/** The closing line when several inputs were given; `unreadable` counts those that could not be read. */
export function formatTotal(reports: InputReport[], unreadable = 0): string {
  let errors = 0;
  let warnings = 0;
  for (const r of reports) {
    const c = countBySeverity(allAnomalies(r));
    errors += c.errors;
    warnings += c.warnings;
  }
  const inputs = plural(reports.length + unreadable, 'input') + (unreadable > 0 ? ` (${unreadable} unreadable)` : '');
  return `total: ${inputs}, ${resultText(errors, warnings)}\n`;
}
