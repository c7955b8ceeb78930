/**
 * The README's code examples run as written, from the packed package: each
 * ```js or ```ts block whose first line is `// example: NAME` runs in the
 * project test/helpers/packed.ts installed the tarball into (outside the
 * repository), so `import … from 'wirefold'` is what a user gets. A ts
 * example is compiled first with tsc (strict, nodenext) against the installed
 * package's declarations, then its output runs with node.
 *
 * Each example has an entry in `checks` below (and, when it needs one, a
 * prelude and an epilogue: what a real service would have around it). An
 * example the README has and `checks` does not fails.
 */
import t from 'tap';
import type { Test } from 'tap';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers/corpus.js';
import { packed, run, tsc, workDir, type Packed, type RunResult } from './helpers/packed.js';

type Lang = 'js' | 'ts';
interface Example {
  lang: Lang;
  code: string;
}

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const examples = new Map<string, Example>();
const duplicates: string[] = [];
for (const m of readme.matchAll(/```(js|ts)\n\/\/ example: ([\w-]+)[ \t]*\n([\s\S]*?)```/g)) {
  if (examples.has(m[2]!)) duplicates.push(m[2]!);
  examples.set(m[2]!, { lang: m[1] as Lang, code: m[3]! });
}

/** What an example that calls a provider gets instead: a fetch answering with the recorded capture (the same in js and ts). */
const fakeFetch = `
    import { readFileSync } from 'node:fs';
    const url = 'https://api.example/v1/messages', headers = {}, body = '{}';
    globalThis.fetch = async () => new Response(readFileSync('capture.sse'));`;

/** What each example needs from its surroundings (a real service would have these), in the example's language. */
const preludes: Record<string, string> = {
  first: fakeFetch,
  live: fakeFetch,
  pipeline: fakeFetch,
  edge: fakeFetch,
  logs: ``,
  websocket: `
    import { EventEmitter } from 'node:events';
    import { readFileSync } from 'node:fs';
    const ws = new EventEmitter();
    const lines = readFileSync(${JSON.stringify(join(repoRoot, 'fixtures', 'openai-realtime', 'text-turn.jsonl'))}, 'utf8').split('\\n').filter(Boolean);
    setImmediate(() => { for (const l of lines) ws.emit('message', Buffer.from(l)); ws.emit('close'); });`,
  'websocket-lanes': `
    import { copyFileSync } from 'node:fs';
    copyFileSync(${JSON.stringify(join(repoRoot, 'fixtures', 'openai-responses-ws', 'multi-agent.ws.jsonl'))}, 'socket.ws.jsonl');`,
  'agent-session': `
    import { copyFileSync } from 'node:fs';
    copyFileSync(${JSON.stringify(join(repoRoot, 'fixtures', 'claude-agent-sdk', 'subagent-max-turns.ndjson'))}, 'session.ndjson');`,
};
const epilogues: Record<string, string> = {
  logs: `console.log('tokens', tokens);`,
  // the edge runtime's part: a request comes in, the response streams out
  edge: `
    const res = await POST(new Request('http://localhost/chat', { method: 'POST', body: '{}' }));
    console.log(res.headers.get('content-type'));
    for await (const chunk of res.body) process.stdout.write(chunk);`,
};

