// The ESM program: decode the file named on the command line, print the first final's stopReason and toolCalls.
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createStream } from 'wirefold';

const finals = [];
await pipeline(createReadStream(process.argv[2]), createStream({ output: 'final' }), async (source) => {
  for await (const f of source) finals.push(f);
});
console.log(JSON.stringify({ stopReason: finals[0].stopReason, toolCalls: finals[0].toolCalls }));
