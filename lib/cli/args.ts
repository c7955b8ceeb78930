/** Command-line parsing for bin/wirefold: one normalised options object, clear one-line errors. */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { DialectOption } from '../events.js';
import { FRAMING_OPTIONS, type FramingOption } from '../framing/detect.js';
import { dialectNames } from '../dialects/registry.js';
import { SEVERITY, type AnomalyCode, type Severity } from '../doctor/report.js';
import { targetNames } from '../encode/registry.js';
import type { TargetName } from '../encode/types.js';
import { OptionError } from '../errors.js';
import { audioFormatOption } from '../options.js';

/** --loss-report: how --to tells what the target could not carry, on stderr. */
export type LossReportMode = 'text' | 'json';
const LOSS_REPORT_MODES: LossReportMode[] = ['text', 'json'];

export type CliOut = 'frames' | 'events' | 'final' | 'text' | 'rows' | 'parquet';

export interface CliOptions {
  command: 'run' | 'doctor' | 'help' | 'doctor-help' | 'version';
  framing: FramingOption;
  dialect: DialectOption;
  out: CliOut;
  raw: boolean;
  positions: boolean;
  strict: boolean;
  quiet: boolean;
  progress: boolean | null;
  audioOut: string | null;
  /** --audio-format: the MIME type of audio whose stream names none (the library's option audioFormat). */
  audioFormat: string | null;
  /** --files-out: where generated files (images, inlineData parts) are written. */
  filesOut: string | null;
  /** --to: write this wire instead of JSON lines (transcoding). */
  to: TargetName | null;
  /** --to: each lossy response's report on stderr, as one line of text or of JSON. */
  lossReport: LossReportMode;
  /** --output: the file --out parquet writes (Parquet is a file format, not a stream: it never goes to stdout). */
  output: string | null;
  /** doctor: one JSON report per input instead of the text. */
  json: boolean;
  /** --records: each input line is a JSON record holding one capture; one output line per input line. */
  records: boolean;
  /** --records: the record fields of the capture's text, base64 bytes and file path. */
  bodyField: string;
  base64Field: string;
  pathField: string;
  /** --jobs: how many inputs (or batches of records) are read at once, on worker threads; 1: in the main thread. */
  jobs: number;
  /**
   * --jobs not given (the number of cores): the inputs are read in the main
   * thread until they have taken AUTO_POOL_MS (lib/cli/jobs.ts), and only
   * the rest on worker threads, so that a short run never pays for starting them.
   */
  jobsAuto: boolean;
  files: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
  /** Where to look: the message ends with `Try '<help>'.` */
  constructor(
    message: string,
    readonly help = 'wirefold --help',
  ) {
    super(message);
  }
}

/**
 * Exit statuses. A run that meets several ends with the highest: an internal
 * error (a bug, or a --jobs worker that crashed on an input, e.g. out of
 * memory) outranks an input that could not be read (or bad usage), which
 * outranks a --strict stop or an error doctor found, which outranks success.
 * USAGE's exit-status paragraph says the same.
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** EX_SOFTWARE (sysexits.h), as bin/wirefold.js exits on an internal error. */
export const EXIT_INTERNAL = 70;

/** The largest --jobs taken. */
export const MAX_JOBS = 256;

export function worse(a: number, b: number): number {
  return Math.max(a, b);
}

/** Help text is kept within this many columns. */
export const HELP_WIDTH = 80;

/** `words` after `first`, a space apart, wrapped before a word that would pass HELP_WIDTH; later lines start with `indent`. */
function wrap(first: string, words: readonly string[], indent: string): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = indent + word;
    } else line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** `a | b | c` as words to wrap (each separator stays at the end of its line). */
function choices(names: readonly string[]): string[] {
  return names.map((n, i) => (i < names.length - 1 ? `${n} |` : n));
}

const OPTION_INDENT = ' '.repeat(22);
const FRAMING_HELP = wrap('  --framing <name>    ', [...choices(['auto', ...FRAMING_OPTIONS.filter((f) => f !== 'auto')]), '(default: auto)'], OPTION_INDENT);
const TO_HELP = wrap('  --to <wire>         ', ['write', 'the', 'input', 'as', 'another', "provider's", 'wire:', ...choices(targetNames)], OPTION_INDENT);

