/**
 * Results where people analyse them: a mixed-provider log (captures of every
 * dialect directory of fixtures/, one JSON record each) through --records
 * --out rows and --out parquet, loaded into DuckDB (read_json with
 * format = 'newline_delimited', and read_parquet), where the per-model usage
 * sums are those of the library's finals for the same captures. Also the
 * Parquet file's columns and types, --jobs, no rows, and --out parquet's
 * usage errors, the missing package among them (its import replaced
 * in-process: the package stays installed for the other tests).
 */
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { finals, ROW_COLUMNS, type FinalResult } from '../lib/index.js';
import { duckdbLoader } from '../lib/cli/parquet.js';
import { runCli } from './helpers/cli.js';
import { repoRoot } from './helpers/corpus.js';

const dir = mkdtempSync(join(tmpdir(), 'wirefold-cli-parquet-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Every capture of the dialect directories of fixtures/ (not the corpus, doctor's or HAR files): a log of every provider. */
function captures(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(repoRoot, 'fixtures')).sort()) {
    if (d === 'corpus' || d === 'doctor' || d === 'har' || d === 'quickstart') continue;
    const full = join(repoRoot, 'fixtures', d);
    if (!statSync(full).isDirectory()) continue;
    for (const f of readdirSync(full).sort()) if (/\.(sse|json|jsonl|ndjson)$/.test(f)) out.push(join(full, f));
  }
  return out;
}

const paths = captures();
const log = join(dir, 'log.jsonl');
writeFileSync(log, paths.map((p, i) => JSON.stringify({ id: i, source: p.slice(repoRoot.length + 1), body: readFileSync(p, 'utf8') }) + '\n').join(''));

interface Usage {
  rows: number;
  input: number;
  output: number;
}

/** Per model (null: none): finals, input and output tokens (unknown counts as 0, as SQL's sum() skips null). */
async function expectedUsage(): Promise<Map<string | null, Usage>> {
  const by = new Map<string | null, Usage>();
  for (const p of paths) {
    const all: FinalResult[] = [];
    for await (const f of finals([readFileSync(p)])) all.push(f);
    for (const f of all) {
      const u = by.get(f.model) ?? { rows: 0, input: 0, output: 0 };
      u.rows++;
      u.input += f.usage.inputTokens ?? 0;
      u.output += f.usage.outputTokens ?? 0;
      by.set(f.model, u);
    }
  }
  return by;
}

async function duckdb(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  t.teardown(() => {
    connection.closeSync();
    instance.closeSync();
  });
  return connection;
}

/** The per-model sums of the rows DuckDB reads from `from` (a table function call); the row of a record without a final left out. */
async function usageIn(db: DuckDBConnection, from: string): Promise<Map<string | null, Usage>> {
  const reader = await db.runAndReadAll(
    `SELECT model, count(*) AS n, coalesce(sum(inputTokens), 0) AS i, coalesce(sum(outputTokens), 0) AS o FROM ${from} WHERE finalIndex IS NOT NULL GROUP BY model`,
  );
  const by = new Map<string | null, Usage>();
  for (const r of reader.getRowObjectsJS()) by.set(r.model === null ? null : String(r.model), { rows: Number(r.n), input: Number(r.i), output: Number(r.o) });
  return by;
}

const sorted = (m: Map<string | null, Usage>): [string | null, Usage][] => [...m].sort(([a], [b]) => String(a).localeCompare(String(b)));

