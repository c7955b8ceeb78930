/**
 * Usage that a naive parser adds up wrongly:
 * - Gemini puts `usageMetadata` on every chunk, each a running total (the
 *   last one is right): summing them multiplies the bill.
 * - Anthropic reports usage in `message_start` and again, cumulatively, in
 *   `message_delta`: summing them counts the same tokens twice.
 */
import type { DialectName, Json, JsonObject, Position } from '../events.js';
import { isObject, num, obj, str } from '../dialects/helpers.js';
import { familyOf } from '../dialects/registry.js';
import { anomaly, type Anomaly } from './report.js';
import type { PayloadCheck, Seen } from './checks.js';

type Counts = Record<string, number>;

const GEMINI_FIELDS = ['promptTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'totalTokenCount'];
const ANTHROPIC_FIELDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];

function countsOf(u: JsonObject, fields: string[]): Counts | null {
  const out: Counts = {};
  let any = false;
  for (const f of fields) {
    const n = num(u[f]);
    if (n !== undefined) {
      out[f] = n;
      any = true;
    }
  }
  return any ? out : null;
}

function list(counts: Counts, fields: string[]): string {
  return fields.filter((f) => f in counts).map((f) => `${f} ${counts[f]}`).join(', ');
}

/** Fields whose naive sum differs from the right value, in field order. */
function differing(naive: Counts, right: Counts, fields: string[]): string[] {
  return fields.filter((f) => f in naive && naive[f] !== right[f]);
}

export function createGeminiUsageCheck(): PayloadCheck {
  const records: Seen<Counts>[] = [];
  return {
    records,
    observe(payload: Json, frame: number, at: Position | null, dialect: DialectName | null) {
      if (dialect === null || familyOf(dialect) !== 'gemini' || !isObject(payload)) return;
      const u = obj(payload['usageMetadata']);
      const counts = u === undefined ? null : countsOf(u, GEMINI_FIELDS);
      // Vertex sends `{trafficType}` alone until the last chunk: nothing to add up there.
      if (counts !== null) records.push({ frame, at, data: counts });
    },
    judge(seen): Anomaly[] {
      const recs = seen as Seen<Counts>[];
      if (recs.length < 2) return [];
      const naive: Counts = {};
      for (const r of recs) for (const [k, v] of Object.entries(r.data)) naive[k] = (naive[k] ?? 0) + v;
      const right = recs[recs.length - 1]!.data;
      const fields = differing(naive, right, GEMINI_FIELDS);
      if (fields.length === 0) return [];
      return [
        anomaly(
          'usage_repeated',
          `usageMetadata on ${recs.length} chunks (running totals): summing gives ${list(pick(naive, fields), fields)}; ` +
            `right is the last: ${values(right, fields)}`,
          recs[1]!.at,
        ),
      ];
    },
  };
}

interface AnthropicUsage {
  from: 'message_start' | 'message_delta';
  counts: Counts;
}

export function createAnthropicUsageCheck(): PayloadCheck {
  const records: Seen<AnthropicUsage>[] = [];
  return {
    records,
    observe(payload: Json, frame: number, at: Position | null, dialect: DialectName | null) {
      if (dialect === null || familyOf(dialect) !== 'messages' || !isObject(payload)) return;
      const type = str(payload['type']);
      let u: JsonObject | undefined;
      if (type === 'message_start') u = obj(obj(payload['message'])?.['usage']);
      else if (type === 'message_delta') u = obj(payload['usage']);
      else return;
      const counts = u === undefined ? null : countsOf(u, ANTHROPIC_FIELDS);
      if (counts !== null) records.push({ frame, at, data: { from: type, counts } });
    },
    judge(seen): Anomaly[] {
      const recs = seen as Seen<AnthropicUsage>[];
      const start = recs.find((r) => r.data.from === 'message_start');
      const deltas = recs.filter((r) => r.data.from === 'message_delta');
      if (start === undefined || deltas.length === 0) return [];
      const naive: Counts = { ...start.data.counts };
      for (const d of deltas) for (const [k, v] of Object.entries(d.data.counts)) naive[k] = (naive[k] ?? 0) + v;
      // message_delta's counts are cumulative: the last one wins, message_start fills what it leaves out.
      const right: Counts = { ...start.data.counts };
      for (const d of deltas) Object.assign(right, d.data.counts);
      const fields = differing(naive, right, ANTHROPIC_FIELDS);
      if (fields.length === 0) return [];
      return [
        anomaly(
          'usage_split',
          `usage in message_start and message_delta: summing gives ${list(pick(naive, fields), fields)}; ` +
            `right (message_delta is cumulative): ${values(right, fields)}`,
          deltas[deltas.length - 1]!.at,
        ),
      ];
    },
  };
}

function values(counts: Counts, fields: string[]): string {
  return fields.map((f) => String(counts[f] ?? 0)).join(', ');
}

function pick(counts: Counts, fields: string[]): Counts {
  const out: Counts = {};
  for (const f of fields) if (f in counts) out[f] = counts[f]!;
  return out;
}
