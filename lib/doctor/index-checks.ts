/**
 * Messages streams that reuse a content block index (xAI's /v1/messages
 * starts its text block at index 0 again after the thinking block): a parser
 * keyed on the index welds the blocks together.
 */
import type { DialectName, Json, Position } from '../events.js';
import { isObject, num, str } from '../dialects/helpers.js';
import { familyOf } from '../dialects/registry.js';
import { anomaly, type Anomaly } from './report.js';
import type { PayloadCheck, Seen } from './checks.js';
import { plural } from './signature-checks.js';

export function createIndexReuseCheck(): PayloadCheck {
  const records: Seen<number>[] = [];
  let used = new Set<number>();
  return {
    records,
    observe(payload: Json, frame: number, at: Position | null, dialect: DialectName | null) {
      if (dialect === null || familyOf(dialect) !== 'messages' || !isObject(payload)) return;
      const type = str(payload['type']);
      if (type === 'message_start') used = new Set();
      if (type !== 'content_block_start') return;
      const index = num(payload['index']);
      if (index === undefined) return;
      if (used.has(index)) records.push({ frame, at, data: index });
      used.add(index);
    },
    judge(seen): Anomaly[] {
      const recs = seen as Seen<number>[];
      if (recs.length === 0) return [];
      const indices = [...new Set(recs.map((r) => r.data))].join(', ');
      return [
        anomaly(
          'block_index_reuse',
          `content_block_start reuses index ${indices} (${plural(recs.length, 'time')}): a parser keyed on the index merges different blocks`,
          recs[0]!.at,
        ),
      ];
    },
  };
}