t.test('a mixed-provider log: per-model usage sums in DuckDB, from --out rows and from --out parquet, are the finals\'', async (t) => {
  const expected = await expectedUsage();
  t.ok(expected.size >= 10, `${expected.size} models in ${paths.length} captures`);
  const rows = await runCli(['--records', '--out', 'rows', log]);
  t.equal(rows.code, 0, '--out rows exits 0', { stderr: rows.stderr });
  const rowsFile = join(dir, 'rows.ndjson');
  writeFileSync(rowsFile, rows.stdout);
  const parquetFile = join(dir, 'rows.parquet');
  const parquet = await runCli(['--records', '--out', 'parquet', '--output', parquetFile, log]);
  t.equal(parquet.code, 0, '--out parquet exits 0', { stderr: parquet.stderr });
  t.equal(parquet.stdout, '', 'nothing on stdout');
  t.equal(readdirSync(dir).filter((f) => f.endsWith('.tmp')).length, 0, 'no partial file left beside it');

  const db = await duckdb();
  const fromJson = await usageIn(db, `read_json('${rowsFile}', format = 'newline_delimited')`);
  const fromParquet = await usageIn(db, `read_parquet('${parquetFile}')`);
  t.same(sorted(fromJson), sorted(expected), 'read_json of --out rows: the per-model sums of the finals');
  t.same(sorted(fromParquet), sorted(expected), 'read_parquet of --out parquet: the same');

  const described = await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${parquetFile}')`);
  const columns = described.getRowObjectsJS().map((r) => `${String(r.column_name)} ${String(r.column_type)}`);
  const types: Record<string, string> = { toolNames: 'VARCHAR[]', errorCodes: 'VARCHAR[]', hasAudio: 'BOOLEAN' };
  for (const c of ['dialect', 'id', 'model', 'stopReason', 'providerReason', 'streamId', 'agent', 'kind', 'session', 'turn']) types[c] = 'VARCHAR';
  t.same(
    columns,
    [
      'record_id BIGINT',
      'record_source VARCHAR',
      'recordErrorCode VARCHAR',
      'recordErrorMessage VARCHAR',
      'finalIndex BIGINT',
      ...ROW_COLUMNS.map((c) => `${c} ${types[c] ?? 'BIGINT'}`),
    ],
    "the columns of --out rows, in their order, with fixed types (the record's own fields as DuckDB reads them)",
  );
  const counts = await db.runAndReadAll(`SELECT (SELECT count(*) FROM read_parquet('${parquetFile}')) AS p, (SELECT count(*) FROM read_json('${rowsFile}', format = 'newline_delimited')) AS j`);
  const [c] = counts.getRowObjectsJS();
  t.equal(Number(c!.p), Number(c!.j), `as many rows as --out rows (${Number(c!.j)})`);

  t.test('--jobs 2 writes the same rows', async (t) => {
    const file = join(dir, 'jobs.parquet');
    const r = await runCli(['--records', '--out', 'parquet', '-o', file, '--jobs', '2', log]);
    t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
    const diff = await db.runAndReadAll(
      `SELECT count(*) AS n FROM ((SELECT * FROM read_parquet('${file}') EXCEPT ALL SELECT * FROM read_parquet('${parquetFile}')) UNION ALL (SELECT * FROM read_parquet('${parquetFile}') EXCEPT ALL SELECT * FROM read_parquet('${file}')))`,
    );
    t.equal(Number(diff.getRowObjectsJS()[0]!.n), 0, 'no row differs');
  });

  t.test('files, not records: the 21 columns; an existing file is replaced', async (t) => {
    const file = join(dir, 'files.parquet');
    writeFileSync(file, 'old');
    const r = await runCli(['--out', 'parquet', '-o', file, ...paths.slice(0, 12)]);
    t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
    const d = await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    t.same(d.getRowObjectsJS().map((r) => String(r.column_name)), [...ROW_COLUMNS]);
  });

  t.test('no final at all: a file with the columns and no row', async (t) => {
    const file = join(dir, 'empty.parquet');
    const r = await runCli(['--records', '--out', 'parquet', '-o', file], '');
    t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
    const n = await db.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${file}')`);
    t.equal(Number(n.getRowObjectsJS()[0]!.n), 0, 'no row');
    const d = await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    t.same(d.getRowObjectsJS().map((r) => String(r.column_name)), ['recordErrorCode', 'recordErrorMessage', 'finalIndex', ...ROW_COLUMNS]);
  });
});

t.test('usage: --out parquet needs --output (a file), --output needs --out parquet', async (t) => {
  const file = paths[0]!;
  const cases: [string[], RegExp][] = [
    [['--out', 'parquet', file], /--out parquet writes a file: name it with --output <file>/],
    [['--out', 'parquet', '-o', '-', file], /cannot write to standard output/],
    [['--out', 'rows', '--output', 'x.parquet', file], /--output is for --out parquet/],
    [['doctor', '--output', 'x.parquet', file], /--output is not an option of doctor/],
    [['--records', '--out', 'events', file], /rows \(--out rows, --out parquet\)/],
  ];
  for (const [argv, message] of cases) {
    const r = await runCli(argv);
    t.equal(r.code, 2, `${argv.join(' ')}: exit 2`);
    t.match(r.stderr, message);
  }
  const missingDir = join(dir, 'no-such-dir', 'x.parquet');
  const r = await runCli(['--out', 'parquet', '-o', missingDir, file]);
  t.equal(r.code, 2, 'a directory that does not exist: exit 2, before reading the input');
  t.match(r.stderr, /x\.parquet: cannot write the Parquet file: its directory does not exist/);
  const help = await runCli(['--help']);
  t.match(help.stdout, /-o, --output <file> --out parquet: the Parquet file to write/);
});

t.test('without @duckdb/node-api: a one-line message saying to install it, exit 2, no file', async (t) => {
  const load = duckdbLoader.load;
  t.teardown(() => {
    duckdbLoader.load = load;
  });
  duckdbLoader.load = () =>
    Promise.reject(Object.assign(new Error(`Cannot find package '@duckdb/node-api' imported from ${join(repoRoot, 'dist', 'cli', 'parquet.js')}`), { code: 'ERR_MODULE_NOT_FOUND' }));
  const file = join(dir, 'missing.parquet');
  const r = await runCli(['--out', 'parquet', '-o', file, paths[0]!]);
  t.equal(r.code, 2, 'exit 2');
  t.equal(
    r.stderr,
    "wirefold: --out parquet needs the package @duckdb/node-api, which is not installed: npm install @duckdb/node-api (beside wirefold; -g beside a global wirefold), or write --out rows and convert them\nTry 'wirefold --help'.\n",
  );
  t.notOk(existsSync(file), 'no file written');

  duckdbLoader.load = () => Promise.reject(new Error('libduckdb.so: cannot open shared object file'));
  const broken = await runCli(['--out', 'parquet', '-o', file, paths[0]!]);
  t.equal(broken.code, 2, 'a package that fails to load: exit 2');
  t.match(broken.stderr, /which failed to load: libduckdb\.so: cannot open shared object file/);
});

t.test('the library never loads DuckDB: only lib/cli/parquet.ts imports the package', async (t) => {
  const naming: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/(?:\bimport\s*\(\s*|\bfrom\s+)['"]@duckdb\/node-api['"]/.test(readFileSync(p, 'utf8'))) naming.push(p.slice(repoRoot.length + 1));
    }
  };
  walk(join(repoRoot, 'lib'));
  t.same(naming, ['lib/cli/parquet.ts']);
});
