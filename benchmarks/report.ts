/** Turns worker outputs into the RESULTS.md tables and a hand-written SVG bar chart. */
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { profileOf, type FixtureDialect, type FixtureProfile, type FixtureStats } from './generate.js';
import type { RunRecord, WorkerOutput } from './worker.js';

export interface MachineInfo {
  cores: number;
  cpu: string;
  node: string;
  date: string;
  command: string;
  memory: string;
}

export function machineInfo(command: string): MachineInfo {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m !== null) cpu = m[1]!.trim();
  } catch {
    // not Linux
  }
  let memory = '';
  try {
    const m = /MemTotal:\s*(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m !== null) memory = `${(Number(m[1]) / 2 ** 20).toFixed(0)} GiB`;
  } catch {
    // not Linux
  }
  return { cores: availableParallelism(), cpu, node: process.version, date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), command, memory };
}

/** Column order of the dialect tables. */
export const DIALECT_ORDER: FixtureDialect[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini-sse', 'gemini-json-array', 'xai-chat', 'gemini-interactions'];
const DIALECT_TITLE: Record<FixtureDialect, string> = {
  'openai-chat': 'OpenAI chat',
  'openai-responses': 'OpenAI Responses',
  'anthropic-messages': 'Anthropic',
  'gemini-sse': 'Gemini SSE',
  'gemini-json-array': 'Gemini JSON array',
  'xai-chat': 'xAI chat',
  'gemini-interactions': 'Gemini Interactions',
};

/** Row order and the short row names shared by the tables and the chart. */
export const ROWS: { id: string; title: string; ids: string[] }[] = [
  { id: 'floor', title: 'floor: TextDecoder + indexOf framing (JSON array: depth scanner) + JSON.parse', ids: ['floor', 'floor-array'] },
  { id: 'framing', title: 'eventsource-parser + JSON.parse (JSON array: stream-json parser + StreamArray)', ids: ['eventsource-parser', 'stream-json'] },
  { id: 'wirefold-framer', title: 'wirefold framer stage + JSON.parse (framing only)', ids: ['wirefold-framer'] },
  { id: 'sdk-raw', title: 'official SDK, iterate raw events', ids: ['openai-chat-raw', 'openai-responses-raw', 'anthropic-raw', 'genai-raw'] },
  { id: 'sdk-final', title: 'official SDK, accumulate final (finalChatCompletion / finalResponse / finalMessage)', ids: ['openai-chat-final', 'openai-responses-final', 'anthropic-final'] },
  { id: 'vercel', title: 'Vercel AI SDK streamText fullStream', ids: ['vercel'] },
  { id: 'wirefold-events', title: "**wirefold** createStream({ output: 'events' })", ids: ['wirefold-events'] },
  { id: 'wirefold-final', title: "**wirefold** createStream({ output: 'final' })", ids: ['wirefold-final'] },
  { id: 'wirefold-final-nofast', title: "wirefold createStream({ output: 'final' }) with the raw-text fast path off (every payload JSON.parsed)", ids: ['wirefold-final-nofast'] },
  { id: 'wirefold-final-hops', title: "wirefold createStream({ output: 'final' }) behind 3 pass-through Transforms (the separate stages' stream hops, none of their work)", ids: ['wirefold-final-hops'] },
  { id: 'wirefold-stages', title: '**wirefold** separate stages in stream.pipeline → final', ids: ['wirefold-stages'] },
];

export function rowOf(methodId: string): string | undefined {
  return ROWS.find((r) => r.ids.includes(methodId))?.id;
}

function find(out: WorkerOutput, chunkSize: number, ids: string[]): RunRecord | undefined {
  return out.records.find((r) => r.chunkSize === chunkSize && ids.includes(r.method));
}

function floorOf(out: WorkerOutput, chunkSize: number): RunRecord | undefined {
  return find(out, chunkSize, ['floor', 'floor-array']);
}

const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

function cell(rec: RunRecord | undefined, floor: RunRecord | undefined, withRatio = true): string {
  if (rec === undefined) return '–';
  if (rec.error !== null) return rec.error.startsWith('check failed') ? 'check failed' : 'failed';
  const ratio = floor !== undefined && floor.error === null ? ` (${fmt(rec.mbps / floor.mbps, 2)}×)` : '';
  return `${fmt(rec.mbps, rec.mbps < 10 ? 1 : 0)}${withRatio && rec.method !== floor?.method ? ratio : ''}`;
}

/** A fixture's name in the tables: dialect, shape and, unless English, the text profile. */
export function fixtureLabel(stats: FixtureStats): string {
  const profile = profileOf(stats);
  return `${stats.dialect} ${stats.shape}${profile === 'english' ? '' : ` ${profile}`}`;
}

/** Dialects × methods, MB/s with the ratio to that fixture's floor. */
export function summaryTable(outputs: WorkerOutput[], shape: 'single' | 'log', chunkSize: number, profile: FixtureProfile = 'english'): string {
  const cols = DIALECT_ORDER.map((d) => outputs.find((o) => o.stats.dialect === d && o.stats.shape === shape && profileOf(o.stats) === profile)).filter((o): o is WorkerOutput => o !== undefined);
  if (cols.length === 0) return '';
  const lines: string[] = [];
  lines.push(`| method | ${cols.map((o) => DIALECT_TITLE[o.stats.dialect]).join(' | ')} |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|`);
  for (const row of ROWS) {
    const cells = cols.map((o) => cell(find(o, chunkSize, row.ids), floorOf(o, chunkSize)));
    if (cells.every((c) => c === '–')) continue;
    lines.push(`| ${row.title} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The transcoding methods' ids (`wirefold-to-<target>`) in the order the records have them. */
function transcodeIds(outputs: WorkerOutput[]): string[] {
  const ids: string[] = [];
  for (const o of outputs) for (const r of o.records) if (r.group === 'transcode' && !ids.includes(r.method)) ids.push(r.method);
  return ids;
}

const TRANSCODE_TARGET = 0.5;

/**
 * Source dialects × target wires: MiB of input per second read and written as
 * the target (ratio to the same fixture's reading floor), then the target's
 * bytes per input byte (the Responses wire repeats the text in its done
 * events, so it writes several bytes for each one read).
 */
export function transcodeTable(outputs: WorkerOutput[], shape: 'single' | 'log', chunkSize: number, profile: FixtureProfile = 'english'): string {
  const cols = DIALECT_ORDER.map((d) => outputs.find((o) => o.stats.dialect === d && o.stats.shape === shape && profileOf(o.stats) === profile)).filter((o): o is WorkerOutput => o !== undefined);
  const ids = transcodeIds(cols);
  if (cols.length === 0 || ids.length === 0) return '';
  const lines: string[] = [];
  lines.push(`| source → target | ${cols.map((o) => DIALECT_TITLE[o.stats.dialect]).join(' | ')} |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|`);
  const floorRow = ROWS[0]!;
  lines.push(`| reading floor | ${cols.map((o) => cell(find(o, chunkSize, floorRow.ids), floorOf(o, chunkSize))).join(' | ')} |`);
  for (const id of ids) {
    const cells = cols.map((o) => {
      const rec = find(o, chunkSize, [id]);
      const floor = floorOf(o, chunkSize);
      const text = cell(rec, floor);
      if (rec === undefined || rec.error !== null || floor === undefined || floor.error !== null) return text;
      const ratio = rec.mbps / floor.mbps;
      const size = rec.bytesOut === undefined ? '' : `, ${fmt(rec.bytesOut / rec.bytes, 1)}:1`;
      return `${ratio < TRANSCODE_TARGET ? `**${text}**` : text}${size}`;
    });
    lines.push(`| → \`${id.slice('wirefold-to-'.length)}\` | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Issue 31's target, per fixture and chunk size: every target wire at ≥ 0.5× the reading floor (the lowest one named). */
export function transcodeChecks(outputs: WorkerOutput[], chunkSizes: number[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const o of outputs) {
    const ids = transcodeIds([o]);
    if (ids.length === 0) continue;
    for (const cs of chunkSizes) {
      const name = fixtureLabel(o.stats);
      const floor = floorOf(o, cs);
      if (floor === undefined || floor.error !== null) continue;
      const recs = ids.map((id) => find(o, cs, [id]));
      const failed = recs.find((r) => r === undefined || r.error !== null);
      if (failed !== undefined) {
        checks.push({ fixture: name, chunkSize: cs, target: 'transcoding into every target runs and checks out', value: failed?.error ?? 'missing', pass: false });
        continue;
      }
      const ratios = (recs as RunRecord[]).map((r) => ({ to: r.method.slice('wirefold-to-'.length), ratio: r.mbps / floor.mbps }));
      const low = ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      checks.push({
        fixture: name,
        chunkSize: cs,
        target: `transcoding into each of ${ids.length} targets ≥ ${TRANSCODE_TARGET}× floor (lowest named)`,
        value: `${fmt(low.ratio, 2)}× (${low.to})`,
        pass: low.ratio >= TRANSCODE_TARGET,
      });
    }
  }
  return checks;
}

/** Every record of one fixture: MB/s, events/s, ratio to the floor, peak RSS. */
export function detailTable(out: WorkerOutput): string {
  const lines: string[] = [];
  lines.push('| chunk | method | MB/s | wire events/s | × floor | median ms | runs ms | CPU ms (median) | peak RSS Δ MiB | bytes read |');
  lines.push('|---:|---|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const r of out.records) {
    const floor = floorOf(out, r.chunkSize);
    const ok = r.error === null;
    lines.push(
      `| ${r.chunkSize === 65536 ? '64 KiB' : r.chunkSize === 1536 ? '1.5 KiB' : `${r.chunkSize} B`} | ${r.label} | ${ok ? fmt(r.mbps) : r.error} | ${ok ? Math.round(r.framesPerSec).toLocaleString('en-US') : ''} | ${ok && floor !== undefined ? fmt(r.mbps / floor.mbps, 2) : ''} | ${ok ? fmt(r.medianMs) : ''} | ${r.runs.map((x) => x.toFixed(0)).join(', ')} | ${ok ? fmt(r.medianCpuMs, 0) : ''} | ${ok ? fmt(r.peakRssDeltaMiB, 0) : ''} | ${(r.bytes / 2 ** 20).toFixed(1)} MiB |`,
    );
  }
  return lines.join('\n');
}

export interface TargetCheck {
  fixture: string;
  chunkSize: number;
  target: string;
  value: string;
  pass: boolean | null;
}

/** The issue's targets, per single-response fixture and chunk size. */
export function targetChecks(outputs: WorkerOutput[], chunkSizes: number[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const o of outputs) {
    for (const cs of chunkSizes) {
      const name = fixtureLabel(o.stats);
      const final = find(o, cs, ['wirefold-final']);
      const floor = floorOf(o, cs);
      if (final === undefined || final.error !== null) {
        checks.push({ fixture: name, chunkSize: cs, target: 'wirefold final runs and checks out', value: final?.error ?? 'missing', pass: false });
        continue;
      }
      if (floor !== undefined && floor.error === null) {
        const r = final.mbps / floor.mbps;
        checks.push({ fixture: name, chunkSize: cs, target: 'final ≥ 1.0× floor', value: `${fmt(r, 2)}×`, pass: r >= 1.0 });
      }
      const sdkFinals = o.records.filter((r) => r.chunkSize === cs && r.group === 'sdk-final' && r.error === null);
      if (sdkFinals.length > 0) {
        const best = Math.max(...sdkFinals.map((r) => r.mbps));
        const r = final.mbps / best;
        checks.push({ fixture: name, chunkSize: cs, target: 'final ≥ 4× fastest official SDK accumulator', value: `${fmt(r, 1)}×`, pass: r >= 4 });
      }
      const vercel = find(o, cs, ['vercel']);
      if (vercel !== undefined && vercel.error === null) {
        const r = final.mbps / vercel.mbps;
        checks.push({ fixture: name, chunkSize: cs, target: 'final ≥ 15× Vercel AI SDK', value: `${fmt(r, 1)}×`, pass: r >= 15 });
      }
      const stages = find(o, cs, ['wirefold-stages']);
      if (stages !== undefined && stages.error === null) {
        const r = stages.medianMs / final.medianMs;
        // Issue 33: separate stages are plain (only documented items between them); compose() is the fast way.
        checks.push({ fixture: name, chunkSize: cs, target: 'separate stages within 2× of fused (time ratio)', value: `${fmt(r, 2)}×`, pass: r <= 2 });
        if (sdkFinals.length > 0) {
          const best = Math.max(...sdkFinals.map((x) => x.mbps));
          const q = stages.mbps / best;
          checks.push({ fixture: name, chunkSize: cs, target: 'separate stages ≥ 4× fastest official SDK accumulator', value: `${fmt(q, 1)}×`, pass: q >= 4 });
        }
        const hops = find(o, cs, ['wirefold-final-hops']);
        if (hops !== undefined && hops.error === null) {
          const q = hops.medianMs / final.medianMs;
          checks.push({ fixture: name, chunkSize: cs, target: '(info) fused behind 3 pass-through Transforms vs fused (what the hops alone cost)', value: `${fmt(q, 2)}×`, pass: null });
        }
        const plain = find(o, cs, ['wirefold-final-nofast']);
        if (plain !== undefined && plain.error === null) {
          const q = stages.medianMs / plain.medianMs;
          checks.push({ fixture: name, chunkSize: cs, target: '(info) separate stages vs fused with the fast path off', value: `${fmt(q, 2)}×`, pass: null });
        }
      }
    }
  }
  return checks;
}

// ---------------------------------------------------------------------------
// SVG

const COLORS: Record<string, string> = {
  floor: '#7f7f7f',
  framing: '#bcbd22',
  'wirefold-framer': '#dbdb8d',
  'sdk-raw': '#ff9896',
  'sdk-final': '#d62728',
  vercel: '#9467bd',
  'wirefold-events': '#aec7e8',
  'wirefold-final': '#1f77b4',
  'wirefold-final-nofast': '#6b8fb3',
  'wirefold-final-hops': '#9edae5',
  'wirefold-stages': '#17becf',
};
const SHORT: Record<string, string> = {
  floor: 'floor (indexOf framing + JSON.parse)',
  framing: 'eventsource-parser / stream-json',
  'wirefold-framer': 'wirefold framer + JSON.parse',
  'sdk-raw': 'official SDK, raw events',
  'sdk-final': 'official SDK, final accumulate',
  vercel: 'Vercel AI SDK streamText',
  'wirefold-events': 'wirefold events',
  'wirefold-final': 'wirefold final',
  'wirefold-final-nofast': 'wirefold final, fast path off',
  'wirefold-final-hops': 'wirefold final + 3 pass-through hops',
  'wirefold-stages': 'wirefold separate stages',
};

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Grouped bars per dialect (single-response fixtures of the English profile, one chunk size), log-scale MB/s axis. */
export function svgChart(outputs: WorkerOutput[], chunkSize: number, title: string): string {
  const cols = DIALECT_ORDER.map((d) => outputs.find((o) => o.stats.dialect === d && o.stats.shape === 'single' && profileOf(o.stats) === 'english')).filter((o): o is WorkerOutput => o !== undefined);
  const rows = ROWS.filter((r) => cols.some((o) => find(o, chunkSize, r.ids) !== undefined));
  const barW = 12;
  const gap = 26;
  const groupW = rows.length * barW + gap;
  const left = 70;
  const top = 60;
  const plotH = 340;
  const width = Math.max(760, left + cols.length * groupW + 30);
  const legendRows = Math.ceil(rows.length / 3);
  const height = top + plotH + 40 + legendRows * 18 + 6;
  const lo = 1;
  const hi = 1000;
  const y = (v: number): number => top + plotH - ((Math.log10(Math.min(Math.max(v, lo), hi)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="11">`);
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  parts.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  parts.push(`<text x="${width / 2}" y="40" text-anchor="middle" fill="#444">throughput in MB/s (MiB/s), LOGARITHMIC scale — higher is better</text>`);
  for (const v of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) {
    const yy = y(v).toFixed(1);
    const major = [1, 10, 100, 1000].includes(v);
    parts.push(`<line x1="${left}" y1="${yy}" x2="${width - 20}" y2="${yy}" stroke="${major ? '#bbb' : '#e6e6e6'}" stroke-width="1"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#333">${v}</text>`);
  }
  parts.push(`<text x="16" y="${top + plotH / 2}" transform="rotate(-90 16 ${top + plotH / 2})" text-anchor="middle" fill="#333">MB/s (log scale)</text>`);
  cols.forEach((o, gi) => {
    const gx = left + 14 + gi * groupW;
    rows.forEach((row, ri) => {
      const rec = find(o, chunkSize, row.ids);
      if (rec === undefined) return;
      const x = gx + ri * barW;
      if (rec.error !== null) {
        parts.push(`<text x="${x + barW / 2}" y="${top + plotH - 4}" text-anchor="middle" font-size="10" fill="#d00">✗</text>`);
        return;
      }
      const yy = y(rec.mbps);
      parts.push(
        `<rect x="${x}" y="${yy.toFixed(1)}" width="${barW - 2}" height="${(top + plotH - yy).toFixed(1)}" fill="${COLORS[row.id]}"><title>${esc(`${DIALECT_TITLE[o.stats.dialect]} — ${rec.label}: ${rec.mbps.toFixed(1)} MB/s`)}</title></rect>`,
      );
      if (row.id === 'wirefold-final' || row.id === 'floor') {
        parts.push(`<text x="${x + (barW - 2) / 2}" y="${(yy - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#222">${rec.mbps.toFixed(0)}</text>`);
      }
    });
    parts.push(`<text x="${gx + (rows.length * barW) / 2}" y="${top + plotH + 16}" text-anchor="middle" font-weight="bold">${esc(DIALECT_TITLE[o.stats.dialect])}</text>`);
  });
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${width - 20}" y2="${top + plotH}" stroke="#333"/>`);
  const ly = top + plotH + 40;
  rows.forEach((row, i) => {
    const lx = left + (i % 3) * 230;
    const yy = ly + Math.floor(i / 3) * 18;
    parts.push(`<rect x="${lx}" y="${yy - 9}" width="12" height="10" fill="${COLORS[row.id]}"/>`);
    parts.push(`<text x="${lx + 17}" y="${yy}">${esc(SHORT[row.id] ?? row.id)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