const DIALECT_HELP = wrap('  --dialect <name>    ', [...choices(['auto', ...dialectNames]), '(default: auto)'], OPTION_INDENT);

function codesOf(severity: Severity): string[] {
  const codes = (Object.keys(SEVERITY) as AnomalyCode[]).filter((c) => SEVERITY[c] === severity);
  return codes.map((c, i) => `${c}${i < codes.length - 1 ? ',' : '.'}`);
}

export const DOCTOR_USAGE = `Usage: wirefold doctor [options] [file ...]

Examines stream captures (the files in order, or standard input when none is
given or for "-") and reports, per input and per response: the framing and
dialect detected, the event counts by type, the stop reason, the usage, and
every anomaly found, with its byte offset and frame.

Errors: the capture does not hold a complete, successful response.
${wrap('  ', codesOf('error'), '  ')}
Warnings: the stream is well-formed, but a naive parser gets it wrong, or
the dialect reads nothing of it (every payload raw).
${wrap('  ', codesOf('warning'), '  ')}

Options:
  --json              one JSON report per input, one line each: the same data
                      (counts, stop reasons, usage, anomalies with offsets)
  -j, --jobs <n>      examine up to n inputs at once, on worker threads; the
                      reports stay in input order (default: the number of
                      cores, after the first 0.2 s of work; 1: one at a
                      time, in the main thread)
${FRAMING_HELP}
${DIALECT_HELP}
  --quiet             no hint when reading standard input from a terminal
  -h, --help          show this help

Exit status: 0 when no input has an error (warnings are fine), 1 when any
has one, 2 on bad usage or when an input cannot be read (named on stderr; the
other inputs are still examined), 70 on an internal error (a worker that
failed on an input, named on stderr). When several apply, the highest wins.`;

/** Options of the stream modes that doctor does not take. */
const RUN_ONLY = ['out', 'output', 'raw', 'positions', 'strict', 'progress', 'audio-out', 'audio-format', 'files-out', 'to', 'loss-report', 'records', 'body-field', 'base64-field', 'path-field'] as const;

const OUTS: CliOut[] = ['frames', 'events', 'final', 'text', 'rows', 'parquet'];

/** The options naming a record field, which only --records reads. */
const FIELD_OPTIONS = ['body-field', 'base64-field', 'path-field'] as const;

export const USAGE = `Usage: wirefold [options] [file ...]
       wirefold doctor [options] [file ...]

Reads LLM provider streams (SSE, Gemini JSON arrays, NDJSON / WebSocket logs)
from the files in order, or standard input when none is given or for "-", and
writes one JSON object per line (or plain text with --out text, its errors
on stderr).

Options:
  --out <mode>        frames | events | final | text | rows | parquet (default:
                      events); rows: one flat row per final, the same
                      columns for every dialect; parquet: the same rows in
                      a Parquet file (needs --output and the package
                      @duckdb/node-api)
  -o, --output <file> --out parquet: the Parquet file to write (replaced
                      once the run is done)
${DIALECT_HELP}
${FRAMING_HELP}
  --raw               include raw events (provider events with no unified type)
  --positions         add "at": {frame, offset} to every event
  --strict            stop at the first error event: a one-line message, exit 1
${TO_HELP}
  --loss-report <f>   --to: what a response lost, on stderr as one line of
                      text (default) or json; --strict fails on it instead
  --audio-out <dir>   write each response's audio to <dir>, one file each
                      (raw PCM, mu-law and A-law as WAV, other codecs as
                      they came)
  --audio-format <mime>
                      the type of audio whose stream names none (the codec
                      was in the request): audio/pcm;rate=24000 (xAI TTS
                      codec=pcm, OpenAI speech pcm), audio/PCMU;rate=8000
                      (mulaw), audio/PCMA;rate=8000 (alaw)
  --files-out <dir>   write the files a response generates (images, inline
                      data) to <dir>, one file each
  --progress          force the progress bar on stderr (default: only on a
                      terminal, for files larger than a few MB)
  --quiet             no progress bar, no hint when reading a terminal
  -j, --jobs <n>      read up to n files at once (--records: batches of
                      records) on worker threads; the output is in input
                      order and the same as with --jobs 1 (default: the
                      number of cores, after the first 0.2 s of work)
  -h, --help          show this help
  -v, --version       show the version

Records (log reprocessing: one line in, one line out, as mappers need):
  --records           read JSON Lines, each record holding one whole capture
                      in "body", "body_base64" or "path" (a file, relative to
                      the current directory); write one JSON line per input
                      line, in order: the record's other fields with
                      "finals", or with "error": {code, message} when the
                      record is bad (a blank line is). --out rows: a row per
                      final, the record's fields as record_<name>
  --body-field <f>    the field of the capture's text (default: body)
  --base64-field <f>  the field of its bytes in base64 (default: body_base64)
  --path-field <f>    the field of its file's path (default: path)

Commands:
  doctor              per response: framing, dialect, event counts, stop
                      reason, usage and every anomaly found, with byte
                      offsets ('wirefold doctor --help' for its options)

Exit status: 0 on success (errors in the stream appear in the output); 1 when
--strict stops on an error or doctor finds an error; 2 on bad usage, or when
an input cannot be read (named on stderr; the other inputs are still read);
70 on an internal error (a worker that failed on an input, e.g. out of
memory: named on stderr, the other inputs are still read). When several
apply, the highest wins: 70 over 2 over 1 over 0. With --records, a bad
record or a capture's error (--strict too) is an output line, not a failure:
the status is 0, or 2 (or 70).`;

