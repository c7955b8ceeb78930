/**
 * The Claude Agent SDK's message stream (`claude -p --output-format
 * stream-json`). fixtures/claude-agent-sdk/ is hand-written from the Agent SDK
 * TypeScript reference's message types (see its README); the corpus file is
 * vercel/ai's hand-built subagent stream.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { fixture, repoRoot } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable } from '../helpers/decode.js';
import { ofType } from '../helpers/events.js';

const DIALECT = 'claude-agent-sdk';
const finals = (input: Buffer): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [input]) as FinalResult[];
const turns = (fs: FinalResult[]): FinalResult[] => fs.filter((f) => f.kind === undefined);
const sessionOf = (fs: FinalResult[]): FinalResult[] => fs.filter((f) => f.kind === 'session');

t.test('partial messages: stream_event deltas and the assistant messages that repeat them are the same content once', (t) => {
  const bytes = fixture(`${DIALECT}/stream-json-partial.ndjson`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  t.same(decodeEvents(bytes, { dialect: DIALECT }), events, 'forced: the same events');
  const texts = ofType(events, 'text_delta').map((e) => e.text);
  t.same(texts, ['Let me list ', 'the files.', 'There are two entries: ', 'README.md and src.'], 'each text once, from the stream');
  t.ok(events.every((e: UnifiedEvent) => e.type !== 'start' || e.session === '3f1c2a9e-5b7d-4e21-9a0c-7d8e6f5a4b3c'), 'starts carry the session id');
  t.same(ofType(events, 'start').map((e) => e.turn), ['msg_01A', 'msg_01B'], 'turn = message id');

  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.turn, f.text, f.content.map((c) => c.type), f.stopReason, f.providerReason]), [
    ['msg_01A', 'Let me list the files.', ['text', 'tool_call', 'tool_result'], 'end', 'tool_use'],
    ['msg_01B', 'There are two entries: README.md and src.', ['text'], 'end', 'end_turn'],
  ]);
  t.same(turns(fs)[0]!.toolCalls, [], 'the harness ran the call: nothing for the client to run');
  t.same(turns(fs).map((f) => f.usage.outputTokens), [42, 12], 'per-turn usage from the stream (message_delta)');
  const [s, ...more] = sessionOf(fs);
  t.same(more, []);
  t.equal(fs.at(-1), s, 'the session final comes last');
  t.same(s!.summary, { turns: 2, failedTurns: 0, reportedTurns: 2, stop: 'end_turn', pending: [], usageFrom: 'session', cost: { amount: 0.0213, currency: 'USD' } });
  // result.usage: 8 + 1260 + 9200 input (cache writes and reads included), 54 output: the session's own figure, not the turns' sum added to it.
  t.same([s!.usage.inputTokens, s!.usage.outputTokens, s!.usage.cachedInputTokens], [10468, 54, 9200]);
  t.equal(s!.id, '3f1c2a9e-5b7d-4e21-9a0c-7d8e6f5a4b3c');
  t.equal(s!.dialect, DIALECT);
  t.end();
});

t.test('subagent turns are their own lane; error_max_turns; a root call left without result', (t) => {
  const bytes = fixture(`${DIALECT}/subagent-max-turns.ndjson`);
  const events = stable(t, bytes);
  t.same(
    [...new Set(events.filter((e) => e.streamId !== undefined).map((e) => `${e.streamId}/${e.agent}`))],
    ['toolu_task/toolu_task'],
    'the subagent lane and agent: the Agent call that runs it',
  );
  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.turn, f.streamId ?? null, f.stopReason]), [
    ['msg_S1', 'toolu_task', 'end'],
    ['msg_S2', 'toolu_task', 'end'],
    ['msg_R1', null, 'end'],
    ['msg_R2', null, 'end'], // its call never ran (max turns), but it was the harness's to run, not the client's
  ]);
  t.same(turns(fs)[2]!.content.at(-1), { type: 'tool_result', id: 'toolu_task', name: 'Agent', result: [{ type: 'text', text: '120 lines.' }] }, "the subagent's answer is the root call's result");
  const s = sessionOf(fs)[0]!;
  t.same([s.summary!.stop, s.providerReason, s.stopReason, s.summary!.turns, s.summary!.reportedTurns], ['max_turns', 'error_max_turns', 'max_tokens', 4, 2]);
  t.end();
});

t.test('vercel/ai subagent-step-stream.json (JSON array, no ids, no result): turns close when their calls have results; summary at the end', (t) => {
  const bytes = fixture(`corpus/${DIALECT}/vercel-ai--subagent-step-stream.json`);
  t.equal(detectedDialect(bytes), DIALECT);
  stable(t, bytes);
  const fs = finals(bytes);
  t.same(turns(fs).map((f) => [f.streamId ?? null, f.content.map((c) => c.type), f.errors]), [
    ['toolu_main_agent', ['tool_call', 'tool_call', 'tool_result', 'tool_result'], []],
    [null, ['reasoning', 'tool_call', 'tool_result'], []],
  ]);
  // Two messages of one turn repeat the same usage: taken once, not added.
  t.same(turns(fs)[1]!.usage, { inputTokens: 7905, outputTokens: 5, totalTokens: 7910, reasoningTokens: null, cachedInputTokens: 2298 });
  const s = sessionOf(fs)[0]!;
  t.same(s.summary, { turns: 2, failedTurns: 0, reportedTurns: null, stop: null, pending: [], usageFrom: 'turns', cost: null });
  t.equal(s.usage.inputTokens, 7905 + 8545, 'no session figure: the turns summed');
  t.end();
});

t.test('a stream cut inside a streamed message: incomplete_stream for that turn', (t) => {
  const whole = fixture(`${DIALECT}/stream-json-partial.ndjson`).toString('utf8').split('\n');
  const cut = Buffer.from(whole.slice(0, 4).join('\n') + '\n');
  const fs = finals(cut);
  t.same(turns(fs).map((f) => [f.text, f.stopReason, f.errors.map((e) => e.code)]), [['Let me list ', 'error', ['incomplete_stream']]]);
  t.same(sessionOf(fs)[0]!.summary!.failedTurns, 1);
  t.end();
});

t.test('CLI: --out final prints one line per turn, then the session line; doctor reports each turn', async (t) => {
  const file = join(repoRoot, 'fixtures', DIALECT, 'stream-json-partial.ndjson');
  const r = await runCli(['--out', 'final', file]);
  t.equal(r.code, 0);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as FinalResult);
  t.same(lines.map((f) => [f.kind ?? null, f.turn ?? null]), [[null, 'msg_01A'], [null, 'msg_01B'], ['session', null]]);
  t.match(r.stdout.trim().split('\n').at(-1)!, /"kind":"session"/);
  const d = await runCli(['doctor', file]);
  t.equal(d.code, 0);
  t.match(d.stdout, /dialect claude-agent-sdk, 2 responses/);
  t.match(d.stdout, /response 1: id msg_01A/);
  t.match(d.stdout, /response 2: id msg_01B/);
  t.notMatch(d.stdout, /trailing_data/, 'the result after the last turn is no trailing data');
});

t.test("a session first seen on a subagent's message: one session final, not one per lane", (t) => {
  const input = Buffer.from(
    [
      { type: 'assistant', parent_tool_use_id: 'toolu_x', session_id: 's9', message: { id: 'm1', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' } },
      { type: 'result', subtype: 'success', session_id: 's9', num_turns: 1 },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\n',
  );
  const events = stable(t, input);
  t.equal(ofType(events, 'session')[0]!.streamId, 'toolu_x', "the session's start came on the subagent's lane");
  const fs = finals(input);
  t.same(fs.map((f) => [f.kind ?? 'turn', f.streamId ?? null, f.summary?.turns ?? null]), [
    ['turn', 'toolu_x', null],
    ['session', null, 1],
  ]);
  t.end();
});

t.test('message ids decide whether a message continues the turn, results or not', (t) => {
  const msg = (id: string, block: object): object => ({ type: 'assistant', parent_tool_use_id: null, session_id: 's', message: { id, content: [block] } });
  const result = (id: string): object => ({ type: 'user', parent_tool_use_id: null, session_id: 's', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
  const input = Buffer.from(
    [
      msg('m1', { type: 'tool_use', id: 'a', name: 'Bash', input: {} }),
      msg('m1', { type: 'tool_use', id: 'b', name: 'Bash', input: {} }),
      result('a'),
      msg('m1', { type: 'text', text: 'same message' }), // after a result, but the same id: the same turn
      result('b'),
      msg('m2', { type: 'text', text: 'next' }),
    ]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\n',
  );
  stable(t, input);
  t.same(turns(finals(input)).map((f) => [f.turn, f.content.map((c) => c.type)]), [
    ['m1', ['tool_call', 'tool_call', 'tool_result', 'text', 'tool_result']],
    ['m2', ['text']],
  ]);
  t.end();
});
