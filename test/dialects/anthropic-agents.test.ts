/**
 * Anthropic Managed Agents session event streams. No capture exists: the
 * fixtures (fixtures/anthropic-agents/, see its README) are hand-written from
 * anthropic-sdk-typescript's BetaManagedAgentsStreamSessionEvents.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { fixture } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable } from '../helpers/decode.js';
import { ofType } from '../helpers/events.js';
import { dataSse } from '../helpers/sse.js';

const DIALECT = 'anthropic-agents';
const finals = (input: Buffer): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [input]) as FinalResult[];
const turns = (fs: FinalResult[]): FinalResult[] => fs.filter((f) => f.kind === undefined);
const sessionOf = (fs: FinalResult[]): FinalResult => fs.find((f) => f.kind === 'session')!;

t.test('previews: the buffered agent.message is authoritative, never twice; a preview without it is kept and flagged', (t) => {
  const bytes = fixture(`${DIALECT}/previews-usage.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(decodeEvents(bytes, { dialect: DIALECT }), events, 'forced: the same events');
  t.same(
    ofType(events, 'text_delta').map((e) => [e.index, e.text]),
    [
      [0, "I'll read "],
      [0, 'the README'],
      [0, ' first.'], // the buffered message's text the previews did not bring
      [3, 'The repo is '],
      [3, 'a tiny demo'],
      [4, 'The repo is a tiny demo.'],
    ],
  );
  const fs = finals(bytes);
  const [turn] = turns(fs);
  t.equal(turn!.text, "I'll read the README first.The repo is a tiny demoThe repo is a tiny demo.");
  t.same(turn!.errors.map((e) => e.code), ['preview_only', 'model_request_failed', 'model_overloaded_error'], 'the unconfirmed preview is flagged');
  t.same(turn!.content.map((c) => c.type), ['text', 'tool_call', 'tool_result', 'text', 'text']);
  t.same(turn!.toolCalls, [], 'the platform ran its tool');
  // Three model requests: (1200+1100) + (1300+1100) + (1300+1100) input, 80+6+9 output.
  t.same([turn!.usage.inputTokens, turn!.usage.outputTokens], [7100, 95], "the turn's usage: its requests summed");
  const s = sessionOf(fs);
  t.same(s.summary, { turns: 1, failedTurns: 0, reportedTurns: null, stop: 'end_turn', pending: [], usageFrom: 'session', cost: { amount: 0.05, currency: 'USD' } });
  t.same([s.usage.inputTokens, s.usage.outputTokens], [7100, 95], 'the cumulative snapshot, seen three times, counted once (not added to the turns)');
  t.equal(fs.filter((f) => f.kind === 'session').length, 1, 'one session line');
  t.end();
});

t.test('requires_action: pending event ids; the custom tool is the client to run', (t) => {
  const bytes = fixture(`${DIALECT}/requires-action.sse`);
  stable(t, bytes);
  const fs = finals(bytes);
  const [turn] = turns(fs);
  t.same([turn!.stopReason, turn!.providerReason], ['tool_use', 'requires_action']);
  t.same(turn!.toolCalls, [{ id: 'sevt_104', name: 'deploy', arguments: { env: 'staging' } }]);
  const s = sessionOf(fs);
  t.same([s.summary!.stop, s.summary!.pending, s.stopReason, s.summary!.usageFrom], ['requires_action', ['sevt_104', 'sevt_105'], 'tool_use', 'turns']);
  t.end();
});

t.test("a subagent thread's events are its lane; retries_exhausted fails the turn", (t) => {
  const bytes = fixture(`${DIALECT}/thread-retries-exhausted.sse`);
  stable(t, bytes);
  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.streamId ?? null, f.agent ?? null, f.stopReason, f.providerReason]), [
    ['sthr_rev', 'sthr_rev', 'end', 'end_turn'],
    [null, null, 'error', 'retries_exhausted'],
  ]);
  t.same(turns(fs)[1]!.errors.map((e) => e.code), ['model_request_failed_error', 'retries_exhausted'], 'the retried error, then why the turn ended');
  t.same(sessionOf(fs).summary!.failedTurns, 1);
  t.same(sessionOf(fs).summary!.stop, 'retries_exhausted');
  t.end();
});

t.test('budget_reached and terminated; a preview delta before its start is raw', (t) => {
  const ev = (o: object): object => ({ id: 'sevt_x', processed_at: '2026-08-20T10:00:00Z', ...o });
  const input = dataSse(
    ev({ type: 'session.status_running' }),
    { type: 'event_delta', event_id: 'nope', delta: { type: 'content_delta', content: { type: 'text', text: 'x' } } },
    ev({ type: 'session.status_idle', stop_reason: { type: 'budget_reached' } }),
    ev({ type: 'session.status_terminated' }),
  );
  const events = decodeEvents(input);
  t.equal(ofType(events, 'raw').length, 1);
  t.same(ofType(events, 'session').map((e) => [e.kind, e.stop ?? null]), [['start', null], ['end', 'budget_reached'], ['end', 'terminated']]);
  const fs = finals(Buffer.from(input));
  t.same(fs.map((f) => [f.kind ?? 'turn', f.stopReason]), [['turn', 'max_tokens'], ['session', 'max_tokens'], ['session', 'other']]);
  t.end();
});

t.test('a preview cut off by the end of the input: kept, flagged, then incomplete_stream', (t) => {
  const input = dataSse(
    { type: 'session.status_running', id: 'sevt_1', processed_at: '2026-08-20T10:00:00Z' },
    { type: 'event_start', event: { type: 'agent.message', id: 'm' } },
    { type: 'event_delta', event_id: 'm', delta: { type: 'content_delta', index: 0, content: { type: 'text', text: 'Half' } } },
  );
  stable(t, Buffer.from(input));
  const [turn] = finals(Buffer.from(input));
  t.same([turn!.text, turn!.stopReason, turn!.errors.map((e) => e.code)], ['Half', 'error', ['preview_only', 'incomplete_stream']]);
  t.end();
});
