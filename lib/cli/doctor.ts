/**
 * wirefold doctor: reads each input (stdin for `-`), prints a short report
 * per input and per response (lib/doctor does the analysis), or with --json
 * one JSON line per input (its InputReport and counts), and exits 1 when any
 * anomaly is an error. An input that cannot be read (or fails mid-way) is
 * named on stderr and skipped: the others are still examined, and the exit
 * status is then 2.
 */
import { allAnomalies, createDiagnosis, formatReport, formatTotal, jsonReport, type InputReport } from '../doctor/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, worse, type CliOptions } from './args.js';
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

export async function doctor(opts: CliOptions, io: CliIO, output: Output): Promise<number> {
  const color = useColor(io);
  const reports: InputReport[] = [];
  let unreadable = 0;
  for (const file of opts.files) {
    let report: InputReport;
    try {
      const input = await openInput(file, io);
      try {
        report = await examine(input, opts);
      } finally {
        input.close();
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      // named on stderr; the next inputs are still examined
      await output.diagnostic(`${inputName(file)}: ${err.message}`);
      unreadable++;
      continue;
    }
    reports.push(report);
    if (opts.json) await output.text(JSON.stringify(jsonReport(report)) + '\n');
    else await output.text((reports.length > 1 ? '\n' : '') + formatReport(report, { color }));
  }
  if (!opts.json && reports.length + unreadable > 1 && reports.length > 0) await output.text('\n' + formatTotal(reports, unreadable));
  const found = reports.some((r) => allAnomalies(r).some((a) => a.severity === 'error')) ? EXIT_FAILED : EXIT_OK;
  return worse(found, unreadable > 0 ? EXIT_USAGE : EXIT_OK);
}
