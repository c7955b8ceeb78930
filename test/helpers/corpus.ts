/** The shared corpus of real captures (read at test time from ../shared/corpus, never copied). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const corpusDir = resolve(repoRoot, '..', 'shared', 'corpus');
export const hasCorpus = existsSync(corpusDir);

export interface CorpusFile {
  /** e.g. `anthropic-messages/llm-anthropic--text-basic.sse` */
  name: string;
  dir: string;
  path: string;
  bytes: Buffer;
}

/** Every corpus file of the given directories (all stream directories when omitted). */
export function corpusFiles(dirs?: string[]): CorpusFile[] {
  if (!hasCorpus) return [];
  const names = dirs ?? readdirSync(corpusDir).filter((d) => d !== 'LICENSES' && !d.includes('.'));
  const out: CorpusFile[] = [];
  for (const dir of names) {
    const full = join(corpusDir, dir);
    if (!existsSync(full)) continue;
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
