/**
 * wirefold doctor: reads each input (stdin for `-`), prints a short report
 * per input and per response (lib/doctor does the analysis), and exits 1 when
 * any anomaly is an error. Unreadable files never get here (main checks them
 * first and exits 2); a read error mid-way also exits 2.
 */
import { createReadStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { allAnomalies, createDiagnosis, formatReport, formatTotal, type InputReport } from '../doctor/index.js';
import type { CliOptions } from './args.js';
import type { CliIO } from './main.js';

function useColor(io: CliIO): boolean {
  const out = io.stdout as { isTTY?: boolean };
  return out.isTTY === true && process.env['NO_COLOR'] === undefined;
}

async function examine(file: string, opts: CliOptions, io: CliIO): Promise<InputReport> {
  const name = file === '-' ? 'stdin' : file;
  const diagnosis = createDiagnosis({ name, framing: opts.framing, dialect: opts.dialect });
  const input: Readable = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 64 * 1024 });
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    diagnosis.push(chunk);
    if (diagnosis.stopped) break; // a fatal framing error: nothing after it can be framed
  }
  return diagnosis.end();
}

/** Writes with backpressure (reports of long logs can be large). */
async function write(out: Writable, text: string): Promise<void> {
  if (out.write(text)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

export async function doctor(opts: CliOptions, io: CliIO): Promise<number> {
  const color = useColor(io);
  const reports: InputReport[] = [];
  for (const file of opts.files) {
    let report: InputReport;
    try {
      report = await examine(file, opts, io);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      io.stderr.write(`wirefold: cannot read ${file === '-' ? 'stdin' : file}: ${code ?? (err as Error).message}\n`);
      return 2;
    }
    reports.push(report);
    await write(io.stdout, (reports.length > 1 ? '\n' : '') + formatReport(report, { color }));
  }
  if (reports.length > 1) await write(io.stdout, '\n' + formatTotal(reports));
  return reports.some((r) => allAnomalies(r).some((a) => a.severity === 'error')) ? 1 : 0;
}
