/**
 * wirefold doctor: reads each input (stdin for `-`), prints a short report
 * per input and per response (lib/doctor does the analysis), or with --json
 * one JSON line per input (its InputReport and counts), and exits 1 when any
 * anomaly is an error. An input that cannot be read (or fails mid-way) is
 * named on stderr and skipped: the others are still examined, and the exit
 * status is then 2.
 *
 * examineFile is the part done per input (in a --jobs worker too: its report
 * is plain data); DoctorWriter writes the reports in input order and the
 * total.
 */
import type { Readable } from 'node:stream';
import { allAnomalies, createDiagnosis, formatReport, formatTotal, jsonReport, type InputReport } from '../doctor/index.js';
import { EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, worse, type CliOptions } from './args.js';
import type { CliIO } from './io.js';
import type { Output } from './output.js';
import { InputError, inputName, openInput, reason, type Input } from './input.js';

function useColor(io: CliIO): boolean {
  const out = io.stdout as { isTTY?: boolean };
  return out.isTTY === true && process.env['NO_COLOR'] === undefined;
}

async function examine(input: Input, opts: CliOptions): Promise<InputReport> {
  const diagnosis = createDiagnosis({ name: input.name, framing: opts.framing, dialect: opts.dialect });
  try {
    for await (const chunk of input.stream as AsyncIterable<Buffer | string>) {
      diagnosis.push(chunk);
      if (diagnosis.stopped) break; // a fatal framing error: nothing after it can be framed
    }
  } catch (err) {
    throw new InputError(reason(err));
  }
  return diagnosis.end();
}

/** One input examined: its report, or the message naming why it cannot be read. */
export type Examined = { report: InputReport } | { unreadable: string };

/** Examines one input (`stdin`: the main thread's standard input, for `-`; null in a worker). */
export async function examineFile(file: string, opts: CliOptions, stdin: Readable | null): Promise<Examined> {
  try {
    const input = await openInput(file, stdin);
    try {
      return { report: await examine(input, opts) };
    } finally {
      input.close();
    }
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return { unreadable: `${inputName(file)}: ${err.message}` };
  }
}

/** Writes doctor's reports in input order, then the total; `finish` gives the exit status. */
export class DoctorWriter {
  private readonly color: boolean;
  private readonly reports: InputReport[] = [];
  private unreadable = 0;
  private internal = false;

  constructor(
    private readonly opts: CliOptions,
    io: CliIO,
    private readonly output: Output,
  ) {
    this.color = useColor(io);
  }

  /**
   * Writes one input's report, or names it on stderr (`failed`: a worker
   * that crashed on it, an internal error). False when stdout is gone.
   */
  async add(examined: Examined | { failed: string }, beforeNote: () => void = () => {}): Promise<boolean> {
    if (!('report' in examined)) {
      // named on stderr; the next inputs are still examined
      beforeNote();
      await this.output.diagnostic('unreadable' in examined ? examined.unreadable : examined.failed);
      this.unreadable++;
      if ('failed' in examined) this.internal = true;
      return true;
    }
    const report = examined.report;
    this.reports.push(report);
    if (this.opts.json) return await this.output.text(JSON.stringify(jsonReport(report)) + '\n');
    return await this.output.text((this.reports.length > 1 ? '\n' : '') + formatReport(report, { color: this.color }));
  }

  async finish(): Promise<number> {
    const { reports, unreadable } = this;
    if (!this.opts.json && reports.length + unreadable > 1 && reports.length > 0) await this.output.text('\n' + formatTotal(reports, unreadable));
    const found = reports.some((r) => allAnomalies(r).some((a) => a.severity === 'error')) ? EXIT_FAILED : EXIT_OK;
    return worse(found, this.internal ? EXIT_INTERNAL : unreadable > 0 ? EXIT_USAGE : EXIT_OK);
  }
}

/** doctor with --jobs 1 (or one input): each input examined in the main thread, in turn. */
export async function doctor(opts: CliOptions, io: CliIO, output: Output): Promise<number> {
  const writer = new DoctorWriter(opts, io, output);
  for (const file of opts.files) {
    if (!(await writer.add(await examineFile(file, opts, io.stdin)))) break;
  }
  return writer.finish();
}
