/**
 * A bad option value throws an OptionError (code invalid_option) from the
 * factory that takes it, before any byte is read: never a TypeError in the
 * middle of a stream, never an error event at the first chunk, never a
 * silent fallback (an unknown output mode used to give text mode).
 */
import t from 'tap';
import { ChunkTypeError, OptionError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { createAutoFramer, createFramer, type FramingName } from '../../lib/framing/detect.js';
import { createSseFramer } from '../../lib/framing/sse.js';
import { createStream, createOutputStage } from '../../lib/pipeline/create-stream.js';
import { createEventsStage, decodeAll } from '../../lib/pipeline/events-stage.js';
import { autoFramer, jsonArrayFramer, jsonValuesFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { events, finals } from '../../lib/pipeline/iterate.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';

type Options = Record<string, unknown>;

const BAD: [string, Options, RegExp][] = [
  ['framing', { framing: 'sse2' }, /^option framing: expected 'auto', 'sse', 'json-array', 'ndjson' or 'json-values', got "sse2"$/],
  ['output', { output: 'finals' }, /^option output: expected 'events', 'final' or 'text', got "finals"$/],
  ['strict', { strict: 'no' }, /^option strict: expected a boolean, got "no"$/],
  ['positions', { positions: 1 }, /^option positions: expected a boolean, got 1$/],
  ['flushIncomplete', { flushIncomplete: 'false' }, /^option flushIncomplete: expected a boolean, got "false"$/],
  ['maxFrameBytes', { maxFrameBytes: 0 }, /^option maxFrameBytes: expected a positive integer, got 0$/],
  ['dialect', { dialect: 'openai' }, /^option dialect: expected 'auto' or one of xai-chat, openai-chat, .*got "openai"$/],
];

const input = Buffer.from('data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\n');

t.test('createStream and the stages behind it throw on a bad option, naming it, what it takes and what it got', (t) => {
  for (const [name, options, message] of BAD) {
    t.throws(() => createStream(options as never), { name: 'OptionError', code: 'invalid_option', message }, `createStream: ${name}`);
    t.throws(() => createOutputStage(options as never), OptionError, `createOutputStage: ${name}`);
    if (name !== 'output' && name !== 'strict') {
      t.throws(() => createEventsStage(options as never), OptionError, `createEventsStage: ${name}`);
      t.throws(() => decodeAll([input], options as never), OptionError, `decodeAll: ${name}`);
    }
  }
  t.end();
});

t.test('events(), finals() and read() throw it at the call (options are resolved once, there), before reading the source', async (t) => {
  const { read } = await import('../../lib/pipeline/read.js');
  for (const [name, options, message] of BAD) {
    if (name === 'output') continue; // (not theirs: an unknown option, tested below)
    let read_ = false;
    const source = (async function* () {
      read_ = true;
      yield input;
    })();
    t.throws(() => events(source, options as never), { code: 'invalid_option', message }, `events(): ${name}`);
    t.throws(() => finals([input], options as never), OptionError, `finals(): ${name}`);
    t.throws(() => read([input], options as never), OptionError, `read(): ${name}`);
    t.notOk(read_, `events(): ${name}: the source is never read`);
  }
});

t.test('the framers check their options when made, the auto framer too (it makes its framer later)', (t) => {
  const framerBad: [string, Options][] = [
    ['positions', { positions: 'yes' }],
    ['maxFrameBytes', { maxFrameBytes: 1.5 }],
  ];
  for (const [name, options] of framerBad) {
    t.throws(() => createAutoFramer(options as never), OptionError, `createAutoFramer: ${name}`);
    t.throws(() => autoFramer(options as never), OptionError, `autoFramer(): ${name}`);
    for (const framing of ['sse', 'json-array', 'ndjson', 'json-values'] as FramingName[]) {
      t.throws(() => createFramer(framing, options as never), OptionError, `createFramer('${framing}'): ${name}`);
    }
    t.throws(() => jsonArrayFramer(options as never), OptionError, `jsonArrayFramer(): ${name}`);
    t.throws(() => jsonValuesFramer(options as never), OptionError, `jsonValuesFramer(): ${name}`);
  }
  t.throws(() => createAutoFramer({ flushIncomplete: 0 } as never), { message: /flushIncomplete: expected a boolean, got 0/ });
  t.throws(() => createSseFramer({ flushIncomplete: null } as never), { message: /flushIncomplete: expected a boolean, got null/ });
  t.throws(() => sseFramer({ flushIncomplete: 'yes' } as never), OptionError);
  t.throws(() => createFramer('csv' as FramingName), { code: 'invalid_option', message: /^option framing: expected one of sse, json-array, ndjson, json-values, got "csv"$/ });
  t.end();
});

t.test('good values and absent options still work', (t) => {
  const want = decodeAll([input]);
  t.equal(want.length, 3);
  for (const options of [{}, { framing: 'auto' }, { framing: 'sse' }, { strict: false }, { positions: false }, { flushIncomplete: true }, { output: undefined }, { strict: undefined }]) {
    t.same(decodeAll([input], options as never), want, JSON.stringify(options));
    t.doesNotThrow(() => createStream(options as never), `createStream(${JSON.stringify(options)})`);
  }
  t.end();
});

t.test('callbacks must be functions; the options argument an object; the source of events() and finals() readable', (t) => {
  t.throws(() => createStream({ onDialect: 'log' } as never), { code: 'invalid_option', message: /^option onDialect: expected a function, got "log"$/ });
  t.throws(() => createStream({ onFraming: 1 } as never), { code: 'invalid_option', message: /^option onFraming: expected a function, got 1$/ });
  t.throws(() => createNormalizer({ onDialect: {} } as never), { code: 'invalid_option', message: /onDialect/ });
  for (const bad of [null, 'final', 42, ['final']]) {
    t.throws(() => createStream(bad as never), { code: 'invalid_option', message: /^the options argument: expected an object, got / }, `createStream(${JSON.stringify(bad)})`);
    t.throws(() => events([input], bad as never), OptionError, `events(source, ${JSON.stringify(bad)})`);
  }
  for (const bad of [42, null, undefined, true, {}]) {
    t.throws(() => events(bad as never), { code: 'invalid_option', message: /^the source: expected an async iterable or iterable of chunks, a web ReadableStream, or a fetch Response, got / }, `events(${String(bad)})`);
    t.throws(() => finals(bad as never), OptionError, `finals(${String(bad)})`);
  }
  // the callbacks are called as before
  const seen: string[] = [];
  decodeAll([input], { onDialect: (d) => seen.push(`dialect ${d}`), onFraming: (f) => seen.push(`framing ${f}`) });
  t.same(seen, ['framing sse', 'dialect openai-chat']);
  t.end();
});

t.test('a chunk that is neither bytes nor a string: a terminal invalid_chunk after what came before (lenient), a ChunkTypeError (strict, stages)', async (t) => {
  const tail = Buffer.from('data: [DONE]\n\n');
  for (const [bad, what] of [
    [{ a: 1 }, 'an object'],
    [7, 'number 7'],
    [new ArrayBuffer(4), 'an ArrayBuffer'],
    [null, 'null'],
  ] as const) {
    const got: UnifiedEvent[] = [];
    for await (const ev of events([input.subarray(0, input.indexOf('data: [DONE]')), bad as never, tail])) got.push(ev);
    const message = `a chunk must be bytes (a Buffer or another Uint8Array) or a string, got ${what}`;
    t.same(
      got.map((e) => e.type),
      ['start', 'text_delta', 'error', 'done'],
      `${what}: the text before it, then the error, then done; the chunk after it is not read`,
    );
    t.match(got[2], { type: 'error', code: 'invalid_chunk', message, terminal: true });
    t.match(got[3], { type: 'done', stopReason: 'error' });
    const [final] = await all(finals([bad as never]));
    t.same(final?.errors, [{ code: 'invalid_chunk', message }], `${what}: finals`);
    await t.rejects(all(events([bad as never], { strict: true })), { name: 'ChunkTypeError', code: 'invalid_chunk', message }, `${what}: strict`);
    t.throws(() => decodeAll([bad as never]), ChunkTypeError, `${what}: decodeAll`);
  }
  // any other view of bytes is read as its bytes
  const bytes = new Uint8Array(input);
  t.same(decodeAll([new DataView(bytes.buffer) as never]), decodeAll([input]), 'a DataView');
});

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

t.test('every public factory refuses an options argument that is not an object, and takes none or {}', async (t) => {
  const lib = (await import('../../lib/index.js')) as unknown as Record<string, (o?: unknown) => unknown>;
  const factories = [
    'createStream', 'createEventsStage', 'createNormalizer', 'createDecoder', 'createMessageDecoder',
    'createSseFramer', 'createJsonArrayFramer', 'createJsonValuesFramer', 'createNdjsonFramer', 'createAutoFramer',
    'createTextAccumulator', 'createToolArgsAccumulator', 'createFinalAccumulator',
    'sseFramer', 'jsonArrayFramer', 'jsonValuesFramer', 'ndjsonFramer', 'autoFramer', 'decoder', 'messageDecoder', 'normalizer',
    'textAccumulator', 'toolArgsAccumulator', 'usageAccumulator', 'signatureAccumulator', 'finalAccumulator',
  ];
  for (const name of factories) {
    const make = lib[name];
    t.type(make, 'function', name);
    for (const bad of [null, 'final', 3]) {
      t.throws(() => make!(bad), { code: 'invalid_option', message: /^the options argument: expected an object/ }, `${name}(${JSON.stringify(bad)})`);
    }
    t.doesNotThrow(() => make!(), `${name}()`);
    t.doesNotThrow(() => make!({}), `${name}({})`);
  }
});

t.test('an unknown option name is an OptionError naming the closest known one, at every public entry', async (t) => {
  const { decoder, normalizer, messageDecoder } = await import('../../lib/pipeline/stages.js');
  const { ndjsonFramer } = await import('../../lib/pipeline/framers.js');
  const acc = await import('../../lib/pipeline/accumulators.js');
  const { read } = await import('../../lib/pipeline/read.js');
  const src = [input];
  const cases: [string, () => unknown, RegExp][] = [
    ['createStream', () => createStream({ outptu: 'final' } as never), /^unknown option "outptu" for createStream\(\) \(did you mean "output"\?\)$/],
    ['createStream, case', () => createStream({ Strict: true } as never), /did you mean "strict"\?/],
    ['createStream, swapped letters', () => createStream({ dialcet: 'openai-chat' } as never), /did you mean "dialect"\?/],
    ['createStream, nothing near', () => createStream({ colour: 'red' } as never), /^unknown option "colour" for createStream\(\)$/],
    ['events', () => events(src, { maxFrameByte: 10 } as never), /^unknown option "maxFrameByte" for events\(\) \(did you mean "maxFrameBytes"\?\)$/],
    ['finals: output is not theirs', () => finals(src, { output: 'final' } as never), /^unknown option "output" for finals\(\)/],
    ['read', () => read(src, { singal: new AbortController().signal } as never), /did you mean "signal"\?/],
    ['sseFramer', () => sseFramer({ flushIncompete: true } as never), /did you mean "flushIncomplete"\?/],
    ['jsonArrayFramer', () => jsonArrayFramer({ position: true } as never), /did you mean "positions"\?/],
    ['jsonValuesFramer', () => jsonValuesFramer({ flushIncomplete: true } as never), /^unknown option "flushIncomplete" for jsonValuesFramer\(\)/],
    ['autoFramer', () => autoFramer({ highWatermark: 4 } as never), /did you mean "highWaterMark"\?/],
    ['ndjsonFramer', () => ndjsonFramer({ maxFrameBytess: 4 } as never), /did you mean "maxFrameBytes"\?/],
    ['decoder', () => decoder({ capture: 'all' } as never), /did you mean "captures"\?/],
    ['messageDecoder', () => messageDecoder({ capture: 'all' } as never), /did you mean "captures"\?/],
    ['normalizer', () => normalizer({ dialects: 'auto' } as never), /did you mean "dialect"\?/],
    ['textAccumulator', () => acc.textAccumulator({ maxTextByte: 1 } as never), /did you mean "maxTextBytes"\?/],
    ['toolArgsAccumulator', () => acc.toolArgsAccumulator({ maxBlock: 1 } as never), /did you mean "maxBlocks"\?/],
    ['usageAccumulator', () => acc.usageAccumulator({ maxBlocks: 1 } as never), /^unknown option "maxBlocks" for usageAccumulator\(\)/],
    ['signatureAccumulator', () => acc.signatureAccumulator({ x: 1 } as never), /^unknown option "x" for signatureAccumulator\(\)$/],
    ['finalAccumulator', () => acc.finalAccumulator({ maxTextBytes: 1, maxToolArgBytes: 2 } as never), /did you mean "maxToolArgumentBytes"\?/],
  ];
  for (const [name, call, message] of cases) t.throws(call, { name: 'OptionError', code: 'invalid_option', message }, name);
  // every documented option is known where it belongs
  t.doesNotThrow(() =>
    createStream({
      output: 'final', strict: false, signal: new AbortController().signal, fastPath: false, dialect: 'auto', framing: 'auto',
      positions: true, maxFrameBytes: 100, flushIncomplete: true, captures: 'recv', onFraming: () => {}, onDialect: () => {},
      maxBlocks: 5, maxToolArgumentBytes: 5, maxTextBytes: 5, highWaterMark: 4, writableHighWaterMark: 4,
    }),
  );
  t.throws(() => createStream({ signal: 'stop' } as never), { code: 'invalid_option', message: /^option signal: expected an AbortSignal/ });
  t.throws(() => events(src, { signal: {} } as never), { code: 'invalid_option', message: /^option signal: expected an AbortSignal/ });
  t.end();
});
