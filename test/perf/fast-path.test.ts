/**
 * The raw-text fast path (dialects/fast/*) must be invisible: every input
 * decodes to the same events (positions on and off) and the same finals with
 * it on and off, at several chunkings. Plus the texts that must not be taken
 * by a template, and a check that the fast path is really taken.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { DialectOption } from '../../lib/events.js';
import type { FramingOption } from '../../lib/framing/detect.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { FIXTURE_DIALECTS, FIXTURE_SHAPES, generateToBuffer, llmstreamOptions } from '../../benchmarks/generate.js';
import { corpusFiles, hasCorpus, repoRoot } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';

interface Config {
  dialect?: DialectOption;
  framing?: FramingOption;
}

/** Events (or finals) of one run, with a fatal error (strict off: none expected) kept as a value. */
function run(chunks: Buffer[], config: Config, output: 'events' | 'final', positions: boolean, fastPath: boolean): unknown[] {
  const stage = createOutputStage({ ...config, output, positions, fastPath } as Parameters<typeof createOutputStage>[0]);
  const out: unknown[] = [];
  const emit = (x: unknown): void => {
    out.push(x);
  };
  try {
    for (const c of chunks) stage.push(c, emit);
    stage.end(emit);
  } catch (err) {
    out.push({ thrown: (err as Error).name, message: (err as Error).message });
  }
  return out;
}

/** Asserts fast on = fast off for events (positions on and off) and finals, whole and at two random chunkings. */
function same(t: Test, name: string, bytes: Buffer, config: Config): void {
  const chunkings: [string, Buffer[]][] = [
    ['whole', [bytes]],
    ['random#1', randomChunks(bytes, 1, 97)],
    ['random#2', randomChunks(bytes, 2, 4096)],
  ];
  for (const [cname, chunks] of chunkings) {
    for (const positions of [false, true]) {
      t.strictSame(run(chunks, config, 'events', positions, true), run(chunks, config, 'events', positions, false), `${name} ${JSON.stringify(config)} @${cname} positions=${positions}: events`);
    }
    t.strictSame(run(chunks, config, 'final', false, true), run(chunks, config, 'final', false, false), `${name} ${JSON.stringify(config)} @${cname}: finals`);
  }
}

const DIR_DIALECT: Record<string, DialectOption> = {
  'anthropic-messages': 'anthropic-messages',
  'openai-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
  'xai-chat': 'xai-chat',
  'xai-responses': 'xai-responses',
  'xai-messages': 'xai-messages',
  'gemini-sse': 'gemini',
  'gemini-json-array': 'gemini',
  gemini: 'gemini',
  'gemini-interactions': 'gemini-interactions',
  'gemini-live': 'gemini-live',
  'openai-realtime': 'openai-realtime',
  'xai-realtime': 'xai-realtime',
};

function fixtureFiles(): { name: string; dir: string; bytes: Buffer }[] {
  const root = join(repoRoot, 'fixtures');
  const out: { name: string; dir: string; bytes: Buffer }[] = [];
  for (const dir of readdirSync(root).sort()) {
    const full = join(root, dir);
    if (!statSync(full).isDirectory()) continue;
    for (const f of readdirSync(full).sort()) out.push({ name: `fixtures/${dir}/${f}`, dir, bytes: readFileSync(join(full, f)) });
  }
  return out;
}

t.test('corpus: fast path on = off', { skip: hasCorpus ? false : 'no ../shared/corpus' }, (t) => {
  for (const file of corpusFiles()) {
    same(t, file.name, file.bytes, {});
    const dialect = DIR_DIALECT[file.dir];
    if (dialect !== undefined) same(t, file.name, file.bytes, { dialect });
  }
  t.end();
});

t.test('corpus directories concatenated into one log (auto): fast path on = off', { skip: hasCorpus ? false : 'no ../shared/corpus' }, (t) => {
  const sse = corpusFiles().filter((f) => f.name.endsWith('.sse'));
  const dirs = [...new Set(sse.map((f) => f.dir))];
  for (const dir of dirs) {
    const log = Buffer.concat(sse.filter((f) => f.dir === dir).flatMap((f) => [f.bytes, Buffer.from('\n\n')]));
    same(t, `${dir}/*`, log, {});
  }
  // every SSE file of every dialect back to back: templates must not leak across a dialect switch
  same(t, 'all SSE files', Buffer.concat(sse.flatMap((f) => [f.bytes, Buffer.from('\n\n')])), {});
  t.end();
});

t.test('fixtures: fast path on = off', (t) => {
  for (const file of fixtureFiles()) {
    same(t, file.name, file.bytes, {});
    const dialect = DIR_DIALECT[file.dir];
    if (dialect !== undefined) same(t, file.name, file.bytes, { dialect });
  }
  t.end();
});

t.test('generated benchmark fixtures: fast path on = off', (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      for (const seed of [1, 2, 3]) {
        const { data } = generateToBuffer({ dialect, shape, size: 40_000, seed });
        same(t, `${dialect}.${shape}#${seed}`, data, llmstreamOptions(dialect));
      }
    }
  }
  t.end();
});

/** JSON.parse calls on whole payloads (`{…}`) during one run. */
function payloadParses(bytes: Buffer, config: Config, fastPath: boolean): number {
  const parse = JSON.parse;
  let n = 0;
  JSON.parse = function (this: unknown, text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (typeof text === 'string' && text.trimStart().startsWith('{')) n++;
    return parse.call(JSON, text, reviver) as unknown;
  } as typeof JSON.parse;
  try {
    run([bytes], config, 'final', false, fastPath);
  } finally {
    JSON.parse = parse;
  }
  return n;
}

/** Dialects with a fast path so far. */
const FAST = FIXTURE_DIALECTS;

t.test('the fast path is taken: most payloads of generated fixtures are never JSON-parsed', (t) => {
  for (const dialect of FAST) {
    for (const shape of FIXTURE_SHAPES) {
      const { data } = generateToBuffer({ dialect, shape, size: 200_000, seed: 7 });
      const off = payloadParses(data, llmstreamOptions(dialect), false);
      const on = payloadParses(data, llmstreamOptions(dialect), true);
      t.ok(on < off * 0.5, `${dialect}.${shape}: ${on} payload parses with the fast path, ${off} without`);
    }
  }
  t.end();
});
