/**
 * --out parquet: the rows of --out rows, in a Parquet file written by DuckDB
 * (@duckdb/node-api, an optional peer dependency: imported here only, so
 * neither the library nor the other modes ever load it).
 *
 * The command runs as with --out rows, its stdout a temporary NDJSON file;
 * DuckDB then reads that file (read_json, the whole file sampled, so every
 * record field is a column) and copies it to the Parquet file, the 16 final
 * columns and the record columns cast to fixed types: a column that is null
 * in every row (no usage in any capture) keeps its type. The file is written
 * beside its destination and renamed over it, so a failed run never leaves
 * half a file under the name.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, mkdtemp, rename, rm, stat, constants } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { EXIT_USAGE, worse, type CliOptions } from './args.js';
import type { CliIO } from './io.js';
import { messageOf } from './run-input.js';

/**
 * What this file uses of @duckdb/node-api. Declared here rather than taken
 * from the package's types, so that the published declarations need no
 * package of their own (the real module is checked against it where it is
 * loaded, below).
 */
export interface DuckDb {
  DuckDBInstance: { create(path?: string): Promise<DuckDbInstance> };
}
interface DuckDbInstance {
  connect(): Promise<DuckDbConnection>;
  closeSync(): void;
}
interface DuckDbConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  closeSync(): void;
}

/** How DuckDB is loaded: tests replace `load` to see the command without the package. */
export const duckdbLoader: { load: () => Promise<DuckDb> } = {
  load: () => import('@duckdb/node-api'),
};

/** The types of the columns every row has (ROW_COLUMNS, and with --records the record columns); record_<field> columns keep DuckDB's. */
const COLUMN_TYPES: Readonly<Record<string, string>> = {
  recordErrorCode: 'VARCHAR',
  recordErrorMessage: 'VARCHAR',
  finalIndex: 'BIGINT',
  dialect: 'VARCHAR',
  id: 'VARCHAR',
  model: 'VARCHAR',
  stopReason: 'VARCHAR',
  providerReason: 'VARCHAR',
  inputTokens: 'BIGINT',
  outputTokens: 'BIGINT',
  totalTokens: 'BIGINT',
  reasoningTokens: 'BIGINT',
  cachedInputTokens: 'BIGINT',
  textLength: 'BIGINT',
  reasoningLength: 'BIGINT',
  toolCallCount: 'BIGINT',
  toolNames: 'VARCHAR[]',
  errorCodes: 'VARCHAR[]',
  hasAudio: 'BOOLEAN',
  streamId: 'VARCHAR',
  agent: 'VARCHAR',
  kind: 'VARCHAR',
  session: 'VARCHAR',
  turn: 'VARCHAR',
};
const RECORD_COLUMNS = ['recordErrorCode', 'recordErrorMessage', 'finalIndex'];

/** A row holds a record's other fields too: well above records()' 64 MiB line limit. */
const MAX_ROW_BYTES = 256 * 1024 * 1024;

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

function say(io: CliIO, message: string, help = false): number {
  io.stderr.write(`wirefold: ${message}\n${help ? "Try 'wirefold --help'.\n" : ''}`);
  return EXIT_USAGE;
}

/** The package, or the message telling why it cannot be had. */
async function loadDuckDb(): Promise<DuckDb | string> {
  try {
    return await duckdbLoader.load();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && messageOf(err).includes('@duckdb/node-api')) {
      return '--out parquet needs the package @duckdb/node-api, which is not installed: npm install @duckdb/node-api (beside wirefold; -g beside a global wirefold), or write --out rows and convert them';
    }
    return `--out parquet needs the package @duckdb/node-api, which failed to load: ${messageOf(err)}`;
  }
}

/** Why `file` cannot be written, or null: checked before reading any input, so a long run does not end in vain. */
async function unwritable(file: string): Promise<string | null> {
  try {
    if ((await stat(file)).isDirectory()) return 'is a directory';
  } catch {
    // not there yet: its directory is what matters
  }
  try {
    await access(dirname(resolve(file)), constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return code === 'ENOENT' ? 'its directory does not exist' : code === 'EACCES' ? 'its directory is not writable' : messageOf(err);
  }
}

/** Runs the command with --out rows into a temporary file, then writes that file's rows to opts.output as Parquet. */
export async function runParquet(opts: CliOptions, io: CliIO, run: (opts: CliOptions, io: CliIO) => Promise<number>): Promise<number> {
  const target = opts.output!;
  const duckdb = await loadDuckDb();
  if (typeof duckdb === 'string') return say(io, duckdb, true);
  const why = await unwritable(target);
  if (why !== null) return say(io, `${target}: cannot write the Parquet file: ${why}`);

  const dir = await mkdtemp(join(tmpdir(), 'wirefold-parquet-'));
  try {
    const rowsFile = join(dir, 'rows.ndjson');
    const rows = createWriteStream(rowsFile);
    const code = await run({ ...opts, out: 'rows' }, { ...io, stdout: rows });
    rows.end();
    await once(rows, 'close');
    try {
      await writeParquet(duckdb, rowsFile, opts.records, target);
    } catch (err) {
      return worse(code, say(io, `${target}: cannot write the Parquet file: ${messageOf(err)}`));
    }
    return code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The rows of `rowsFile` (NDJSON) as the Parquet file `target`, through a file beside it renamed over it. */
async function writeParquet(duckdb: DuckDb, rowsFile: string, records: boolean, target: string): Promise<void> {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const partial = join(dirname(resolve(target)), `.${process.pid}-${Date.now()}.parquet.tmp`);
  try {
    if ((await stat(rowsFile)).size > 0) {
      await connection.run(
        `CREATE TEMP TABLE rows AS SELECT * FROM read_json(${literal(rowsFile)}, format = 'newline_delimited', sample_size = -1, maximum_object_size = ${MAX_ROW_BYTES})`,
      );
    } else {
      // no rows (no final in any input): the file still has the columns
      const columns = [...(records ? RECORD_COLUMNS : []), ...Object.keys(COLUMN_TYPES).filter((c) => !RECORD_COLUMNS.includes(c))];
      await connection.run(`CREATE TEMP TABLE rows (${columns.map((c) => `${ident(c)} ${COLUMN_TYPES[c]}`).join(', ')})`);
    }
    const described = await connection.runAndReadAll('DESCRIBE rows');
    const select = described.getRowObjectsJS().map(({ column_name }) => {
      const name = String(column_name);
      const type = COLUMN_TYPES[name];
      return type === undefined ? ident(name) : `CAST(${ident(name)} AS ${type}) AS ${ident(name)}`;
    });
    await connection.run(`COPY (SELECT ${select.join(', ')} FROM rows) TO ${literal(partial)} (FORMAT parquet)`);
    await rename(partial, target);
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(partial, { force: true });
  }
}
