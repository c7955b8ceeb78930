/**
 * The repository is self-contained (issue 27: a clean clone passes
 * `npm ci && npm test` on its own): no test, benchmark, library file, script
 * or CI step reaches outside the repository for data, and the capture corpus
 * the tests read is complete in `fixtures/corpus/`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { corpusDir, corpusDirs, corpusFiles, repoRoot } from './helpers/corpus.js';

// Built from pieces so this file does not contain what it looks for.
const OUTSIDE = [
  '..' + '/shared',
  '/work' + '/shared',
  ["'..'", "'shared'"].join(', '),
  ['resolve(repoRoot', " '..'"].join(','),
];

/** Every file under `dir`, skipping node_modules and dot-directories (generated benchmark data, caches). */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules' && !entry.startsWith('.')) out.push(...walk(path));
    } else out.push(path);
  }
  return out;
}

t.test('no file under test/, benchmarks/, lib/, bin/, .ci/ or package.json reaches outside the repository', (t) => {
  const files = [
    ...['test', 'benchmarks', 'lib', 'bin', '.ci'].flatMap((d) => walk(join(repoRoot, d))),
    join(repoRoot, 'package.json'),
  ];
  t.ok(files.length > 100, `${files.length} files scanned`);
  t.ok(files.includes(join(repoRoot, '.ci', 'run')), '.ci/run is among them');
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const needle of OUTSIDE) {
        if (line.includes(needle)) found.push(`${relative(repoRoot, file)}:${i + 1}: ${needle}: ${line.trim()}`);
      }
    });
  }
  t.same(found, [], `none contains ${OUTSIDE.join(' or ')}`);
  t.end();
});

/** `| \`dir/\` | wire format | files | exact bytes |` rows of the corpus README's directory table. */
function readmeTable(): Map<string, number> {
  const readme = readFileSync(join(corpusDir, 'README.md'), 'utf8');
  const rows = new Map<string, number>();
  for (const line of readme.split('\n')) {
    const m = /^\| `([a-z0-9-]+)\/` \|.*\| (\d+) \| (\d+) \|$/.exec(line);
    if (m !== null) rows.set(m[1]!, Number(m[2]));
  }
  return rows;
}

t.test('fixtures/corpus: PROVENANCE.md, LICENSES/ and every directory of the README table, with its file count', (t) => {
  t.ok(existsSync(join(corpusDir, 'PROVENANCE.md')), 'PROVENANCE.md');
  const licenses = existsSync(join(corpusDir, 'LICENSES')) ? readdirSync(join(corpusDir, 'LICENSES')) : [];
  t.ok(licenses.length > 0, `LICENSES/ (${licenses.length} license texts)`);

  const table = readmeTable();
  t.ok(table.size >= 11, `${table.size} directories in the README table`);
  for (const [dir, count] of table) {
    const full = join(corpusDir, dir);
    // git keeps no empty directory: a directory of 0 files may be absent
    const files = existsSync(full) ? readdirSync(full) : [];
    t.equal(files.length, count, `${dir}/: ${count} files`);
  }
  t.same(
    corpusDirs(),
    [...table].filter(([, n]) => n > 0).map(([dir]) => dir).sort(),
    'the corpus listing gives exactly the dialect directories (no README.md, PROVENANCE.md, LICENSES/)',
  );
  t.end();
});

t.test('fixtures/corpus: every file has its row in PROVENANCE.md and its license text', (t) => {
  const provenance = readFileSync(join(corpusDir, 'PROVENANCE.md'), 'utf8');
  const licenses = new Set(readdirSync(join(corpusDir, 'LICENSES')));
  const files = corpusFiles();
  t.equal(files.length, [...readmeTable().values()].reduce((a, b) => a + b, 0), `${files.length} files, as many as the README table counts`);
  for (const f of files) {
    const row = provenance.split('\n').find((l) => l.startsWith(`| \`${f.name}\` |`));
    if (row === undefined) {
      t.fail(`${f.name}: no row in PROVENANCE.md`);
      continue;
    }
    const source = row.split(' | ')[1]!.trim();
    t.ok(licenses.has(`${source.replace('/', '__')}.txt`), `${f.name}: LICENSES/${source.replace('/', '__')}.txt`);
  }
  t.end();
});