/** The assertions on each example's run (exit status 0 is checked for all). */
const checks: Record<string, (t: Test, r: RunResult) => void> = {
  first(t, r) {
    t.match(r.stdout, /Let me check the weather in Paris/);
    t.match(r.stdout, /tool get_weather \{"city": "Paris", "unit": "celsius"\}/);
    t.match(r.stdout, /stop: tool_use/);
  },
  live(t, r) {
    t.match(r.stdout, /Let me check the weather in Paris/);
    t.match(r.stdout, /name: 'get_weather'/);
    t.match(r.stdout, /\b1436$/m);
  },
  pipeline(t, r) {
    t.match(r.stdout, /Let me check the weather in Paris/);
    t.match(r.stdout, /tool get_weather \{"city": "Paris", "unit": "celsius"\}/);
    t.match(r.stdout, /stop: tool_use/);
  },
  abort(t, r) {
    t.equal(r.stdout, 'tool_use\n');
  },
  logs(t, r) {
    t.match(r.stdout, /^tokens \d+$/m);
  },
  websocket(t, r) {
    t.ok(r.stdout.trim().length > 0);
  },
  'websocket-lanes'(t, r) {
    t.same(r.stdout.trim().split('\n'), [
      'research researcher: end "Tides follow the moon."',
      'main planner: tool_use "Summary: the moon."',
      'critic critic: error ""',
    ]);
  },
  'agent-session'(t, r) {
    t.match(r.stdout, /^toolu_task msg_S1: tool_call, tool_result$/m);
    t.match(r.stdout, /^root msg_R1: tool_call, tool_result$/m);
    t.match(r.stdout, /^session: max_turns, 4 turns, 48 output tokens, \$0\.0042$/m);
  },
  transcode(t, r) {
    t.match(r.stdout, /^data: \{"id":"msg_[^"]+","object":"chat\.completion\.chunk"/);
    t.match(r.stdout, /"tool_calls":\[\{"index":0,"id":"toolu_[^"]+","type":"function","function":\{"name":"get_weather","arguments":""\}\}\]/);
    t.match(r.stdout, /"finish_reason":"tool_calls"/);
    t.match(r.stdout, /data: \[DONE\]\n\n$/);
    t.match(r.stderr, /^not carried: raw ×\d+/m);
  },
  edge(t, r) {
    t.match(r.stdout, /^text\/plain; charset=utf-8\n/);
    t.match(r.stdout, /Let me check the weather in Paris/);
  },
  'final-type'(t) {
    t.pass('types only: it compiles and runs');
  },
};


/** The example's import statements (hoisted above its prelude) and the rest. */
function splitImports(code: string): { imports: string; rest: string } {
  const imports: string[] = [];
  const rest = code.replace(/^import\b[\s\S]*?['"][^'"\n]+['"];?[ \t]*(?:\n|$)/gm, (statement) => {
    imports.push(statement.trimEnd());
    return '';
  });
  return { imports: imports.join('\n'), rest };
}

function source(name: string, example: Example): string {
  const { imports, rest } = splitImports(example.code);
  return [imports, preludes[name] ?? '', rest, epilogues[name] ?? ''].join('\n');
}

t.test('the README examples are the ones this test knows', (t) => {
  t.same(duplicates, [], 'no two examples share a name');
  const unknown = [...examples.keys()].filter((name) => !(name in checks));
  t.same(
    unknown,
    [],
    unknown.length
      ? `README.md has example(s) ${unknown.join(', ')} that test/readme.test.ts does not know: add an entry to \`checks\` (and a prelude/epilogue if it needs one)`
      : 'every README example has its checks',
  );
  const unused = Object.keys(checks).filter((name) => !examples.has(name));
  t.same(unused, [], 'every check has its README example');
  t.end();
});

const p = await packed().catch((err: Error) => err);
if (p instanceof Error) {
  t.fail(`npm pack or the install of the tarball into a fresh project failed, so the README examples cannot run from it:\n${p.message}`);
} else {
  await runExamples(p);
}

async function runExamples(p: Packed): Promise<void> {
  const dir = workDir(p, 'readme');
  const tool = join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse');
  copyFileSync(tool, join(dir, 'capture.sse'));
  writeFileSync(
    join(dir, 'gateway.log'),
    Buffer.concat([readFileSync(tool), readFileSync(join(repoRoot, 'fixtures', 'openai-chat', 'text-usage.sse'))]),
  );

  const all = new Map(examples);
  for (const [name, example] of all) writeFileSync(join(dir, `${name}.${example.lang === 'ts' ? 'ts' : 'mjs'}`), source(name, example));

  // The ts examples compile together, strict, against the installed package; each then runs from out/.
  const tsNames = [...all].filter(([, e]) => e.lang === 'ts').map(([name]) => name);
  const compilerOptions = {
    target: 'es2022',
    lib: ['es2022'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    types: ['node'],
    skipLibCheck: true,
    rootDir: '.',
    outDir: 'out',
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: tsNames.map((n) => `${n}.ts`) }, null, 2));
  const compiled = await tsc(p, ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false']);
  const lines = (compiled.stdout + compiled.stderr).split('\n').filter(Boolean);
  const ofFile = (name: string) => lines.filter((l) => l.startsWith(`${name}.ts(`) || l.includes(`/${name}.ts(`));
  // Errors of no example's (the tsconfig, a missing type package) belong to every ts example.
  const general = compiled.code === 0 ? [] : lines.filter((l) => !tsNames.some((n) => ofFile(n).includes(l)));
  const diagnostics = (name: string): string => [...general, ...ofFile(name)].join('\n');

  const runOne = async (t: Test, name: string, example: Example): Promise<RunResult | null> => {
    let file = join(dir, `${name}.mjs`);
    if (example.lang === 'ts') {
      const errors = diagnostics(name);
      file = join(dir, 'out', `${name}.js`);
      if (errors) {
        t.fail(`${name}.ts does not compile (tsc, strict, against the installed package):\n${errors}`, { program: source(name, example) });
        return null;
      }
      if (!existsSync(file)) {
        t.fail(`tsc wrote no out/${name}.js`, { tsc: compiled.stdout + compiled.stderr });
        return null;
      }
      t.pass(`${name}.ts compiles (tsc, strict)`);
    }
    const r = await run(process.execPath, [file], { cwd: dir, timeout: 30_000 });
    t.equal(r.code, 0, `node ${file.slice(dir.length + 1)} exits 0`, { stdout: r.stdout, stderr: r.stderr, program: source(name, example) });
    return r;
  };

  for (const [name, example] of examples) {
    const check = checks[name];
    if (!check) continue; // failed above
    t.test(`${name} example (${example.lang})`, async (t) => {
      const r = await runOne(t, name, example);
      if (r && r.code === 0) check(t, r);
    });
  }
}