export function parseCli(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: 'string' },
        dialect: { type: 'string' },
        framing: { type: 'string' },
        raw: { type: 'boolean' },
        positions: { type: 'boolean' },
        strict: { type: 'boolean' },
        quiet: { type: 'boolean' },
        progress: { type: 'boolean' },
        'audio-out': { type: 'string' },
        'audio-format': { type: 'string' },
        'files-out': { type: 'string' },
        to: { type: 'string' },
        'loss-report': { type: 'string' },
        output: { type: 'string', short: 'o' },
        json: { type: 'boolean' },
        records: { type: 'boolean' },
        'body-field': { type: 'string' },
        'base64-field': { type: 'string' },
        'path-field': { type: 'string' },
        jobs: { type: 'string', short: 'j' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const v = parsed.values;
  let files = parsed.positionals;
  const doctor = files[0] === 'doctor';
  if (doctor) files = files.slice(1);
  if (v.help) return { ...defaults(), command: doctor ? 'doctor-help' : 'help' };
  if (v.version) return { ...defaults(), command: 'version' };
  const command: CliOptions['command'] = doctor ? 'doctor' : 'run';
  if (doctor) {
    const other = RUN_ONLY.find((name) => v[name] !== undefined);
    if (other !== undefined) throw new UsageError(`--${other} is not an option of doctor`, 'wirefold doctor --help');
  } else if (v.json !== undefined) {
    throw new UsageError("--json is an option of doctor ('wirefold doctor --json'); the other modes write JSON lines already");
  }
  const framing = (v.framing ?? 'auto') as FramingOption;
  if (!FRAMING_OPTIONS.includes(framing)) throw new UsageError(`unknown --framing '${v.framing}' (expected ${FRAMING_OPTIONS.join(', ')})`);
  const dialect = (v.dialect ?? 'auto') as DialectOption;
  if (dialect !== 'auto' && !dialectNames.includes(dialect)) {
    throw new UsageError(`unknown --dialect '${v.dialect}' (expected auto, ${dialectNames.join(', ')})`);
  }
  const records = v.records ?? false;
  const out = (v.out ?? (records ? 'final' : 'events')) as CliOut;
  if (!OUTS.includes(out)) throw new UsageError(`unknown --out '${v.out}' (expected ${OUTS.join(', ')})`);
  const fields = recordFields(v, records);
  const to = toOption(v.to, v.out, records);
  if (v['loss-report'] !== undefined && to === null) throw new UsageError('--loss-report is an option of --to');
  const lossReport = (v['loss-report'] ?? 'text') as LossReportMode;
  if (!LOSS_REPORT_MODES.includes(lossReport)) throw new UsageError(`unknown --loss-report '${v['loss-report']}' (expected ${LOSS_REPORT_MODES.join(', ')})`);
  if (records) {
    if (out !== 'final' && out !== 'rows' && out !== 'parquet') {
      throw new UsageError(`--records writes records with their finals (the default, --out final) or rows (--out rows, --out parquet), not --out ${out}`);
    }
    if (v['audio-out'] !== undefined) throw new UsageError('--audio-out is not an option of --records');
    if (v['files-out'] !== undefined) throw new UsageError('--files-out is not an option of --records');
  }
  return {
    command,
    framing,
    dialect,
    out,
    raw: v.raw ?? false,
    positions: v.positions ?? false,
    strict: v.strict ?? false,
    quiet: v.quiet ?? false,
    progress: v.progress ?? null,
    audioOut: v['audio-out'] ?? null,
    audioFormat: audioFormatFlag(v['audio-format']),
    filesOut: v['files-out'] ?? null,
    to,
    lossReport,
    output: outputOption(v.output, out),
    json: v.json ?? false,
    records,
    ...fields,
    jobs: jobsOption(v.jobs),
    jobsAuto: v.jobs === undefined,
    files: files.length === 0 ? ['-'] : files,
  };
}

