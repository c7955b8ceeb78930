/**
 * Finals as flat rows for tables (DuckDB, Spark, pandas, jq -r @csv): the
 * same columns, in the same order, for every dialect. Unknown numbers are
 * null; no column is ever missing.
 */
import type { FinalResult } from '../accumulate/types.js';
import type { DialectName, StopReason } from '../events.js';
import { DEFAULT_FIELDS } from './options.js';
import { setField } from './parse.js';
import type { RecordError, RecordOutput } from './types.js';

export interface FinalRow {
  dialect: DialectName | null;
  id: string | null;
  model: string | null;
  stopReason: StopReason;
  providerReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  reasoningTokens: number | null;
  cachedInputTokens: number | null;
  /** The visible text's length in characters (Unicode code points, as SQL's length() counts). */
  textLength: number;
  /** The reasoning text's length in characters. */
  reasoningLength: number;
  toolCallCount: number;
  /** The tool calls' names, in order (a name per call, repeats kept). */
  toolNames: string[];
  /** The final's error codes, in order. */
  errorCodes: string[];
  hasAudio: boolean;
  /** A laned response's lane (several responses at once in one log, e.g. a WebSocket's `stream_id`), else null. */
  streamId: string | null;
  /** The response's agent tag, else null. */
  agent: string | null;
  /** `session` on an agent session's summary (its usage is the session's total: not to be added to its turns'), else `response`. */
  kind: 'response' | 'session';
  /** An agent session's session and turn ids, else null. */
  session: string | null;
  turn: string | null;
}

/** The columns of a FinalRow, in order. */
export const ROW_COLUMNS = [
  'dialect',
  'id',
  'model',
  'stopReason',
  'providerReason',
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'reasoningTokens',
  'cachedInputTokens',
  'textLength',
  'reasoningLength',
  'toolCallCount',
  'toolNames',
  'errorCodes',
  'hasAudio',
  'streamId',
  'agent',
  'kind',
  'session',
  'turn',
] as const satisfies readonly (keyof FinalRow)[];

/** Characters (code points) of `s`: UTF-16 units less one per surrogate pair. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** One final as one row: choice 0's text, reasoning and tool calls (OpenAI `n > 1` choices are not rows of their own). */
export function finalToRow(final: FinalResult): FinalRow {
  const u = final.usage;
  return {
    dialect: final.dialect,
    id: final.id,
    model: final.model,
    stopReason: final.stopReason,
    providerReason: final.providerReason,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    totalTokens: u.totalTokens,
    reasoningTokens: u.reasoningTokens,
    cachedInputTokens: u.cachedInputTokens,
    textLength: codePoints(final.text),
    reasoningLength: codePoints(final.reasoning),
    toolCallCount: final.toolCalls.length,
    toolNames: final.toolCalls.map((c) => c.name),
    errorCodes: final.errors.map((e) => e.code),
    hasAudio: final.audio !== null,
    streamId: final.streamId ?? null,
    agent: final.agent ?? null,
    kind: final.kind ?? 'response',
    session: final.session ?? null,
    turn: final.turn ?? null,
  };
}

/** A FinalRow's columns where a record has no final: every one null, the lists empty. */
type NoFinalRow = { [K in keyof FinalRow]: FinalRow[K] extends unknown[] ? FinalRow[K] : FinalRow[K] | null };

/** The columns every row of a record has besides its fields and the final's. */
export interface RecordRowColumns {
  /** The bad record's error code (see RecordErrorCode), else null. */
  recordErrorCode: string | null;
  recordErrorMessage: string | null;
  /** Which of the record's finals the row is (0-based); null on the one row of a record with no final. */
  finalIndex: number | null;
}

/** A row of `--records --out rows`: the record's fields (prefixed), the record columns, a final's columns. */
export type RecordRow = { [field: string]: unknown } & RecordRowColumns & NoFinalRow;

export interface RecordRowsOptions {
  /** The prefix of the record's own fields in its rows. @defaultValue 'record_' */
  prefix?: string;
  /** The output field of the finals (as given to records()). @defaultValue 'finals' */
  finalsField?: string;
  /** The output field of the error (as given to records()). @defaultValue 'error' */
  errorField?: string;
}

function noFinal(): NoFinalRow {
  const row = {} as Record<string, unknown>;
  for (const c of ROW_COLUMNS) row[c] = c === 'toolNames' || c === 'errorCodes' ? [] : null;
  return row as NoFinalRow;
}

/**
 * The rows of one records() output: one per final; one for a record with no
 * final (a bad record, or a capture holding no response), its final columns
 * null. Each row starts with the record's other fields, prefixed (`id` →
 * `record_id`), so a field can never take a column's name.
 */
export function recordToRows(record: RecordOutput, options: RecordRowsOptions = {}): RecordRow[] {
  const prefix = options.prefix ?? 'record_';
  const finalsField = options.finalsField ?? DEFAULT_FIELDS.finals;
  const errorField = options.errorField ?? DEFAULT_FIELDS.error;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key !== finalsField && key !== errorField) setField(fields, prefix + key, record[key]);
  }
  const error = (record[errorField] ?? null) as RecordError | null;
  const finals = (Array.isArray(record[finalsField]) ? record[finalsField] : []) as FinalResult[];
  const base = { ...fields, recordErrorCode: error?.code ?? null, recordErrorMessage: error?.message ?? null };
  if (finals.length === 0) return [{ ...base, finalIndex: null, ...noFinal() } as RecordRow];
  return finals.map((f, i) => ({ ...base, finalIndex: i, ...finalToRow(f) }) as RecordRow);
}
