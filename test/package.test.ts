/**
 * The package as published works outside this repository: the tarball's
 * contents, TypeScript consumers under each module resolution (with and
 * without skipLibCheck), import and require() at run time, the streams'
 * classes and the installed bin. The consumers are test/package/*; the
 * packed project is test/helpers/packed.ts's (shared with readme.test.ts).
 */
import t from 'tap';
import type { Test } from 'tap';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, posix } from 'node:path';
import { repoRoot } from './helpers/corpus.js';
import { packed, run, tsc, workDir, type Packed, type RunResult } from './helpers/packed.js';

// Packing and several TypeScript compiles of a consumer: over tap's 120 s default on a busy 2-core runner.
t.setTimeout(360_000);

const fixture = join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse');
const sources = join(repoRoot, 'test', 'package');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  files: string[];
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, unknown>>;
  dependencies?: Record<string, string>;
};
const expectedFinal = {
  stopReason: 'tool_use',
  toolCalls: [{ id: 'toolu_01Paris', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
};

/** Asserts the command exited 0; its output is the failure's diagnostic. */
function succeeded(t: Test, r: RunResult, what: string): boolean {
  return t.equal(r.code, 0, what, { stdout: r.stdout, stderr: r.stderr });
}

/** Runs the jobs at most `limit` at a time. */
async function limited<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}

const p = await packed().catch((err: Error) => err);
if (p instanceof Error) {
  t.fail(`npm pack or the install of the tarball into a fresh project failed:\n${p.message}`);
} else {
  tests(p);
}

function tests(p: Packed): void {
  const dir = workDir(p, 'package');
  for (const f of ['consumer.ts', 'consumer.cts', 'decode.mjs', 'decode.cjs', 'instances.cjs']) copyFileSync(join(sources, f), join(dir, f));
  const shipped = new Set(p.files);

  t.test('the tarball holds what a user needs and nothing of the repository', (t) => {
    for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'bin/wirefold.js']) {
      t.ok(shipped.has(f), `${f} is in the tarball`);
    }
    for (const prefix of ['test/', 'fixtures/', 'benchmarks/', 'coverage/', '.tap/', '.ci/', 'node_modules/']) {
      const found = p.files.filter((f) => f.startsWith(prefix));
      t.same(found, [], `nothing under ${prefix}`);
    }
    // lib/ is shipped on purpose: dist's source maps point into it.
    t.ok(shipped.has('lib/index.ts'), 'lib/ (the sources the maps point at) is in the tarball');
    t.same(p.files.filter((f) => /^(tsconfig.*\.json|package-lock\.json|\.gitignore)$/.test(f)), [], 'no build or repository files');

    // Every entry of package.json's files, main, types, bin and exports is in it.
    for (const entry of pkg.files) {
      t.ok(p.files.some((f) => f === entry || f.startsWith(`${entry}/`)), `files entry ${entry} is shipped`);
    }
    const targets = [pkg.main, pkg.types, ...Object.values(pkg.bin)];
    // (a condition's value is a path or, nested, conditions of its own: `browser` → { types, default })
    const paths = (value: unknown): string[] => (typeof value === 'string' ? [value] : Object.values(value as object).flatMap(paths));
    for (const value of Object.values(pkg.exports)) targets.push(...paths(value));
    for (const target of targets) t.ok(shipped.has(posix.normalize(target)), `${target} (main, types, bin or exports) is shipped`);

    // A source map only where what it points at is shipped too.
    const maps = p.files.filter((f) => f.endsWith('.map'));
    const dangling: string[] = [];
    for (const map of maps) {
      const { sources: mapSources } = JSON.parse(readFileSync(join(p.pkgDir, map), 'utf8')) as { sources: string[] };
      for (const s of mapSources) {
        const target = posix.join(posix.dirname(map), s);
        if (!shipped.has(target)) dangling.push(`${map} -> ${target}`);
      }
    }
    t.same(dangling, [], `all ${maps.length} source maps point at shipped files`);
    t.end();
  });

  t.test('the published declarations import only node: modules and their own files', (t) => {
    const foreign: string[] = [];
    for (const f of p.files.filter((f) => f.endsWith('.d.ts'))) {
      const text = readFileSync(join(p.pkgDir, f), 'utf8');
      const specifiers = [
        ...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g),
        ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
        ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
        ...text.matchAll(/\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/g),
      ].map((m) => m[1]!);
      for (const s of specifiers) if (!s.startsWith('.') && !s.startsWith('node:')) foreign.push(`${f}: ${s}`);
    }
    t.same(foreign, [], 'no declaration needs a package of its own (split2 has its types only as a devDependency)');
    t.end();
  });

  t.test('TypeScript consumers compile against the installed package', async (t) => {
    /** [name, source, compilerOptions]: the ES module consumer under each resolution, skipLibCheck on and off, then the CommonJS one. */
    const configs: [string, string, Record<string, unknown>][] = [];
    const node = { target: 'es2022', lib: ['es2022'], strict: true, types: ['node'] };
    for (const skipLibCheck of [true, false]) {
      configs.push([`node16, skipLibCheck ${skipLibCheck}`, 'consumer.ts', { ...node, module: 'node16', moduleResolution: 'node16', skipLibCheck }]);
      configs.push([`nodenext, skipLibCheck ${skipLibCheck}`, 'consumer.ts', { ...node, module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck }]);
      // A bundler project: default libs (DOM included) next to @types/node.
      configs.push([
        `bundler, skipLibCheck ${skipLibCheck}`,
        'consumer.ts',
        { target: 'es2022', strict: true, types: ['node'], module: 'esnext', moduleResolution: 'bundler', skipLibCheck },
      ]);
    }
    // The CommonJS consumer: nodenext with skipLibCheck true is the next test's (compiled and run).
    configs.push([`CommonJS (.cts) nodenext, skipLibCheck false`, 'consumer.cts', { ...node, module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false }]);
    configs.push([`CommonJS (.cts) node20, skipLibCheck false`, 'consumer.cts', { ...node, module: 'node20', moduleResolution: 'node16', skipLibCheck: false }]);

    const jobs = configs.map(([name, file, compilerOptions], i) => () => {
      const project = join(dir, `tsconfig.${i}.json`);
      writeFileSync(project, JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: [file] }, null, 2));
      return tsc(p, ['-p', project]);
    });
    const results = await limited(jobs, Math.max(2, availableParallelism()));
    configs.forEach(([name], i) => succeeded(t, results[i]!, `${name}: tsc --noEmit`));
  });

  t.test('the CommonJS TypeScript consumer runs as compiled (import x = require)', async (t) => {
    const project = join(dir, 'tsconfig.cts-emit.json');
    const options = { target: 'es2022', lib: ['es2022'], strict: true, types: ['node'], module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: true, outDir: 'out' };
    writeFileSync(project, JSON.stringify({ compilerOptions: options, files: ['consumer.cts'] }, null, 2));
    const built = await tsc(p, ['-p', project]);
    if (!succeeded(t, built, 'tsc')) return;
    const compiled = readFileSync(join(dir, 'out', 'consumer.cjs'), 'utf8');
    t.match(compiled, /require\("wirefold"\)/, 'it is compiled to require()');
    const r = await run(process.execPath, [join(dir, 'out', 'consumer.cjs'), fixture], { cwd: dir });
    if (!succeeded(t, r, 'node out/consumer.cjs')) return;
    const out = JSON.parse(r.stdout) as typeof expectedFinal & { text: string; transform: boolean };
    t.same({ stopReason: out.stopReason, toolCalls: out.toolCalls }, expectedFinal);
    t.match(out.text, /Let me check the weather in Paris/);
    t.equal(out.transform, true);
  });

  for (const program of ['decode.mjs', 'decode.cjs']) {
    t.test(`${program === 'decode.mjs' ? 'import' : 'require()'}: ${program} decodes a capture`, async (t) => {
      const r = await run(process.execPath, [join(dir, program), fixture], { cwd: dir });
      if (succeeded(t, r, `node ${program}`)) t.same(JSON.parse(r.stdout), expectedFinal);
      t.notMatch(r.stderr, /ERR_REQUIRE|ExperimentalWarning/, 'no require(esm) error or warning');
    });
  }

  t.test("every stream the package returns is an instance of node:stream's classes", async (t) => {
    const r = await run(process.execPath, [join(dir, 'instances.cjs')], { cwd: dir });
    if (!succeeded(t, r, 'node instances.cjs')) return;
    const classes = JSON.parse(r.stdout) as Record<string, Record<'Transform' | 'Duplex' | 'Readable' | 'Writable' | 'Stream', boolean>>;
    for (const [name, is] of Object.entries(classes)) {
      if (name === 'compose') continue;
      t.same(is, { Transform: true, Duplex: true, Readable: true, Writable: true, Stream: true }, `${name}() is a node:stream Transform`);
    }
    // compose() is the fused stage (a Transform) for the package's own chain
    // framer → decoder → normalizer [→ finalAccumulator], else Node's own
    // stream.compose: a node:stream Duplex either way.
    const { Transform: _transform, ...duplex } = classes.compose ?? {};
    t.same(duplex, { Duplex: true, Readable: true, Writable: true, Stream: true }, 'compose() is a node:stream Duplex');
    t.comment(`compose(): ${JSON.stringify(classes.compose)}`);
  });

  t.test('the installed bin runs', async (t) => {
    const bin = join(p.dir, 'node_modules', '.bin', process.platform === 'win32' ? 'wirefold.cmd' : 'wirefold');
    const version = await run(bin, ['--version'], { cwd: dir });
    if (succeeded(t, version, 'wirefold --version')) t.equal(version.stdout.trim(), pkg.version);
    const final = await run(bin, ['--out', 'final', fixture], { cwd: dir });
    if (!succeeded(t, final, 'wirefold --out final <capture>')) return;
    const lines = final.stdout.trim().split('\n');
    t.equal(lines.length, 1, 'one final');
    const f = JSON.parse(lines[0]!) as typeof expectedFinal;
    t.same({ stopReason: f.stopReason, toolCalls: f.toolCalls }, expectedFinal);
  });
}
