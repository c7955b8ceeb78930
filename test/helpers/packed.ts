/**
 * The package as a user gets it: `npm pack` of the repository (its built
 * dist/, as `npm test` left it), installed from the tarball into a fresh
 * project outside the repository, so nothing resolves through the
 * repository's own node_modules. typescript and @types/node are symlinked
 * from the repository's node_modules (no download for those); wirefold's
 * runtime dependencies come from npm's cache or the registry.
 *
 * Packed and installed once per process, and cached across processes and
 * runs under os.tmpdir()/wirefold-packed/<hash>, the hash covering every file
 * that goes into the tarball (package.json, LICENSE, README.md, bin/, dist/,
 * lib/), the repository's path and the Node version. Two test files asking
 * at once may both build it; the first to rename its copy into place wins.
 *
 * Packing runs no lifecycle scripts (--ignore-scripts): `prepare` would
 * rebuild dist/ in place while other test files run it. A missing build is
 * an error here, not a skip.
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot } from './corpus.js';

export interface Packed {
  /** The consumer project: package.json (type module), the tarball, node_modules. */
  dir: string;
  /** The tarball's path. */
  tarball: string;
  /** The tarball's file list, as `npm pack --json` reports it (paths inside the package). */
  files: string[];
  /** The installed package: dir/node_modules/wirefold. */
  pkgDir: string;
}

/** What a child process of these tests gets: the environment without tap's, c8's and the outer npm script's settings. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TAP|NYC|C8)_|^TAP$|^NODE_OPTIONS$|^NODE_V8_COVERAGE$|^npm_(package|lifecycle)_|^npm_command$|^npm_config_local_prefix$/.test(k)) continue;
    env[k] = v;
  }
  return env;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (never rejects): exit code and output. */
export function run(file: string, args: string[], options: ExecFileOptions & { input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { env: cleanEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 120_000, ...options, encoding: 'utf8' },
      (err, stdout, stderr) => {
        let code: number | null = 0;
        let note = '';
        if (err) {
          code = typeof err.code === 'number' ? err.code : (child.exitCode ?? 1);
          if (err.killed) note = `\n(killed by ${err.signal ?? 'a signal'}: timed out after ${options.timeout ?? 120_000} ms?)`;
          else if (typeof err.code !== 'number') note = `\n${err.message}`;
        }
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + note });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** npm: the one running `npm test` when there is one, else npm on the PATH. */
function npm(args: string[], cwd: string): Promise<RunResult> {
  const cli = process.env.npm_execpath;
  if (cli && /npm-cli\.js$/.test(cli)) return run(process.execPath, [cli, ...args], { cwd });
  return run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, shell: process.platform === 'win32' });
}

function describeFailure(what: string, r: RunResult): Error {
  return new Error(`${what} failed (exit ${r.code}):\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
}

/** The cache key: what goes into the tarball, where the repository is, which Node runs it. */
function packageHash(): string {
  const paths: string[] = [];
  for (const f of ['package.json', 'LICENSE', 'README.md']) if (existsSync(join(repoRoot, f))) paths.push(join(repoRoot, f));
  for (const d of ['bin', 'dist', 'lib']) if (existsSync(join(repoRoot, d))) walk(join(repoRoot, d), paths);
  const hash = createHash('sha256').update(`${repoRoot}\0${process.version}\0`);
  for (const p of paths.sort()) hash.update(relative(repoRoot, p)).update('\0').update(readFileSync(p)).update('\0');
  return hash.digest('hex').slice(0, 20);
}

const cacheRoot = join(tmpdir(), 'wirefold-packed');
const HOUR = 60 * 60 * 1000;

function readReady(dir: string): Packed | null {
  try {
    const ready = JSON.parse(readFileSync(join(dir, 'ready.json'), 'utf8')) as { tarball: string; files: string[] };
    const packed: Packed = { dir, tarball: join(dir, ready.tarball), files: ready.files, pkgDir: join(dir, 'node_modules', 'wirefold') };
    const needed = [packed.tarball, packed.pkgDir, join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), join(dir, 'node_modules', '@types', 'node', 'index.d.ts')];
    return needed.every((p) => existsSync(p)) ? packed : null;
  } catch {
    return null;
  }
}

/** Drops other builds of the cache over an hour old (a run of another checkout may be using a fresh one). */
function prune(keep: string): void {
  for (const name of readdirSync(cacheRoot)) {
    const path = join(cacheRoot, name);
    if (path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > HOUR) rmSync(path, { recursive: true, force: true });
    } catch {
      // another process removed it
    }
  }
}

async function build(): Promise<Packed> {
  if (!existsSync(join(repoRoot, 'dist', 'index.js')) || !existsSync(join(repoRoot, 'dist', 'index.d.ts'))) {
    throw new Error('dist/index.js or dist/index.d.ts is missing: run `npm run build` (npm test does) before this test');
  }
  mkdirSync(cacheRoot, { recursive: true });
  const final = join(cacheRoot, packageHash());
  const cached = readReady(final);
  if (cached) return cached;
  prune(final);

  const work = mkdtempSync(`${final}-tmp-`);
  try {
    const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot);
    if (pack.code !== 0) throw describeFailure('npm pack', pack);
    const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    if (!info || !existsSync(join(work, info.filename))) throw describeFailure('npm pack (no tarball written)', pack);
    const files = info.files.map((f) => f.path).sort();

    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'wirefold-consumer', private: true, type: 'module' }, null, 2) + '\n');
    const install = await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', `./${info.filename}`], work);
    if (install.code !== 0) throw describeFailure(`npm install ./${info.filename} (in ${work})`, install);

    // After the install: npm removes what package.json does not list.
    mkdirSync(join(work, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', 'typescript'), join(work, 'node_modules', 'typescript'), 'dir');
    symlinkSync(join(repoRoot, 'node_modules', '@types', 'node'), join(work, 'node_modules', '@types', 'node'), 'dir');
    writeFileSync(join(work, 'ready.json'), JSON.stringify({ tarball: info.filename, files }) + '\n');

    try {
      if (existsSync(final) && !readReady(final)) rmSync(final, { recursive: true, force: true }); // a broken earlier copy
      renameSync(work, final);
    } catch {
      // Another process got there first: use its copy.
      rmSync(work, { recursive: true, force: true });
    }
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  const packed = readReady(final);
  if (!packed) throw new Error(`the packed project at ${final} is incomplete (ready.json, the tarball, node_modules/wirefold, typescript or @types/node missing)`);
  return packed;
}

let once: Promise<Packed> | undefined;

/** The packed and installed package (built on first use in this process). */
export function packed(): Promise<Packed> {
  once ??= build();
  return once;
}

/** A fresh directory of this process inside the packed project (where imports of 'wirefold' resolve to the installed package). */
export function workDir(p: Packed, name: string): string {
  const dir = join(p.dir, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The TypeScript compiler of the packed project (the repository's, symlinked). */
export function tsc(p: Packed, args: string[]): Promise<RunResult> {
  return run(process.execPath, [join(p.dir, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], { cwd: p.dir });
}
