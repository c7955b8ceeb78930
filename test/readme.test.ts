/** The README's code examples run for real (against the built package, imported by its name). */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers/corpus.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const examples = new Map<string, string>();
for (const m of readme.matchAll(/```js\n\/\/ example: (\w+)\n([\s\S]*?)```/g)) examples.set(m[1]!, m[2]!);

const dir = join(repoRoot, '.tap', 'readme-examples');
mkdirSync(dir, { recursive: true });
const tool = join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse');
copyFileSync(tool, join(dir, 'capture.sse'));
writeFileSync(
  join(dir, 'gateway.log'),
  Buffer.concat([readFileSync(tool), readFileSync(join(repoRoot, 'fixtures', 'openai-chat', 'text-usage.sse'))]),
);

/** What each example needs from its surroundings (a real service would have these). */
const preludes: Record<string, string> = {
  pipeline: `
    import { readFileSync } from 'node:fs';
    const url = 'https://api.example/v1/messages', headers = {}, body = '{}';
    globalThis.fetch = async () => new Response(readFileSync('capture.sse'));`,
  iterate: `
    import fs from 'node:fs';
    const response = new Response(fs.readFileSync('capture.sse'));
    const ui = { append: (s) => process.stdout.write(s) };`,
  logs: ``,
  websocket: `
    import { EventEmitter } from 'node:events';
    import { readFileSync } from 'node:fs';
    const ws = new EventEmitter();
    const lines = readFileSync(${JSON.stringify(join(repoRoot, 'fixtures', 'openai-realtime', 'text-turn.jsonl'))}, 'utf8').split('\\n').filter(Boolean);
    setImmediate(() => { for (const l of lines) ws.emit('message', Buffer.from(l)); ws.emit('close'); });`,
  };
const epilogues: Record<string, string> = { logs: `console.log('tokens', tokens);` };

function run(name: string): { status: number | null; stdout: string; stderr: string } {
  const code = examples.get(name)!;
  const imports = code.split('\n').filter((l) => l.startsWith('import '));
  const rest = code.split('\n').filter((l) => !l.startsWith('import '));
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, [...imports, preludes[name] ?? '', ...rest, epilogues[name] ?? ''].join('\n'));
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('the README has the documented examples', (t) => {
  t.same([...examples.keys()].sort(), ['iterate', 'logs', 'pipeline', 'websocket']);
  t.end();
});

t.test('pipeline example', (t) => {
  const r = run('pipeline');
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /Let me check the weather in Paris/);
  t.match(r.stdout, /tool get_weather \{"city": "Paris", "unit": "celsius"\}/);
  t.match(r.stdout, /stop: tool_use/);
  t.end();
});

t.test('iterate example', (t) => {
  const r = run('iterate');
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /Let me check the weather in Paris/);
  t.match(r.stdout, /inputTokens: 1436/);
  t.end();
});

t.test('log reprocessing example', (t) => {
  const r = run('logs');
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /^tokens \d+$/m);
  t.end();
});

t.test('websocket example', (t) => {
  const r = run('websocket');
  t.equal(r.status, 0, r.stderr);
  t.ok(r.stdout.trim().length > 0);
  t.end();
});
