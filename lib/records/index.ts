/** Records mode: JSON Lines records each holding one whole capture → one output record each, in order; finals as flat rows. */
export { records, RecordsTransform } from './transform.js';
export type { RecordError, RecordErrorCode, RecordInput, RecordOutput, RecordsOptions } from './types.js';
export { finalToRow, recordToRows, ROW_COLUMNS, type FinalRow, type RecordRow, type RecordRowColumns, type RecordRowsOptions } from './row.js';
