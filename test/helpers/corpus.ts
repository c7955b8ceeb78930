/**
 * The corpus of real captures, kept in the repository as `fixtures/corpus/` (a
 * copy of the workplace's shared corpus; see its README.md and PROVENANCE.md),
 * so the tests never read anything outside the repository and never skip for
 * lack of data: a missing file is an error, not a skip.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const corpusDir = join(repoRoot, 'fixtures', 'corpus');

export interface CorpusFile {
  /** e.g. `anthropic-messages/llm-anthropic--text-basic.sse` */
  name: string;
  dir: string;
  path: string;
  bytes: Buffer;
}

/** The dialect directories of the corpus (not README.md, PROVENANCE.md or LICENSES/), sorted. */
export function corpusDirs(): string[] {
  return readdirSync(corpusDir)
    .filter((d) => d !== 'LICENSES' && !d.includes('.') && statSync(join(corpusDir, d)).isDirectory())
    .sort();
}

/**
 * Every corpus file of the given directories (all dialect directories when
 * omitted). A directory named here that does not exist is an error, so a typo
 * cannot turn a test into one that checks nothing.
 */
export function corpusFiles(dirs?: string[]): CorpusFile[] {
  const out: CorpusFile[] = [];
  for (const dir of dirs ?? corpusDirs()) {
    const full = join(corpusDir, dir);
    for (const f of readdirSync(full).sort()) {
      const path = join(full, f);
      out.push({ name: `${dir}/${f}`, dir, path, bytes: readFileSync(path) });
    }
  }
  return out;
}

export function corpusFile(name: string): Buffer {
  return readFileSync(join(corpusDir, name));
}

export function fixture(name: string): Buffer {
  return readFileSync(join(repoRoot, 'fixtures', name));
}
