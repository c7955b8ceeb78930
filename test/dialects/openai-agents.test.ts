/**
 * OpenAI Agents API session events. No capture exists: the fixtures
 * (fixtures/openai-agents/, see its README) are hand-written from
 * openai/openai-ruby's agent session event models.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable } from '../helpers/decode.js';
import { ofType } from '../helpers/events.js';
import { typedSse } from '../helpers/sse.js';
import { createDiagnosis, formatReport } from '../../lib/doctor/index.js';

const DIALECT = 'openai-agents';
const finals = (input: Buffer | string): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [Buffer.from(input)]) as FinalResult[];
const turns = (fs: FinalResult[]): FinalResult[] => fs.filter((f) => f.kind === undefined);
const sessionOf = (fs: FinalResult[]): FinalResult => fs.find((f) => f.kind === 'session')!;

t.test("interleaved root and subagent turns: each its own final, the subagent's on its lane", (t) => {
  const bytes = fixture(`${DIALECT}/subagent-interleaved.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(decodeEvents(bytes, { dialect: DIALECT }), events, 'forced: the same events');
  t.same(
    ofType(events, 'text_delta').map((e) => [e.turn, e.streamId ?? null, e.text]),
    [
      ['turn_root1', null, 'Starting a '],
      ['turn_subA1', 'sub_A', 'Found 3 '],
      ['turn_root1', null, 'researcher.'],
      ['turn_subA1', 'sub_A', 'papers.'],
      ['turn_root1', null, ' Done.'], // the done text's tail
    ],
  );
  t.ok(
    events.filter((e) => e.type !== 'session' && e.type !== 'raw').every((e) => e.session === 'asess_01'),
    'every turn event names the session',
  );
  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.turn, f.agent ?? null, f.text, f.reasoning, f.stopReason]), [
    ['turn_subA1', 'sub_A', 'Found 3 papers.', '', 'end'],
    ['turn_root1', null, 'Starting a researcher. Done.', 'Split the work.', 'end'],
  ]);
  const root = turns(fs)[1]!;
  t.same(root.content.slice(2), [
    { type: 'tool_call', id: 'web_1', name: 'web_search', arguments: {}, providerExecuted: true },
    { type: 'tool_result', id: 'web_1', name: 'web_search', result: [{ url: 'https://example.com/a' }] },
  ]);
  t.same(root.usage, { inputTokens: 1000, outputTokens: 80, totalTokens: 1080, reasoningTokens: 20, cachedInputTokens: 600 });
  const s = sessionOf(fs);
  t.same(s.summary, { turns: 2, failedTurns: 0, reportedTurns: null, stop: 'end_turn', pending: [], usageFrom: 'session', cost: null });
  t.same([s.id, s.model, s.usage.inputTokens, s.usage.outputTokens], ['asess_01', 'gpt-5.1', 1400, 110], "the session's own cumulative usage");
  t.end();
});

t.test('requires_action: the function call is the client to run; the session waits on its call_id', (t) => {
  const bytes = fixture(`${DIALECT}/requires-action.sse`);
  stable(t, bytes);
  const fs = finals(bytes);
  t.same(turns(fs)[0]!.toolCalls, [{ id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris' } }]);
  t.equal(turns(fs)[0]!.stopReason, 'tool_use');
  t.same([sessionOf(fs).summary!.stop, sessionOf(fs).summary!.pending], ['requires_action', ['call_weather']]);
  t.end();
});

t.test('a failed turn, a cancelled turn, a failed session', (t) => {
  const bytes = fixture(`${DIALECT}/turn-failed.sse`);
  stable(t, bytes);
  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.turn, f.text, f.stopReason, f.providerReason, f.errors.map((e) => e.code)]), [
    ['turn_bad', 'Let me ', 'error', 'failed', ['server_overloaded']],
    ['turn_cx', '', 'other', 'cancelled', []],
  ]);
  const s = sessionOf(fs);
  t.same([s.summary!.stop, s.summary!.turns, s.summary!.failedTurns, s.stopReason], ['failed', 2, 1, 'error']);
  t.equal(fs.length, 3, 'no final of its own for the session failure');
  t.end();
});

t.test('a session cut off mid-turn: incomplete_stream, then the summary without a stop', (t) => {
  const input = typedSse(
    { type: 'agent.session.turn.created', event_id: 'e1', session_id: 's1', turn_id: 't1', turn: { id: 't1', subagent_id: null } },
    { type: 'agent.session.turn.output_text.delta', event_id: 'e2', session_id: 's1', turn_id: 't1', item_id: 'm', output_index: 0, content_index: 0, delta: 'Hi' },
  );
  const fs = finals(input);
  t.same(fs.map((f) => [f.kind ?? 'turn', f.text, f.stopReason]), [['turn', 'Hi', 'error'], ['session', '', 'other']]);
  t.same(fs[0]!.errors.map((e) => e.code), ['incomplete_stream']);
  t.same([fs[1]!.id, fs[1]!.summary!.stop, fs[1]!.summary!.failedTurns], ['s1', null, 1], 'first seen mid-stream: the session id from the events');
  t.end();
});

t.test('doctor: each turn a response, with its session, the subagent turn with its lane and agent', (t) => {
  const d = createDiagnosis({ name: 'x.sse' });
  d.push(fixture(`${DIALECT}/subagent-interleaved.sse`));
  const report = formatReport(d.end());
  t.match(report, /response 1: id turn_root1, session asess_01, model gpt-5\.1/);
  t.match(report, /response 2: id turn_subA1, lane sub_A, agent sub_A, session asess_01/);
  t.notMatch(report, /trailing_data/);
  t.end();
});
