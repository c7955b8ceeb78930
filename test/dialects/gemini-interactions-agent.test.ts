/**
 * Gemini Interactions run by an agent (`interaction.agent`): an agent session
 * of one turn. No capture of an agent run exists: the fixtures
 * (fixtures/gemini-interactions/agent-*.sse) are hand-written from js-genai's
 * interaction SSE event, step and agent-option types (their first line says so).
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { detectedDialect, stable } from '../helpers/decode.js';
import { ofType } from '../helpers/events.js';

const DIALECT = 'gemini-interactions';
const finals = (input: Buffer): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [input]) as FinalResult[];

t.test('a deep-research run: thoughts, a search and its result, the report; the session summary carries the interaction usage once', (t) => {
  const bytes = fixture(`${DIALECT}/agent-deep-research.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(ofType(events, 'session').map((e) => [e.kind, e.id ?? null, e.model ?? null, e.stop ?? null]), [
    ['start', 'v1_agentrun_dr01', 'deep-research-preview-04-2026', null],
    ['end', null, null, 'end_turn'],
  ]);
  t.same(events.filter((e) => e.session !== 'v1_agentrun_dr01'), [{ type: 'raw', event: '[DONE]' }], 'every event names the run (but the [DONE] after it)');
  const [turn, session, ...rest] = finals(bytes);
  t.same(rest, []);
  t.same([turn!.model, turn!.session, turn!.text, turn!.reasoning], [
    'deep-research-preview-04-2026',
    'v1_agentrun_dr01',
    '# Report\n\nAgent sessions stream many turns over one connection.',
    'Planning the research: find recent surveys.Two providers stream whole sessions.',
  ]);
  t.same(turn!.content.map((c) => c.type), ['reasoning', 'tool_call', 'tool_result', 'reasoning', 'text']);
  t.equal(session!.kind, 'session');
  t.same(session!.usage, turn!.usage, 'the same figure, not added to the turn');
  t.same([session!.usage.inputTokens, session!.usage.outputTokens, session!.usage.totalTokens], [6000, 910, 6910]);
  t.same(session!.summary, { turns: 1, failedTurns: 0, reportedTurns: null, stop: 'end_turn', pending: [], usageFrom: 'session', cost: null });
  t.end();
});

t.test('an agent run that requires action names the function calls it waits on', (t) => {
  const bytes = fixture(`${DIALECT}/agent-requires-action.sse`);
  stable(t, bytes);
  const [turn, session] = finals(bytes);
  t.same(turn!.toolCalls, [{ id: 'fc_repo', name: 'ask_user', arguments: { question: 'Which repository?' } }]);
  t.same([session!.summary!.stop, session!.summary!.pending, session!.stopReason], ['requires_action', ['fc_repo'], 'tool_use']);
  t.end();
});

t.test('a model interaction (no agent) makes no session', (t) => {
  const fs = finals(fixture(`${DIALECT}/text.sse`));
  t.same(fs.map((f) => f.kind ?? 'turn'), ['turn']);
  t.equal(fs[0]!.session, undefined);
  t.end();
});
