/**
 * The packed package in Deno and Bun (both from their npm packages, devDependencies
 * `deno` and `bun`): a script in a project that installed the tarball imports
 * WirefoldStream from 'wirefold' (the `deno` and `bun` export conditions pick
 * the web entry), fetches every corpus capture from a 127.0.0.1 server and
 * pipes it through; the finals must equal Node's byte for byte (as JSON).
 * Both runtimes have a Buffer, so they run lib/bytes/node.ts's natives through
 * their Node compatibility (Chromium runs the web ones: chromium.test.ts).
 */
import t from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus.js';
import { packed, run, workDir } from '../helpers/packed.js';
import { checkModule, compareFinals, nodeFinals, serveCorpus } from './harness.js';

const runner = `${checkModule('wirefold')}
const base = globalThis.Deno?.args[0] ?? process.argv[2];
console.log(JSON.stringify(await check(base)));
`;

const runtimes: { name: string; bin: string; args: (script: string, url: string) => string[] }[] = [
  { name: 'deno', bin: join(repoRoot, 'node_modules', '.bin', 'deno'), args: (s, url) => ['run', '--quiet', '--no-config', '--node-modules-dir=manual', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', s, url] },
  { name: 'bun', bin: join(repoRoot, 'node_modules', '.bin', 'bun'), args: (s, url) => ['run', s, url] },
];

const want = await nodeFinals();
const p = await packed();
const server = await serveCorpus();
t.teardown(() => server.close());

for (const rt of runtimes) {
  t.test(`${rt.name}: WirefoldStream over fetched captures gives the Node finals`, async (t) => {
    const version = existsSync(rt.bin) ? await run(rt.bin, ['--version']) : null;
    if (version === null || version.code !== 0) {
      // the npm package installs its binary from an optional dependency: say so if this platform got none
      t.fail(`${rt.name} is not runnable here (${rt.bin}${version === null ? ' missing' : `: ${version.stderr.trim()}`}): its npm package ships no binary for ${process.platform}-${process.arch}?`);
      return;
    }
    t.comment(`${rt.name} ${version.stdout.trim().split('\n')[0]}`);
    const dir = workDir(p, rt.name);
    const script = join(dir, 'check.mjs');
    writeFileSync(script, runner);
    const r = await run(rt.bin, rt.args(script, server.url), { cwd: p.dir, timeout: 60_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
    t.equal(r.code, 0, `${rt.name} ran the check${r.code === 0 ? '' : `: ${r.stderr.slice(0, 2000)}`}`);
    if (r.code !== 0) return;
    const got = JSON.parse(r.stdout) as { finals: Record<string, string>; iterated: Record<string, string>; entry: string };
    t.match(got.entry, /node_modules\/wirefold\/dist\/web\/index\.js$/, `the ${rt.name} condition picked the web entry`);
    await t.test('WirefoldStream', async (t) => compareFinals(t, got.finals, want));
    await t.test('finals() over the fetch Response', async (t) => compareFinals(t, got.iterated, want));
  });
}
