/**
 * A CommonJS TypeScript user: `import x = require('wirefold')` of the ES module
 * package, which TypeScript 5.9 allows under `module: nodenext` and `node20`
 * (Node >= 20.19 loads an ES module graph without top-level await through
 * require()); `node16`/`node18` model Nodes that cannot and refuse it.
 * test/package.test.ts type-checks it, then compiles and runs it on a capture.
 */
import wirefold = require('wirefold');
import type { FinalResult, UnifiedEvent } from 'wirefold';
import fs = require('node:fs');
import stream = require('node:stream');
import { pipeline } from 'node:stream/promises';

function visible(ev: UnifiedEvent): string {
  return ev.type === 'text_delta' ? ev.text : '';
}

async function main(file: string): Promise<void> {
  const finals: FinalResult[] = [];
  await pipeline(fs.createReadStream(file), wirefold.createStream({ output: 'final' }), async (source: AsyncIterable<FinalResult>) => {
    for await (const f of source) finals.push(f);
  });
  let text = '';
  for await (const ev of wirefold.events(fs.createReadStream(file))) text += visible(ev);
  const first = finals[0];
  if (!first) throw new Error('no final result');
  console.log(
    JSON.stringify({
      stopReason: first.stopReason,
      toolCalls: first.toolCalls,
      text,
      transform: wirefold.createStream() instanceof stream.Transform,
    }),
  );
}

const file = process.argv[2];
if (!file) throw new Error('usage: consumer.cjs <capture>');
main(file).catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
