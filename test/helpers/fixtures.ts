/** Listing the fixture files of one directory (`fixtures/<dir>`), to run a check on each. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './corpus.js';

/** File names (not paths) in `fixtures/<dir>` ending in `suffix`, in directory order. */
export function fixtureNames(dir: string, suffix: string): string[] {
  return readdirSync(join(repoRoot, 'fixtures', dir)).filter((f) => f.endsWith(suffix));
}
