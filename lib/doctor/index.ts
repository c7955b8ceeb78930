/** The analysis behind `wirefold doctor` (pure: the caller reads the bytes and prints the text). */
export { createDiagnosis, type Diagnosis, type DiagnoseOptions } from './diagnose.js';
export { formatReport, formatTotal, type FormatOptions } from './format.js';
export {
  SEVERITY,
  allAnomalies,
  countBySeverity,
  jsonReport,
  type Anomaly,
  type AnomalyCode,
  type InputReport,
  type JsonReport,
  type ResponseReport,
  type Severity,
} from './report.js';
