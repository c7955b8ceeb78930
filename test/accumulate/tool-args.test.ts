import t from 'tap';
import { LimitExceededError } from '../../lib/errors.js';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { createToolArgsAccumulator, parseArguments, ToolCall } from '../../lib/accumulate/tool-args.js';
import {
  anthropicMaxTokensMidTool,
  anthropicThinkingToolUse,
  anthropicToolNoArgs,
  done,
  openaiChatParallelTools,
  start,
  toolDelta,
  toolDone,
  toolStart,
} from './sequences.js';

t.test('parallel calls: previews while streaming, parsed authoritative arguments at done', async (t) => {
  const acc = createToolArgsAccumulator();
  const emit = (): void => {};
  const seen: [string, Json | undefined][] = [];
  for (const ev of openaiChatParallelTools()) {
    acc.push(ev, emit);
    if (ev.type === 'tool_call_delta') seen.push([ev.id, structuredClone(acc.preview(ev.id))]);
  }
  t.strictSame(seen, [
    ['call_weather', {}],
    ['call_time', {}],
    ['call_weather', { location: 'Par' }],
    ['call_time', { tz: 'Europe/Paris', fmt: [24] }],
    ['call_weather', { location: 'Paris', days: 3 }],
    ['call_time', { tz: 'Europe/Paris', fmt: [24, true] }],
  ]);
  t.strictSame(acc.calls(), [
    {
      choice: 0,
      index: 0,
      id: 'call_weather',
      name: 'get_weather',
      done: true,
      argumentsText: '{"location": "Paris", "days": 3}',
      arguments: { location: 'Paris', days: 3 },
      providerExecuted: false,
    },
    {
      choice: 0,
      index: 1,
      id: 'call_time',
      name: 'get_time',
      done: true,
      argumentsText: '{"tz": "Europe/Paris", "fmt": [24, true]}',
      arguments: { tz: 'Europe/Paris', fmt: [24, true] },
      providerExecuted: false,
    },
  ]);
  t.strictSame(acc.preview('call_time'), { tz: 'Europe/Paris', fmt: [24, true] }, 'preview after done is the parsed value');
  t.equal(acc.preview('nope'), undefined);
  t.strictSame(acc.errors(), []);
});

