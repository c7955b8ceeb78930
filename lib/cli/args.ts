/** Command-line parsing for bin/wirefold: one normalised options object, clear one-line errors. */
import { parseArgs } from 'node:util';
import type { DialectOption } from '../events.js';
import { FRAMING_OPTIONS, type FramingOption } from '../framing/detect.js';
import { dialectNames } from '../dialects/registry.js';

export type CliOut = 'frames' | 'events' | 'final' | 'text';

export interface CliOptions {
  command: 'run' | 'doctor' | 'help' | 'version';
  framing: FramingOption;
  dialect: DialectOption;
  out: CliOut;
  raw: boolean;
  positions: boolean;
  strict: boolean;
  quiet: boolean;
  progress: boolean | null;
  audioOut: string | null;
  files: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Exit statuses. A run that meets several ends with the highest: an input that
 * could not be read (or bad usage) outranks a --strict stop or an error doctor
 * found, which outranks success. USAGE's exit-status paragraph says the same.
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function worse(a: number, b: number): number {
  return Math.max(a, b);
}

const OUTS: CliOut[] = ['frames', 'events', 'final', 'text'];

export const USAGE = `Usage: wirefold [options] [file ...]
       wirefold doctor [file ...]

Reads LLM provider streams (SSE, Gemini JSON arrays, NDJSON / WebSocket logs)
from the files in order, or standard input when none is given or for "-", and
writes one JSON object per line (or plain text with --out text, its errors
on stderr).

Options:
  --out <mode>        frames | events | final | text           (default: events)
  --dialect <name>    auto | ${dialectNames.join(' | ')}
                                                               (default: auto)
  --framing <name>    auto | sse | json-array | ndjson | json-values (default: auto)
  --raw               include raw events (provider events with no unified meaning)
  --positions         add "at": {frame, offset} to every event
  --strict            stop at the first error event: exit 1 with a one-line message
  --audio-out <dir>   write each response's audio to <dir> (one file per response)
  --progress          force the progress bar on stderr (default: only on a TTY
                      for files larger than a few MB)
  --quiet             never show progress (nor the hint when reading a terminal)
  -h, --help          show this help
  -v, --version       show the version

Commands:
  doctor              per response: framing, dialect, event counts, stop reason,
                      usage and every anomaly found, with byte offsets

Exit status: 0 on success (errors in the stream appear in the output); 1 when
--strict stops on an error or doctor finds an error; 2 on bad usage, or when
an input cannot be read (named on stderr; the other inputs are still read).
When several apply, the highest wins: 2 over 1 over 0.`;

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
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const v = parsed.values;
  let files = parsed.positionals;
  let command: CliOptions['command'] = 'run';
  if (v.help) command = 'help';
  else if (v.version) command = 'version';
  else if (files[0] === 'doctor') {
    command = 'doctor';
    files = files.slice(1);
  }
  const framing = (v.framing ?? 'auto') as FramingOption;
  if (!FRAMING_OPTIONS.includes(framing)) throw new UsageError(`unknown --framing '${v.framing}' (expected ${FRAMING_OPTIONS.join(', ')})`);
  const dialect = (v.dialect ?? 'auto') as DialectOption;
  if (dialect !== 'auto' && !dialectNames.includes(dialect)) {
    throw new UsageError(`unknown --dialect '${v.dialect}' (expected auto, ${dialectNames.join(', ')})`);
  }
  const out = (v.out ?? 'events') as CliOut;
  if (!OUTS.includes(out)) throw new UsageError(`unknown --out '${v.out}' (expected ${OUTS.join(', ')})`);
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
    files: files.length === 0 ? ['-'] : files,
  };
}