/** --audio-format: checked as the library checks its option audioFormat. */
function audioFormatFlag(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    return audioFormatOption(value) ?? null;
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    throw new UsageError(`--audio-format takes an audio MIME type such as audio/pcm;rate=24000 (rate= and channels= whole numbers above 0), not '${value}'`);
  }
}

/** --output: the file of --out parquet, which needs one; no other mode takes it (they write to stdout). */
function outputOption(value: string | undefined, out: CliOut): string | null {
  if (out !== 'parquet') {
    if (value !== undefined) throw new UsageError(`--output is for --out parquet; --out ${out} writes to standard output (redirect it: > file)`);
    return null;
  }
  if (value === undefined || value === '') throw new UsageError('--out parquet writes a file: name it with --output <file> (e.g. --output rows.parquet)');
  if (value === '-') throw new UsageError('--out parquet cannot write to standard output (a Parquet file ends with its index): name a file with --output');
  return value;
}

/** --to: a target wire; it replaces the output mode, so not with --out or --records. */
function toOption(value: string | undefined, out: string | undefined, records: boolean): TargetName | null {
  if (value === undefined) return null;
  if (!(targetNames as readonly string[]).includes(value)) throw new UsageError(`unknown --to '${value}' (expected ${targetNames.join(', ')})`);
  if (out !== undefined) throw new UsageError(`--to writes the ${value} wire: it is not an --out mode (leave --out out)`);
  if (records) throw new UsageError('--to is not an option of --records');
  return value as TargetName;
}

/** --jobs: a whole number from 1 to MAX_JOBS; the number of cores when not given. */
function jobsOption(value: string | undefined): number {
  if (value === undefined) return Math.min(availableParallelism(), MAX_JOBS);
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1 || Number(value) > MAX_JOBS) {
    throw new UsageError(`--jobs takes a whole number from 1 to ${MAX_JOBS}, not '${value}'`);
  }
  return Number(value);
}

/** The record field names of --records: given only with it, non-empty, three different names. */
function recordFields(v: Partial<Record<(typeof FIELD_OPTIONS)[number], string>>, records: boolean): Pick<CliOptions, 'bodyField' | 'base64Field' | 'pathField'> {
  for (const name of FIELD_OPTIONS) {
    if (v[name] === undefined) continue;
    if (!records) throw new UsageError(`--${name} is an option of --records`);
    if (v[name] === '') throw new UsageError(`--${name} needs a field name`);
  }
  const fields = { bodyField: v['body-field'] ?? 'body', base64Field: v['base64-field'] ?? 'body_base64', pathField: v['path-field'] ?? 'path' };
  if (new Set(Object.values(fields)).size < 3) {
    throw new UsageError(`--body-field, --base64-field and --path-field name the same field (${fields.bodyField}, ${fields.base64Field}, ${fields.pathField})`);
  }
  return fields;
}

function defaults(): CliOptions {
  return {
    command: 'run',
    framing: 'auto',
    dialect: 'auto',
    out: 'events',
    raw: false,
    positions: false,
    strict: false,
    quiet: false,
    progress: null,
    audioOut: null,
    audioFormat: null,
    filesOut: null,
    to: null,
    lossReport: 'text',
    output: null,
    json: false,
    records: false,
    bodyField: 'body',
    base64Field: 'body_base64',
    pathField: 'path',
    jobs: 1,
    jobsAuto: false,
    files: ['-'],
  };
}
