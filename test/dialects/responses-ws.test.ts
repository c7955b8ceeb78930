/**
 * Responses WebSocket mode (issue 35): several responses on one socket
 * (lanes, `stream_id`), steering, injected input, multi-agent tags, warm-up
 * responses, and the same for xAI and for an SSE log a proxy interleaved.
 * Fixtures: fixtures/openai-responses-ws/ (hand-written, see its README.md).
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Json, JsonObject, SteerEvent, UnifiedEvent } from '../../lib/events.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { serializeLanes } from '../../lib/accumulate/lanes.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { runStage } from '../../lib/stage.js';
import { repoRoot } from '../helpers/corpus.js';
import { decodeEvents, stable } from '../helpers/decode.js';
import { eventLines } from '../helpers/event-lines.js';
import { ofType } from '../helpers/events.js';
import { run } from '../helpers/fast-path.js';
import { runChunks } from '../helpers/run.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { createDiagnosis, formatReport } from '../../lib/doctor/index.js';
import { createResumeTracker } from '../../lib/resume.js';
import type { LossReport } from '../../lib/encode/types.js';

const fixture = (name: string, dir = 'openai-responses-ws'): Buffer => readFileSync(join(repoRoot, 'fixtures', dir, name));
const finalsOf = (events: UnifiedEvent[]): FinalResult[] => runStage(createFinalAccumulator(), events);

/** What a final says, in short (the fields these tests look at). */
const brief = (f: FinalResult) => ({
  streamId: f.streamId,
  agent: f.agent,
  id: f.id,
  text: f.text,
  reasoning: f.reasoning,
  calls: f.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`),
  stop: `${f.stopReason}/${f.providerReason}`,
  errors: f.errors.map((e) => e.code),
  total: f.usage.totalTokens,
});

/** The fixture read under every chunking (one assertion), its finals from the events and from the fused final path (fast path on and off). */
function read(tt: Test, name: string, dir?: string): { events: UnifiedEvent[]; finals: FinalResult[] } {
  const bytes = fixture(name, dir);
  const events = stable(tt, bytes, {}, { quick: true });
  const finals = finalsOf(events);
  tt.same(run([bytes], {}, 'final', false, true), finals, 'fused finals, fast path on = the events folded');
  tt.same(run([bytes], {}, 'final', false, false), finals, 'fused finals, fast path off = the events folded');
  return { events, finals };
}

/** Every event of a lane carries it; each lane's events run start … done, one done per response. */
function lanesWellFormed(tt: Test, events: UnifiedEvent[]): void {
  const open = new Map<string, boolean>();
  for (const e of events) {
    if (e.streamId === undefined) continue;
    if (e.type === 'start') {
      tt.notOk(open.get(e.streamId), `${e.streamId}: start while its response is open`);
      open.set(e.streamId, true);
    } else if (e.type === 'done') {
      tt.ok(open.get(e.streamId), `${e.streamId}: done closes an open response`);
      open.set(e.streamId, false);
    }
  }
  tt.same([...open].filter(([, o]) => o), [], 'every lane closed by the end');
}

t.test('two lanes interleaved event by event: one final each, text and usage not mixed', (tt) => {
  const { events, finals } = read(tt, 'two-lanes.jsonl');
  lanesWellFormed(tt, events);
  tt.ok(events.filter((e) => e.type !== 'raw').every((e) => e.streamId === 'lane_a' || e.streamId === 'lane_b'), 'every event names its lane');
  tt.same(finals.map(brief), [
    { streamId: 'lane_a', agent: undefined, id: 'resp_lane_a', text: 'Alpha', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 13 },
    { streamId: 'lane_b', agent: undefined, id: 'resp_lane_b', text: 'Beta!', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 15 },
  ]);
  const lines = eventLines(events).filter((l) => !l.includes(' raw '));
  tt.same(lines.slice(0, 4), ['[lane_a] start resp_lane_a gpt-6 @0', '[lane_b] start resp_lane_b gpt-6 @0', '[lane_a] text 0/0 "Al" @4', '[lane_b] text 0/0 "Be" @4']);
  tt.end();
});

t.test('three lanes: a text, a function call, reasoning then text', (tt) => {
  const { events, finals } = read(tt, 'three-lanes.jsonl');
  lanesWellFormed(tt, events);
  tt.same(finals.map(brief), [
    { streamId: 's2', agent: undefined, id: 'resp_3b', text: '', reasoning: '', calls: ['get_weather({"city":"Paris"})'], stop: 'tool_use/completed', errors: [], total: 30 },
    { streamId: 's1', agent: undefined, id: 'resp_3a', text: 'One two three.', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 23 },
    { streamId: 's3', agent: undefined, id: 'resp_3c', text: 'Done.', reasoning: 'Thinking.', calls: [], stop: 'end/completed', errors: [], total: 28 },
  ], 'finals in order of completion');
  // serializeLanes: the same events, each lane's run whole, in order of completion
  const serial = runStage(serializeLanes(), events);
  tt.equal(serial.length, events.length, 'serializeLanes keeps every event');
  const runs = serial.filter((e) => e.type === 'start' || e.type === 'done').map((e) => `${e.type} ${e.streamId}`);
  tt.same(runs, ['start s2', 'done s2', 'start s1', 'done s1', 'start s3', 'done s3']);
  tt.same(finalsOf(serial), finals, 'the serialized events fold to the same finals');
  tt.end();
});

t.test('a steer accepted mid-response (capture, both directions): steer event with the sent text, the steered response, its continuation', (tt) => {
  const { events, finals } = read(tt, 'steer-accepted.ws.jsonl');
  const steers = ofType(events, 'steer');
  tt.equal(steers.length, 1);
  const { raw: _raw, ...steer } = steers[0] as SteerEvent;
  tt.same(steer, { type: 'steer', kind: 'steer', status: 'accepted', id: 'steer_01', responseId: 'resp_steer1', input: 'Keep it to two weeks.', text: 'Keep it to two weeks.', cursor: 6 });
  tt.same(finals.map(brief), [
    { streamId: undefined, agent: undefined, id: 'resp_steer1', text: 'Plan: build everything', reasoning: '', calls: [], stop: 'other/steered', errors: [], total: 33 },
    { streamId: undefined, agent: undefined, id: 'resp_steer2', text: 'Plan: two weeks.', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 44 },
  ]);
  tt.ok(ofType(events, 'error').length === 0, 'no sequence gap: the steer answer takes its sequence number in the response');
  tt.end();
});

t.test('a failed steer is a non-terminal error of its lane; a pending one says what it waits for', (tt) => {
  const { events, finals } = read(tt, 'steer-failed-pending.jsonl');
  lanesWellFormed(tt, events);
  const steers = ofType(events, 'steer').map(({ raw: _raw, cursor: _c, ...s }) => s);
  tt.same(steers, [
    {
      type: 'steer', kind: 'steer', status: 'failed', id: 'steer_x', responseId: 'resp_f1', streamId: 'left',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Shorter please.' }] }], text: 'Shorter please.',
    },
    { type: 'steer', kind: 'steer', status: 'accepted', id: 'steer_y', responseId: 'resp_f2', streamId: 'right' },
    {
      type: 'steer', kind: 'steer', status: 'pending', id: 'steer_y', responseId: 'resp_f2', streamId: 'right',
      reason: 'waiting_for_required_input', requiredInput: [{ type: 'function_call_output', call_id: 'call_status', name: 'get_status' }],
    },
  ]);
  const errors = ofType(events, 'error');
  tt.same(errors.map((e) => [e.streamId, e.code, e.terminal]), [['left', 'steering_not_supported', false]]);
  tt.same(finals.map(brief), [
    { streamId: 'right', agent: undefined, id: 'resp_f2', text: '', reasoning: '', calls: ['get_status({})'], stop: 'tool_use/completed', errors: [], total: 21 },
    { streamId: 'left', agent: undefined, id: 'resp_f1', text: 'Still going', reasoning: '', calls: [], stop: 'end/completed', errors: ['steering_not_supported'], total: 17 },
  ], 'the failed steer is in its lane\'s final, which still completes; the steer answers after a response are in no final');
  tt.end();
});

t.test('a lane cut off by the end of the log: incomplete_stream for that lane alone', (tt) => {
  const { events, finals } = read(tt, 'lane-cut-off.jsonl');
  lanesWellFormed(tt, events);
  tt.same(ofType(events, 'error').map((e) => [e.streamId, e.code]), [['cut_lane', 'incomplete_stream']]);
  tt.same(finals.map(brief), [
    { streamId: 'done_lane', agent: undefined, id: 'resp_cut_a', text: 'Finished.', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 10 },
    { streamId: 'cut_lane', agent: undefined, id: 'resp_cut_b', text: 'Half a sen', reasoning: '', calls: [], stop: 'error/null', errors: ['incomplete_stream'], total: null },
  ]);
  tt.end();
});

t.test('warm-up responses (generate: false): finals with no content and no error; a lane reused for the next response', (tt) => {
  const { events, finals } = read(tt, 'warm-up.ws.jsonl');
  lanesWellFormed(tt, events);
  tt.same(finals.map((f) => [f.streamId, f.id, f.content.length, f.errors.length, f.stopReason]), [
    ['w1', 'resp_warm1', 0, 0, 'end'],
    ['w2', 'resp_warm2', 0, 0, 'end'],
    ['w1', 'resp_real', 1, 0, 'end'],
  ]);
  // the client's response.create messages stay raw, on the lane they name
  const sent = ofType(events, 'raw').filter((e) => (e.event as JsonObject)['dir'] === 'send');
  tt.same(sent.map((e) => e.streamId), ['w1', 'w2', 'w1']);
  tt.end();
});

t.test('multi-agent: agent tags on events and finals, injected input, an error naming its agent', (tt) => {
  const { events, finals } = read(tt, 'multi-agent.ws.jsonl');
  lanesWellFormed(tt, events);
  tt.ok(events.filter((e) => e.streamId === 'research' && e.type !== 'raw').every((e) => e.agent === 'researcher'), 'every researcher event tagged');
  tt.ok(events.filter((e) => e.streamId === 'main' && e.type !== 'raw').every((e) => e.agent === 'planner'), 'every planner event tagged');
  const inject = ofType(events, 'steer');
  tt.same(inject.map((e) => [e.kind, e.status, e.responseId, e.streamId, e.agent]), [['inject', 'accepted', 'resp_root', 'main', 'planner']]);
  tt.same(inject[0]?.input, [{ type: 'function_call_output', call_id: 'call_research', output: 'Tides follow the moon.' }], 'the injected input, from the send side');
  tt.same(finals.map(brief), [
    { streamId: 'research', agent: 'researcher', id: 'resp_sub', text: 'Tides follow the moon.', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 35 },
    { streamId: 'main', agent: 'planner', id: 'resp_root', text: 'Summary: the moon.', reasoning: '', calls: ['research({"topic":"tides"})'], stop: 'tool_use/completed', errors: [], total: 58 },
    { streamId: 'critic', agent: 'critic', id: null, text: '', reasoning: '', calls: [], stop: 'error/null', errors: ['rate_limit_exceeded'], total: null },
  ]);
  tt.end();
});

t.test('an SSE log a proxy interleaved with stream_id, and xAI WebSocket mode', (tt) => {
  const proxy = read(tt, 'proxy-interleaved.sse');
  tt.same(proxy.finals.map((f) => [f.streamId, f.dialect, f.text]), [['p1', 'openai-responses', 'Proxy one.'], ['p2', 'openai-responses', 'Proxy two.']]);
  const xai = read(tt, 'ws-two-lanes.jsonl', 'xai-responses');
  tt.same(xai.finals.map((f) => [f.streamId, f.dialect, f.text, f.usage.totalTokens]), [['x1', 'xai-responses', 'Grok one.', 9], ['x2', 'xai-responses', 'Grok two.', 10]]);
  tt.end();
});

// ---------------------------------------------------------------------------
// Property: every interleaving of two short lanes gives the finals of the lanes read one after the other
// ---------------------------------------------------------------------------

/** A short response on lane `lane` (NDJSON lines), with or without its stream_id. */
function laneLines(lane: string, id: string, texts: string[], withLane = true): string[] {
  const tag = (o: JsonObject): string => JSON.stringify(withLane ? { ...o, stream_id: lane } : o);
  let seq = 0;
  const ev = (o: JsonObject): string => tag({ ...o, sequence_number: seq++ });
  const text = texts.join('');
  return [
    ev({ type: 'response.created', response: { id, model: 'gpt-6', status: 'in_progress', output: [] } }),
    ev({ type: 'response.output_item.added', output_index: 0, item: { id: `msg_${id}`, type: 'message', role: 'assistant', content: [] } }),
    ...texts.map((delta) => ev({ type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta })),
    ev({
      type: 'response.completed',
      response: { id, model: 'gpt-6', status: 'completed', output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }], usage: { input_tokens: texts.length, output_tokens: 1, total_tokens: texts.length + 1 } } as Json,
    }),
  ];
}

/** Every interleaving of two lists (order within each kept). */
function* interleavings<T>(a: T[], b: T[]): Generator<T[]> {
  if (a.length === 0) return yield b;
  if (b.length === 0) return yield a;
  for (const rest of interleavings(a.slice(1), b)) yield [a[0]!, ...rest];
  for (const rest of interleavings(a, b.slice(1))) yield [b[0]!, ...rest];
}

t.test('every interleaving of two short lanes gives the same finals as the lanes one after the other', (tt) => {
  const A = laneLines('a', 'resp_A', ['Al', 'pha']);
  const B = laneLines('b', 'resp_B', ['Be', 'ta', '!']);
  const byLane = (fs: FinalResult[]): FinalResult[] => [...fs].sort((x, y) => (x.streamId ?? '').localeCompare(y.streamId ?? ''));
  const decodeLines = (lines: string[]): UnifiedEvent[] => decodeEvents(lines.join('\n') + '\n');
  const sequential = byLane(finalsOf(decodeLines([...A, ...B])));
  tt.same(sequential.map((f) => [f.streamId, f.text]), [['a', 'Alpha'], ['b', 'Beta!']]);
  // the same responses without stream_id take the unlaned path: the same finals but for streamId
  const unlaned = finalsOf(decodeLines([...laneLines('a', 'resp_A', ['Al', 'pha'], false), ...laneLines('b', 'resp_B', ['Be', 'ta', '!'], false)]));
  tt.same(sequential.map(({ streamId: _s, ...f }) => f), unlaned, 'laned finals = unlaned finals (but streamId)');
  let n = 0;
  let differ = 0;
  for (const order of interleavings(A, B)) {
    n++;
    const events = decodeLines(order);
    if (JSON.stringify(byLane(finalsOf(events))) !== JSON.stringify(sequential)) differ++;
  }
  tt.equal(n, 462, 'C(11, 5) interleavings of 5 and 6 events');
  tt.equal(differ, 0, 'no interleaving changes a final');
  tt.end();
});

// ---------------------------------------------------------------------------
// Downstream: encoders and doctor take each lane's response whole
// ---------------------------------------------------------------------------

t.test('encoding laned input: each lane written as a response of its own, in order of completion, the lane reported lost', (tt) => {
  const losses: LossReport[] = [];
  const out = runChunks<Buffer, unknown>(createOutputStage({ to: 'openai-chat', onLoss: (r) => losses.push(r) }), [fixture('three-lanes.jsonl')]);
  tt.equal(out.error, null);
  const chunks = (out.items as string[]).join('').split('\n\n').filter((b) => b.startsWith('data: {')).map((b) => JSON.parse(b.slice(6)) as JsonObject);
  const ids = chunks.map((c) => c['id']);
  tt.same([...new Set(ids)], ['resp_3b', 'resp_3a', 'resp_3c'], 'responses in order of completion');
  tt.ok(ids.every((id, i) => i === 0 || id === ids[i - 1] || !ids.slice(0, i).includes(id)), 'each response written whole (its chunks together)');
  tt.same(losses.map((r) => [r.id, r.dropped.filter((d) => d.what === 'lane').map((d) => d.detail)]), [
    ['resp_3b', ['lane s2']],
    ['resp_3a', ['lane s1']],
    ['resp_3c', ['lane s3']],
  ]);
  const strict = runChunks<Buffer, unknown>(createOutputStage({ to: 'openai-chat', strict: true }), [fixture('two-lanes.jsonl')]);
  tt.match(strict.error?.message ?? '', /lane/, 'strict: a lane the target cannot carry fails the stream');
  tt.end();
});

t.test('doctor: each lane a response of its own, no anomaly in a well-formed log; the cut-off lane alone reported', (tt) => {
  const diagnose = (name: string) => {
    const d = createDiagnosis({ name });
    d.push(fixture(name));
    return d.end();
  };
  const three = diagnose('three-lanes.jsonl');
  tt.same(three.responses.map((r) => [r.id, r.stopReason, r.anomalies.map((a) => a.code)]), [
    ['resp_3b', 'tool_use', []],
    ['resp_3a', 'end', []],
    ['resp_3c', 'end', []],
  ]);
  tt.same(three.anomalies, []);
  const cut = diagnose('lane-cut-off.jsonl');
  tt.same(cut.responses.map((r) => [r.id, r.anomalies.map((a) => a.code)]), [
    ['resp_cut_a', []],
    ['resp_cut_b', ['incomplete_stream']],
  ]);
  tt.end();
});

t.test('text output: a laned response\'s text written whole at its done, unlaned text as it comes', (tt) => {
  const text = (name: string): string => (runChunks<Buffer, unknown>(createOutputStage({ output: 'text' }), [fixture(name)]).items as string[]).join('');
  tt.equal(text('three-lanes.jsonl'), '\nOne two three.\nDone.\n', 'the function call lane ends first, with no text');
  tt.equal(text('steer-accepted.ws.jsonl'), 'Plan: build everything\nPlan: two weeks.\n');
  tt.end();
});

t.test('resume: laned responses (WebSocket mode has no background mode) make no resume point', (tt) => {
  const tracker = createResumeTracker();
  runStage(tracker, decodeEvents(fixture('lane-cut-off.jsonl')));
  tt.same([tracker.point().responseId, tracker.point().cursor], [null, null]);
  tt.end();
});

t.test('doctor names each laned response\'s lane and agent', (tt) => {
  const d = createDiagnosis({ name: 'multi-agent.ws.jsonl' });
  d.push(fixture('multi-agent.ws.jsonl'));
  const report = d.end();
  tt.same(report.responses.map((r) => [r.id, r.streamId, r.agent]), [
    ['resp_sub', 'research', 'researcher'],
    ['resp_root', 'main', 'planner'],
    [null, 'critic', 'critic'],
  ]);
  tt.match(formatReport(report, { color: false }), /response 1: id resp_sub, lane research, agent researcher, model gpt-6/);
  tt.end();
});

t.test('a two-way capture without stream_id whose responses overlap: the later one laned by its response id', (tt) => {
  const { events, finals } = read(tt, 'overlap-no-stream-id.ws.jsonl');
  lanesWellFormed(tt, events);
  tt.same(finals.map(brief), [
    { streamId: undefined, agent: undefined, id: 'resp_ov_a', text: 'Overlap one.', reasoning: '', calls: [], stop: 'end/completed', errors: [], total: 13 },
    { streamId: 'resp_ov_b', agent: undefined, id: 'resp_ov_b', text: '', reasoning: '', calls: ['lookup({"q":"tides"})'], stop: 'tool_use/completed', errors: [], total: 15 },
  ], 'the response that began alone stays unlaned; its new item and the other\'s told apart by sequence_number, then by item id');
  // the same server events without the client's messages: not a capture, so a response.created while one is open cuts it off, as ever
  const serverOnly = fixture('overlap-no-stream-id.ws.jsonl').toString('utf8').split('\n').filter((l) => l.startsWith('{"dir":"recv"')).map((l) => (JSON.parse(l) as { data: string }).data);
  const cut = finalsOf(decodeEvents(serverOnly.join('\n') + '\n'));
  tt.same(cut.map((f) => [f.streamId, f.id, f.stopReason, f.errors.map((e) => e.code)]).slice(0, 1), [[undefined, 'resp_ov_a', 'error', ['incomplete_stream']]]);
  tt.end();
});
