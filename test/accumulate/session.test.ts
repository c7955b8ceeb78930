/**
 * Agent session summaries (lib/accumulate/session.ts through the final
 * accumulator): unified events written by hand, as the agent session
 * dialects emit them.
 */
import t from 'tap';
import type { UnifiedEvent, Usage } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { FinalResult } from '../../lib/accumulate/types.js';

const fold = (events: UnifiedEvent[]): FinalResult[] => runStage(createFinalAccumulator(), events) as FinalResult[];
const u = (input: number, output: number): Usage => ({ inputTokens: input, outputTokens: output, totalTokens: input + output, reasoningTokens: null, cachedInputTokens: null });
const usage = (input: number, output: number, lane?: string): UnifiedEvent => ({ type: 'usage', ...u(input, output), raw: null, ...(lane === undefined ? {} : { streamId: lane }) });
const turn = (id: string, input: number, output: number, stop: 'end' | 'error' = 'end', lane?: string): UnifiedEvent[] => {
  const l = lane === undefined ? {} : { streamId: lane };
  return [
    { type: 'start', id, model: 'm', dialect: 'openai-agents', session: 's1', turn: id, ...l },
    { type: 'text_delta', index: 0, text: id, ...l },
    usage(input, output, lane),
    { type: 'done', stopReason: stop, providerReason: null, ...l },
  ];
};
const start = (id: string): UnifiedEvent => ({ type: 'session', kind: 'start', id, model: 'gpt' });

t.test('no session events: no session final', (t) => {
  t.same(fold(turn('a', 1, 2)).map((f) => f.kind ?? 'turn'), ['turn']);
  t.end();
});

t.test("the turns' usage summed when the session gives none; its turns and failed turns, every lane's", (t) => {
  const fs = fold([
    start('s1'),
    ...turn('t1', 10, 1),
    // a subagent's turn interleaved with the root's next one
    { type: 'start', id: 't2', model: 'm', streamId: 'sub' },
    ...turn('t3', 30, 3, 'error'),
    { type: 'text_delta', index: 0, text: 'x', streamId: 'sub' },
    usage(20, 2, 'sub'),
    { type: 'done', stopReason: 'end', providerReason: null, streamId: 'sub' },
    { type: 'session', kind: 'end', stop: 'end_turn', providerReason: 'idle' },
  ]);
  t.same(fs.map((f) => f.kind ?? f.id), ['t1', 't3', 't2', 'session']);
  const s = fs.at(-1)!;
  t.same(s.summary, { turns: 3, failedTurns: 1, reportedTurns: null, stop: 'end_turn', pending: [], usageFrom: 'turns', cost: null });
  t.same(s.usage, u(60, 6));
  t.same([s.id, s.session, s.model, s.dialect, s.stopReason, s.providerReason], ['s1', 's1', 'gpt', 'openai-agents', 'end', 'idle']);
  t.end();
});

t.test('cumulative snapshots: the last one is the usage, never added to the turns or to each other', (t) => {
  const fs = fold([
    start('s1'),
    ...turn('t1', 10, 1),
    { type: 'session', kind: 'usage', usage: u(10, 1), cost: { amount: 0.01, currency: 'USD' } },
    ...turn('t2', 20, 2),
    { type: 'session', kind: 'usage', usage: u(30, 3), cost: { amount: 0.03, currency: 'USD' } },
    { type: 'session', kind: 'usage', usage: u(30, 3), cost: { amount: 0.03, currency: 'USD' } },
    { type: 'session', kind: 'end', stop: 'requires_action', pending: ['call_1'] },
  ]);
  const s = fs.at(-1)!;
  t.same(s.usage, u(30, 3));
  t.same([s.summary!.usageFrom, s.summary!.cost, s.summary!.pending, s.stopReason], ['session', { amount: 0.03, currency: 'USD' }, ['call_1'], 'tool_use']);
  t.end();
});

t.test('a session that never stops is summed up at the end; one that stopped is not summed up again', (t) => {
  const open = fold([start('s1'), ...turn('t1', 1, 1)]);
  t.same(open.map((f) => [f.kind ?? 'turn', f.summary?.stop ?? null]), [['turn', null], ['session', null]]);
  const stopped = fold([start('s1'), ...turn('t1', 1, 1), { type: 'session', kind: 'end', stop: 'end_turn' }, ...turn('t2', 1, 1)]);
  t.same(stopped.map((f) => f.kind ?? 'turn'), ['turn', 'session', 'turn'], 'turns after the stop wait for the next stop');
  t.end();
});

t.test('each stop of a resumed session: cumulative counts', (t) => {
  const fs = fold([start('s1'), ...turn('t1', 1, 1), { type: 'session', kind: 'end', stop: 'end_turn' }, ...turn('t2', 2, 2), { type: 'session', kind: 'end', stop: 'failed' }]);
  t.same(fs.filter((f) => f.kind === 'session').map((f) => [f.summary!.turns, f.summary!.stop, f.usage.inputTokens]), [[1, 'end_turn', 1], [2, 'failed', 3]]);
  t.end();
});

t.test('another session begins: the open one is summed up first, its stop unknown', (t) => {
  const fs = fold([start('s1'), ...turn('t1', 1, 1), start('s2'), ...turn('t2', 2, 2), { type: 'session', kind: 'end', stop: 'cancelled' }]);
  t.same(fs.map((f) => [f.kind ?? 'turn', f.id, f.summary?.turns ?? null, f.summary?.stop ?? null]), [
    ['turn', 't1', null, null],
    ['session', 's1', 1, null],
    ['turn', 't2', null, null],
    ['session', 's2', 1, 'cancelled'],
  ]);
  t.end();
});

t.test('Realtime session notices make no session final', (t) => {
  const fs = fold([{ type: 'session', kind: 'go_away', timeLeft: '10s' }, ...turn('t1', 1, 1), { type: 'session', kind: 'resumption', newHandle: 'h' }]);
  t.same(fs.map((f) => f.kind ?? 'turn'), ['turn']);
  t.end();
});
