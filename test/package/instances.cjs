// Which of the package's streams are instances of Node's own stream classes (printed as JSON).
'use strict';
const stream = require('node:stream');
const w = require('wirefold');

const made = {
  createStream: w.createStream(),
  'createStream(final)': w.createStream({ output: 'final' }),
  'createStream(text)': w.createStream({ output: 'text' }),
  sseFramer: w.sseFramer(),
  jsonArrayFramer: w.jsonArrayFramer(),
  jsonValuesFramer: w.jsonValuesFramer(),
  ndjsonFramer: w.ndjsonFramer(),
  autoFramer: w.autoFramer(),
  decoder: w.decoder(),
  normalizer: w.normalizer(),
  messageDecoder: w.messageDecoder(),
  finalAccumulator: w.finalAccumulator(),
  textAccumulator: w.textAccumulator(),
  toolArgsAccumulator: w.toolArgsAccumulator(),
  usageAccumulator: w.usageAccumulator(),
  signatureAccumulator: w.signatureAccumulator(),
  compose: w.compose(w.decoder(), w.normalizer()),
};
const out = {};
for (const [name, s] of Object.entries(made)) {
  out[name] = {
    Transform: s instanceof stream.Transform,
    Duplex: s instanceof stream.Duplex,
    Readable: s instanceof stream.Readable,
    Writable: s instanceof stream.Writable,
    Stream: s instanceof stream.Stream,
  };
  s.on('error', () => {}); // a Duplex of Node's stream.compose destroyed unfinished reports an AbortError
  s.destroy();
}
console.log(JSON.stringify(out));
