/** createStream({ to }): bytes in, another wire's bytes out, one Transform; the same at every chunking. */
import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UnifiedEvent } from '../../lib/events.js';
import { createOutputStage, createStream } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import type { LossReport } from '../../lib/encode/types.js';
import { encode } from '../helpers/encode.js';
import { corpusFile, fixture } from '../helpers/corpus.js';
import { fixedChunks, randomChunks } from '../helpers/chunks.js';

/** Chat chunks carry the time they were written: compared without it. */
const timeless = (s: string): string => s.replace(/"created":\d+/g, '"created":0');

async function transcode(pieces: Buffer[], to: 'openai-chat' | 'anthropic-messages'): Promise<{ out: string; losses: LossReport[]; events: LossReport[] }> {
  const chunks: Buffer[] = [];
  const losses: LossReport[] = [];
  const events: LossReport[] = [];
  const stream = createStream({ to, onLoss: (r) => losses.push(r) });
  stream.on('loss', (r: LossReport) => events.push(r));
  await pipeline(
    Readable.from(pieces),
    stream,
    new Writable({
      write(chunk: Buffer, _e, cb) {
        chunks.push(chunk);
        cb();
      },
    }),
  );
  return { out: Buffer.concat(chunks).toString('utf8'), losses, events };
}

const inputs = [
  { name: 'anthropic thinking + tool use → chat', bytes: corpusFile('anthropic-messages/llm-anthropic--thinking-then-tool-use.sse'), to: 'openai-chat' as const },
  { name: 'responses reasoning → anthropic', bytes: corpusFile('openai-responses/pydantic-ai--reasoning-summary.sse'), to: 'anthropic-messages' as const },
  { name: 'gemini JSON array → anthropic', bytes: corpusFile('gemini-json-array/llm-gemini--function-call.json'), to: 'anthropic-messages' as const },
  { name: 'anthropic tool use → chat', bytes: fixture('quickstart/anthropic-tool-use.sse'), to: 'openai-chat' as const },
];

for (const input of inputs) {
  t.test(`${input.name}: what the separate encoder writes, at every chunking`, async (t) => {
    const events = runStage(createOutputStage({ output: 'events' }), [input.bytes]) as UnifiedEvent[];
    const want = encode(events, input.to);
    const whole = await transcode([input.bytes], input.to);
    t.equal(timeless(whole.out), timeless(want.text), 'one chunk');
    t.strictSame(whole.losses, want.losses, 'the same loss reports');
    t.strictSame(whole.events, whole.losses, "each also a 'loss' event");
    for (const [label, pieces] of [
      ['1-byte chunks', fixedChunks(input.bytes, 1)],
      ['7-byte chunks', fixedChunks(input.bytes, 7)],
      ['random chunks', randomChunks(input.bytes, 42)],
    ] as const) {
      const r = await transcode(pieces.map((p) => Buffer.from(p)), input.to);
      t.equal(timeless(r.out), timeless(want.text), label);
    }
  });
}

t.test('options: to with output is refused; a misspelt target names the choices', async (t) => {
  t.throws(() => createStream({ to: 'openai-chat', output: 'final' }), { code: 'invalid_option', message: /no output mode with option to/ });
  t.throws(() => createStream({ to: 'gemini-chat' as never }), { code: 'invalid_option', message: /'openai-chat'/ });
  t.throws(() => createStream({ onLos: () => {} } as never), { code: 'invalid_option', message: /did you mean "onLoss"/ });
});

t.test('strict with to: a loss fails the stream with lossy_encoding', async (t) => {
  const bytes = corpusFile('anthropic-messages/llm-anthropic--thinking-then-tool-use.sse');
  await t.rejects(
    pipeline(Readable.from([bytes]), createStream({ to: 'openai-chat', strict: true }), new Writable({ write: (_c, _e, cb) => cb() })),
    { code: 'lossy_encoding' },
  );
});

t.test('a named source whose framing is detected: the first non-blank byte decides, blank chunks before it held, the same bytes as with the framing given', async (t) => {
  const cases = [
    { file: 'gemini-sse/crewai--parallel-function-calls.sse', framing: 'sse' as const, to: 'gemini-json-array' as const },
    { file: 'gemini-json-array/llm-gemini--function-call.json', framing: 'json-array' as const, to: 'gemini' as const },
    { file: 'gemini-json-array/llm-gemini--text.json', framing: 'json-array' as const, to: 'gemini-json-array' as const },
  ];
  for (const c of cases) {
    const bytes = corpusFile(c.file);
    const run = async (pieces: Buffer[], framing: 'auto' | 'sse' | 'json-array'): Promise<string> => {
      const out: Buffer[] = [];
      await pipeline(
        Readable.from(pieces),
        createStream({ dialect: 'gemini', framing, to: c.to }),
        new Writable({
          write(chunk: Buffer, _e, cb) {
            out.push(chunk);
            cb();
          },
        }),
      );
      return Buffer.concat(out).toString('utf8');
    };
    const given = await run([bytes], c.framing);
    t.ok(given.length > 0, `${c.file} → ${c.to}: written`);
    t.equal(await run([bytes], 'auto'), given, `${c.file} → ${c.to}: detected, one chunk`);
    // blank lines in chunks of their own first (held until the framing is known), then the capture in 7-byte chunks
    const blank = [Buffer.from('\n'), Buffer.from(' \r\n'), ...fixedChunks(bytes, 7)];
    t.equal(await run(blank, 'auto'), await run([Buffer.concat(blank)], c.framing), `${c.file} → ${c.to}: blank chunks held, then 7-byte chunks`);
  }
});
