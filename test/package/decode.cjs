// The CommonJS program: require('wirefold') (an ES module, loaded by require() on Node >= 20.19).
'use strict';
const { createReadStream } = require('node:fs');
const { pipeline } = require('node:stream/promises');
const { createStream } = require('wirefold');

const finals = [];
pipeline(createReadStream(process.argv[2]), createStream({ output: 'final' }), async (source) => {
  for await (const f of source) finals.push(f);
}).then(() => {
  console.log(JSON.stringify({ stopReason: finals[0].stopReason, toolCalls: finals[0].toolCalls }));
});
