/**
 * Gemini thought signatures a parser can easily lose: on a part whose text is
 * empty (a parser that skips empty parts drops it), and on functionCall parts
 * (it must be sent back with that call, not with the text).
 */
import type { DialectName, Json, Position } from '../events.js';
import { arr, isObject, obj, str } from '../dialects/helpers.js';
import { familyOf } from '../dialects/registry.js';
import { anomaly, type Anomaly } from './report.js';
import type { PayloadCheck, Seen } from './checks.js';

type Where = 'empty' | 'call';

export function createSignatureCheck(): PayloadCheck {
  const records: Seen<Where>[] = [];
  return {
    records,
    observe(payload: Json, frame: number, at: Position | null, dialect: DialectName | null) {
      if (dialect === null || familyOf(dialect) !== 'gemini' || !isObject(payload)) return;
      for (const cand of arr(payload['candidates']) ?? []) {
        for (const part of arr(obj(obj(cand)?.['content'])?.['parts']) ?? []) {
          const p = obj(part);
          const sig = str(p?.['thoughtSignature']);
          if (p === undefined || sig === undefined || sig === '') continue;
          if (isObject(p['functionCall'])) records.push({ frame, at, data: 'call' });
          else if (str(p['text']) === '' || (!('text' in p) && Object.keys(p).length === 1)) records.push({ frame, at, data: 'empty' });
        }
      }
    },
    judge(seen): Anomaly[] {
      const recs = seen as Seen<Where>[];
      const out: Anomaly[] = [];
      const empty = recs.filter((r) => r.data === 'empty');
      const calls = recs.filter((r) => r.data === 'call');
      if (empty.length > 0) {
        out.push(
          anomaly(
            'signature_on_empty_part',
            `thoughtSignature on ${plural(empty.length, 'part')} with empty text: a parser that skips empty parts drops it`,
            empty[0]!.at,
          ),
        );
      }
      if (calls.length > 0) {
        out.push(
          anomaly(
            'signature_on_function_call',
            `thoughtSignature on ${plural(calls.length, 'functionCall part')}: it must go back with that call, or the next turn is rejected`,
            calls[0]!.at,
          ),
        );
      }
      return out;
    },
  };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