t.test('Anthropic input_json_delta fragments (a first empty one included)', async (t) => {
  const acc = createToolArgsAccumulator();
  runStage(acc, anthropicThinkingToolUse());
  t.strictSame(acc.calls().map((c) => [c.id, c.name, c.arguments]), [
    ['toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'get_weather', { location: 'San Francisco, CA', unit: 'fahrenheit' }],
  ]);
});

t.test('empty or blank arguments are {}; invalid ones keep their text and report an error', async (t) => {
  const noArgs = createToolArgsAccumulator();
  runStage(noArgs, anthropicToolNoArgs());
  t.strictSame(noArgs.calls()[0]?.arguments, {});
  t.strictSame(noArgs.errors(), []);

  const cut = createToolArgsAccumulator();
  runStage(cut, anthropicMaxTokensMidTool());
  t.equal(cut.calls()[0]?.arguments, '{"path": "notes.txt", "content": "Hel');
  t.equal(cut.errors().length, 1);
  t.equal(cut.errors()[0]?.code, 'invalid_tool_arguments');

  t.strictSame(parseArguments(''), { ok: true, value: {} });
  t.strictSame(parseArguments(' \r\n\t'), { ok: true, value: {} });
  t.strictSame(parseArguments('{}'), { ok: true, value: {} });
  t.strictSame(parseArguments('[1]'), { ok: true, value: [1] });
  t.equal(parseArguments('{"a":').ok, false);
  t.equal(parseArguments(' x').ok, false);
});

t.test('calls without a done are parsed from their deltas when the response ends', async (t) => {
  const acc = createToolArgsAccumulator();
  const emit = (): void => {};
  const events: UnifiedEvent[] = [start('r', 'm'), toolStart(0, 'a', 'f'), toolDelta(0, 'a', '{"x"'), toolDelta(0, 'a', ': 1}')];
  for (const ev of events) acc.push(ev, emit);
  t.strictSame(acc.calls()[0], { choice: 0, index: 0, id: 'a', name: 'f', done: false, argumentsText: '{"x": 1}', arguments: undefined, providerExecuted: false });
  acc.push(done('tool_use', 'tool_calls'), emit);
  t.strictSame(acc.calls()[0], { choice: 0, index: 0, id: 'a', name: 'f', done: false, argumentsText: '{"x": 1}', arguments: { x: 1 }, providerExecuted: false });
  // The next response starts clean.
  acc.push(start('r2', 'm'), emit);
  t.strictSame(acc.calls(), []);
});

t.test('keyed by choice + id', async (t) => {
  const acc = createToolArgsAccumulator();
  runStage(acc, [
    start('r', 'm'),
    toolStart(0, 'call_0', 'f'),
    toolStart(0, 'call_0', 'g', { choice: 1 }),
    toolDelta(0, 'call_0', '{"c":0}'),
    toolDelta(0, 'call_0', '{"c":1}', { choice: 1 }),
  ]);
  t.strictSame(acc.preview('call_0'), { c: 0 });
  t.strictSame(acc.preview('call_0', 1), { c: 1 });
  t.strictSame(acc.calls().map((c) => [c.choice, c.name]), [
    [0, 'f'],
    [1, 'g'],
  ]);
});

t.test('linear preview: 20,000 one-character deltas with preview() after each', async (t) => {
  const args = JSON.stringify({ path: 'a.md', body: 'line\n'.repeat(1500), tags: Array.from({ length: 400 }, (_, i) => `t${i}`) });
  const text = args.slice(0, -1) + ',"z":"' + 'q'.repeat(20_000 - args.length - 7) + '"}';
  t.equal(text.length, 20_000);
  const call = new ToolCall(0, 0, 'call_big', 'write', 1 << 20);
  let defined = 0;
  for (const ch of text) {
    call.parts.push(ch);
    if (call.preview() !== undefined) defined++;
  }
  t.equal(defined, 20_000);
  t.equal(call.scanned, text.length, 'the preview parser examined each character exactly once');
  t.strictSame(call.preview(), JSON.parse(text));

  // The same through the accumulator.
  const acc = createToolArgsAccumulator();
  const emit = (): void => {};
  acc.push(start('r', 'm'), emit);
  acc.push(toolStart(0, 'call_big', 'write'), emit);
  for (const ch of text) {
    acc.push(toolDelta(0, 'call_big', ch), emit);
    acc.preview('call_big');
  }
  t.strictSame(acc.preview('call_big'), JSON.parse(text));
  acc.push(toolDone(0, 'call_big', 'write', text), emit);
  t.strictSame(acc.calls()[0]?.arguments, JSON.parse(text));
});

t.test('no preview asked, no parsing done', async (t) => {
  const call = new ToolCall(0, 0, 'c', 'f', 100);
  call.parts.push('{"a":1}');
  t.equal(call.scanned, 0);
});

t.test('limits: maxToolArgumentBytes per call (UTF-8), maxBlocks on calls', async (t) => {
  const ok: UnifiedEvent[] = [start('r', 'm'), toolStart(0, 'a', 'f'), toolDelta(0, 'a', '{"k":"'), toolDelta(0, 'a', '€"}')];
  t.doesNotThrow(() => runStage(createToolArgsAccumulator({ maxToolArgumentBytes: 11 }), ok));
  const err = t.throws(() => runStage(createToolArgsAccumulator({ maxToolArgumentBytes: 10 }), ok)) as LimitExceededError;
  t.type(err, LimitExceededError);
  t.equal(err.limit, 'maxToolArgumentBytes');
  const atDone = t.throws(() =>
    runStage(createToolArgsAccumulator({ maxToolArgumentBytes: 4 }), [start('r', 'm'), toolDone(0, 'a', 'f', '{"a":1}')]),
  ) as LimitExceededError;
  t.equal(atDone.limit, 'maxToolArgumentBytes');
  const blocks = t.throws(() =>
    runStage(createToolArgsAccumulator({ maxBlocks: 1 }), [start('r', 'm'), toolStart(0, 'a', 'f'), toolStart(1, 'b', 'g')]),
  ) as LimitExceededError;
  t.equal(blocks.limit, 'maxBlocks');
});
