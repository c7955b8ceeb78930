/**
 * The fuzzer's own machinery: the event-sequence oracle flags what it must
 * (and passes what it must), cases replay from (seed, index), and the
 * no known bug excuses a failure any more.
 */
import t from 'tap';
import { StreamError } from '../../lib/errors.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { checkEvents, chunksOf, isTypedError, knownBug, makeCase, runCase, seedInputs } from '../helpers/fuzz.js';

const start: UnifiedEvent = { type: 'start', id: 'r1', model: 'm' };
const text: UnifiedEvent = { type: 'text_delta', index: 0, text: 'hi' };
const done: UnifiedEvent = { type: 'done', stopReason: 'end', providerReason: null };
const toolStart: UnifiedEvent = { type: 'tool_call_start', index: 1, id: 'c1', name: 'f' };
const toolDelta: UnifiedEvent = { type: 'tool_call_delta', index: 1, id: 'c1', argumentsDelta: '{}' };
const toolDone: UnifiedEvent = { type: 'tool_call_done', index: 1, id: 'c1', name: 'f', arguments: '{}' };
const terminal: UnifiedEvent = { type: 'error', code: 'overloaded_error', message: 'x', terminal: true };
const soft: UnifiedEvent = { type: 'error', code: 'invalid_json', message: 'x', terminal: false };
const raw: UnifiedEvent = { type: 'raw', event: '[DONE]' };

t.test('checkEvents accepts well-formed sequences', async (tt) => {
  tt.equal(checkEvents([]), null, 'nothing at all');
  tt.equal(checkEvents([raw, soft, raw]), null, 'only raw and non-terminal errors');
  tt.equal(checkEvents([start, text, toolStart, toolDelta, toolDone, done, raw]), null, 'one response, trailing raw');
  tt.equal(checkEvents([start, text, done, start, done]), null, 'a log of two');
  tt.equal(checkEvents([terminal, done]), null, 'an error body: error then done, no start');
  tt.equal(checkEvents([start, toolStart, toolStart, toolDone, toolDelta, toolDone, done]), null, 'a replayed start of an open call');
  tt.equal(checkEvents([start, { ...done, choice: 1 }, text, done]), null, 'a done for choice 1 does not close the response');
});

t.test('checkEvents flags broken sequences', async (tt) => {
  tt.match(checkEvents([start, text]), /never got its done/, 'no done at the end');
  tt.match(checkEvents([start, text, start, done]), /still open/, 'a start while open (a lost done)');
  tt.match(checkEvents([text, done]), /outside any response/, 'content before any start');
  tt.match(checkEvents([start, done, done]), /done without a response/, 'a duplicated done');
  tt.match(checkEvents([soft, done]), /done without a response/, 'a non-terminal error does not stand for a response');
  tt.match(checkEvents([start, toolDelta, done]), /no tool_call_start/, 'a delta without its start');
  tt.match(checkEvents([start, toolStart, toolDone, toolDelta, done]), /after its tool_call_done/, 'a delta after the done');
  tt.match(checkEvents([start, toolStart, toolDone, toolDone, done]), /after its tool_call_done/, 'a second done');
});

t.test('isTypedError: only StreamErrors with a code', async (tt) => {
  tt.ok(isTypedError(new StreamError('invalid_json', 'x')));
  tt.notOk(isTypedError(new StreamError('', 'x')), 'an empty code');
  tt.notOk(isTypedError(new TypeError('x')), 'a TypeError');
  tt.notOk(isTypedError('boom'), 'a thrown string');
});

const inputs = seedInputs();

t.test('cases replay from (seed, index)', async (tt) => {
  for (const index of [0, 1, 77, 1234]) {
    const a = makeCase(inputs, 99, index);
    const b = makeCase(inputs, 99, index);
    tt.same({ ...a, bytes: a.bytes.toString('base64') }, { ...b, bytes: b.bytes.toString('base64') }, `case ${index} is the same twice`);
    tt.equal(a.chunkSizes.reduce((x, y) => x + y, 0), a.bytes.length, `case ${index}: the chunks cover the bytes`);
    tt.same(Buffer.concat(chunksOf(a)), a.bytes, `case ${index}: chunks join back`);
  }
  tt.not(makeCase(inputs, 99, 5).bytes.toString('base64'), makeCase(inputs, 100, 5).bytes.toString('base64'), 'another seed, another case');
  const sources = new Set<string>();
  for (let i = 0; i < inputs.length; i++) sources.add(makeCase(inputs, 1, i).source);
  sources.delete('random');
  tt.ok(sources.size >= inputs.length - Math.ceil(inputs.length * 0.1), 'consecutive cases go round every input');
});

t.test('unmutated fixtures pass the oracle', async (tt) => {
  for (const input of inputs.filter((i) => i.name.startsWith('fixtures/'))) {
    const r = runCase({
      seed: 0,
      index: 0,
      source: input.name,
      mutations: [],
      bytes: input.bytes,
      options: { maxFrameBytes: 64 * 1024 },
      finalLimits: {},
      chunkSizes: chunkSizes(input.bytes.length, 7),
    });
    tt.equal(r.problem, null, input.name);
  }
});

function chunkSizes(len: number, size: number): number[] {
  const out: number[] = [];
  for (let left = len; left > 0; left -= size) out.push(Math.min(size, left));
  return out;
}

t.test('no known bug is left to excuse a failure', async (tt) => {
  // The three bugs fuzzing found are fixed: every such failure must fail the run again.
  const late = [{ ...start, dialect: 'anthropic-messages' } as UnifiedEvent, toolStart, toolDone, toolDelta, done];
  tt.equal(knownBug(`lenient events: ${checkEvents(late)}`, late), undefined);
  const limit: UnifiedEvent = { type: 'error', code: 'limit_exceeded', message: 'x', terminal: true };
  const openAfterLimit = [start, text, limit];
  tt.equal(knownBug(`lenient events: ${checkEvents(openAfterLimit)}`, openAfterLimit), undefined);
});
