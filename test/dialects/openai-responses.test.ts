import t, { type Test } from 'tap';
import type { CitationEvent, DialectOption, Json, JsonObject, UnifiedEvent } from '../../lib/events.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { runStage } from '../../lib/stage.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents, stable, type Input } from '../helpers/decode.js';
import { eventLines, outlineLines } from '../helpers/event-lines.js';
import { isObj, ofType, rawPayloads, startDialect } from '../helpers/events.js';
import { parsedTexts, run } from '../helpers/fast-path.js';
import { typedSse as sse } from '../helpers/sse.js';

const DIALECT = 'openai-responses';

const decode = (input: Input, dialect: DialectOption = DIALECT): UnifiedEvent[] => decodeEvents(input, { dialect });

/** One line per event: exact, readable expectations (raw payloads reduced to their type, refusals marked). */
const lines = (events: UnifiedEvent[]): string[] => eventLines(events, { refusal: true });

/** Every chunking of `input` gives exactly the events of the whole input. */
const sameUnderChunkings = (tt: Test, input: Buffer, quick = false): UnifiedEvent[] =>
  stable(tt, input, { dialect: DIALECT }, { quick, message: 'identical under every chunking' });

/** The finals of decoded events. */
const finalsOf = (events: UnifiedEvent[]): FinalResult[] => runStage(createFinalAccumulator(), events);

/** A citation without its provider object (checked apart). */
const noRaw = ({ raw: _raw, ...rest }: CitationEvent): Omit<CitationEvent, 'raw'> => rest;

/** Splits events into responses: each starts at `start` (or at a lone done) and ends at its `done`. */
function responses(events: UnifiedEvent[]): UnifiedEvent[][] {
  const out: UnifiedEvent[][] = [];
  let cur: UnifiedEvent[] | null = null;
  for (const e of events) {
    if (cur === null && (e.type === 'start' || e.type === 'done' || e.type === 'error' || e.type === 'text_delta')) cur = [];
    if (cur !== null) cur.push(e);
    if (e.type === 'done') {
      out.push(cur!);
      cur = null;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

const texts = (events: UnifiedEvent[], type: 'text_delta' | 'reasoning_delta'): Map<string, string> => {
  const m = new Map<string, string>();
  for (const e of events) if (e.type === type) m.set(`${e.index}/${e.contentIndex}`, (m.get(`${e.index}/${e.contentIndex}`) ?? '') + e.text);
  return m;
};

// ---------------------------------------------------------------------------
// Fixtures: exact event sequences

t.test('fixture: text', (tt) => {
  const input = fixture('openai-responses/text.sse');
  const events = decode(input);
  tt.same(lines(events), [
    'start resp_text01 gpt-5.4-nano-2026-03-17 @0',
    'raw response.created @0',
    'raw response.in_progress @1',
    'raw response.output_item.added @2',
    'raw response.content_part.added @3',
    'text 0/0 "Hel" @4',
    'text 0/0 "lo, " @5',
    'text 0/0 "wörld " @6',
    'text 0/0 "— ok." @7',
    'raw response.output_text.done @8',
    'raw response.content_part.done @9',
    'raw response.output_item.done @10',
    'raw response.completed @11',
    'usage in=12 out=6 total=18 reasoning=0 cached=0 @11',
    'done end completed @11',
  ]);
  tt.equal(startDialect(events), DIALECT, 'start is stamped with the dialect');
  const usage = ofType(events, 'usage')[0]!;
  tt.same(usage.raw, { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 });
  tt.same(lines(decode(input, 'auto')), lines(events), 'auto-detects openai-responses');
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: reasoning summary + encrypted content + fragmented function call + reasoning usage', (tt) => {
  const input = fixture('openai-responses/reasoning-function-call.sse');
  const events = decode(input);
  tt.same(lines(events), [
    'start resp_rfc01 gpt-5.4-2026-03-05 @0',
    'raw response.created @0',
    'raw response.in_progress @1',
    'raw response.output_item.added @2',
    'raw response.reasoning_summary_part.added @3',
    'reasoning 0/0 "**Checking" @4',
    'reasoning 0/0 "** the weather" @5',
    'reasoning 0/0 " for Paris." @6',
    'raw response.reasoning_summary_text.done @7',
    'raw response.reasoning_summary_part.done @8',
    'signature 0 encrypted_content gAAAAABpEncryptedBlobAAA== @9',
    'raw response.output_item.done @9',
    'tool_start 1 call_Xk2pWeather get_weather @10',
    'tool_delta 1 call_Xk2pWeather {" @11',
    'tool_delta 1 call_Xk2pWeather city @12',
    'tool_delta 1 call_Xk2pWeather ":" @13',
    'tool_delta 1 call_Xk2pWeather Par @14',
    'tool_delta 1 call_Xk2pWeather is @15',
    'tool_delta 1 call_Xk2pWeather ","unit":"c"} @16',
    'tool_done 1 call_Xk2pWeather get_weather {"city":"Paris","unit":"c"} @17',
    'raw response.output_item.done @18',
    'raw response.completed @19',
    'usage in=320 out=148 total=468 reasoning=128 cached=256 @19',
    'done tool_use completed @19',
  ]);
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: refusal', (tt) => {
  const input = fixture('openai-responses/refusal.sse');
  const events = decode(input);
  tt.same(lines(events).slice(5), [
    'text 0/0 "I\'m sorry," refusal @4',
    'text 0/0 " but I can\'t help with that." refusal @5',
    'raw response.refusal.done @6',
    'raw response.content_part.done @7',
    'raw response.output_item.done @8',
    'raw response.completed @9',
    'usage in=40 out=11 total=51 reasoning=0 cached=0 @9',
    'done end completed @9',
  ]);
  const td = ofType(events, 'text_delta')[0]!;
  tt.same(Object.keys(td), ['type', 'index', 'contentIndex', 'text', 'refusal', 'cursor'], 'refusal flag on the text event');
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: incomplete (max_output_tokens)', (tt) => {
  const input = fixture('openai-responses/incomplete-max-output-tokens.sse');
  const events = decode(input);
  tt.same(lines(events).slice(-6), [
    'raw response.output_text.done @7',
    'raw response.content_part.done @8',
    'raw response.output_item.done @9',
    'raw response.incomplete @10',
    'usage in=9 out=16 total=25 reasoning=0 cached=0 @10',
    'done max_tokens max_output_tokens @10',
  ]);
  tt.equal(texts(events, 'text_delta').get('0/0'), 'Once upon a time, there');
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: mid-stream error followed by response.failed', (tt) => {
  const input = fixture('openai-responses/error-then-failed.sse');
  const events = decode(input);
  tt.same(lines(events), [
    'start resp_err01 gpt-5.4-2026-03-05 @0',
    'raw response.created @0',
    'raw response.in_progress @1',
    'raw response.output_item.added @2',
    'raw response.content_part.added @3',
    'text 0/0 "Partial" @4',
    'error server_error terminal @5',
    // One response, one error, one done: response.failed closes it without repeating the error.
    'raw response.failed @6',
    'done error failed @6',
  ]);
  const err = ofType(events, 'error')[0]!;
  tt.equal(err.message, 'The server had an error while processing your request.');
  tt.match(err.raw, { type: 'error', code: 'server_error' });
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: sequence gap and out-of-order number', (tt) => {
  const input = fixture('openai-responses/sequence-gap.sse');
  const events = decode(input);
  tt.same(lines(events).slice(4, 12), [
    'raw response.content_part.added @3',
    'error sequence_gap non-terminal @5',
    'text 0/0 "a" @5',
    'text 0/0 "b" @6',
    'text 0/0 "c" @7',
    'error sequence_gap non-terminal @6',
    'text 0/0 "d" @6',
    'raw response.output_text.done @8',
  ]);
  const gaps = ofType(events, 'error');
  tt.equal(gaps.length, 2, 'one error per irregular number, none after it recovers');
  tt.match(gaps[0]!.message, /5 after 3: 1 event\(s\) missing/);
  tt.match(gaps[1]!.message, /6 after 7: out of order/);
  tt.same(lines(events).slice(-2), ['usage in=5 out=4 total=9 reasoning=0 cached=0 @11', 'done end completed @11']);
  sameUnderChunkings(tt, input);
  tt.end();
});

t.test('fixture: two responses back to back', (tt) => {
  const input = fixture('openai-responses/two-responses.sse');
  const events = decode(input);
  const rs = responses(events);
  tt.equal(rs.length, 2);
  tt.same(lines(rs[0]!).filter((l) => !l.startsWith('raw')), [
    'start resp_log01 gpt-5.4-nano-2026-03-17 @0',
    'text 0/0 "First" @4',
    'text 0/0 " answer." @5',
    'usage in=7 out=3 total=10 reasoning=0 cached=0 @9',
    'done end completed @9',
  ]);
  tt.same(lines(rs[1]!).filter((l) => !l.startsWith('raw')), [
    'start resp_log02 gpt-5.4-nano-2026-03-17 @0',
    'text 0/0 "Second" @4',
    'text 0/0 " answer." @5',
    'usage in=8 out=3 total=11 reasoning=0 cached=0 @9',
    'done end completed @9',
  ]);
  tt.equal(ofType(events, 'error').length, 0, 'the second response numbering from 0 is not a gap');
  sameUnderChunkings(tt, input);
  tt.end();
});

// ---------------------------------------------------------------------------
// Edge cases built inline

const created = (id: string, seq: number, model = 'gpt-5.4-nano'): object => ({
  type: 'response.created',
  sequence_number: seq,
  response: { id, object: 'response', status: 'in_progress', model, output: [], usage: null },
});
const completed = (id: string, seq: number, output: object[] = [], usage: object | null = null): object => ({
  type: 'response.completed',
  sequence_number: seq,
  response: { id, object: 'response', status: 'completed', model: 'gpt-5.4-nano', output, usage },
});
const textDelta = (delta: string, seq: number, outputIndex = 0): object => ({
  type: 'response.output_text.delta',
  item_id: 'msg_1',
  output_index: outputIndex,
  content_index: 0,
  delta,
  sequence_number: seq,
});

t.test('a resumed stream that starts mid-way opens the response with what it knows', (tt) => {
  const events = decode(sse(textDelta('lo', 7), textDelta('', 8), completed('resp_r', 9)));
  tt.same(lines(events), [
    'start null null @7',
    'text 0/0 "lo" @7',
    'raw response.output_text.delta @8', // empty text: never a text_delta
    'raw response.completed @9',
    'done end completed @9',
  ]);
  tt.end();
});

t.test('error event at the end of input: done(error) from the handler, no incomplete_stream', (tt) => {
  const err = { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null, sequence_number: 2 };
  const events = decode(sse(created('resp_e', 0), textDelta('Hi', 1), err));
  tt.same(lines(events), [
    'start resp_e gpt-5.4-nano @0',
    'raw response.created @0',
    'text 0/0 "Hi" @1',
    'error rate_limit_exceeded terminal @2',
    'done error null',
  ]);
  tt.equal(ofType(events, 'error')[0]!.message, 'Slow down');

  const alone = decode(sse({ type: 'error', code: null, message: 'boom', sequence_number: 0 }));
  tt.same(lines(alone), ['start null null @0', 'error provider_error terminal @0', 'done error null'], 'an error as first payload still makes one response');

  const thenDone = decode(sse(created('resp_e', 0), err) + 'data: [DONE]\n\n');
  tt.same(lines(thenDone).slice(-2), ['error rate_limit_exceeded terminal @2', 'done error null'], '[DONE] after an error closes it');
  tt.end();
});

t.test('response.failed without a prior error event reports the error itself', (tt) => {
  const failed = {
    type: 'response.failed',
    sequence_number: 1,
    response: {
      id: 'resp_f',
      status: 'failed',
      model: 'gpt-5.4-nano',
      error: { code: 'server_error', message: 'Something broke' },
      output: [],
      usage: { input_tokens: 4, output_tokens: 0, total_tokens: 4 },
    },
  };
  const events = decode(sse(created('resp_f', 0), failed));
  tt.same(lines(events).slice(2), [
    'raw response.failed @1',
    'error server_error terminal @1',
    'usage in=4 out=0 total=4 reasoning=null cached=null @1',
    'done error failed @1',
  ]);
  tt.match(ofType(events, 'error')[0], { message: 'Something broke', raw: { code: 'server_error' } });
  tt.end();
});

t.test('incomplete with content_filter → refusal; other reasons → other; cancelled → other', (tt) => {
  const incomplete = (reason: string | null): object => ({
    type: 'response.incomplete',
    sequence_number: 1,
    response: { id: 'resp_i', status: 'incomplete', incomplete_details: reason === null ? null : { reason }, output: [], usage: null },
  });
  tt.same(lines(decode(sse(created('resp_i', 0), incomplete('content_filter')))).at(-1), 'done refusal content_filter @1');
  tt.same(lines(decode(sse(created('resp_i', 0), incomplete('max_prompt_tokens')))).at(-1), 'done other max_prompt_tokens @1');
  tt.same(lines(decode(sse(created('resp_i', 0), incomplete(null)))).at(-1), 'done other incomplete @1');
  const cancelled = { type: 'response.cancelled', sequence_number: 1, response: { id: 'resp_i', status: 'cancelled', output: [] } };
  tt.same(lines(decode(sse(created('resp_i', 0), cancelled))).at(-1), 'done other cancelled @1');
  tt.end();
});

t.test('tool calls: item done without arguments.done, whole call in one item, custom tool, hosted tools', (tt) => {
  const fcAdded = {
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_1', name: 'lookup' },
    sequence_number: 1,
  };
  const fcDelta = { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"q":1', sequence_number: 2 };
  const fcItemDone = {
    type: 'response.output_item.done',
    output_index: 0,
    item: { id: 'fc_1', type: 'function_call', status: 'completed', arguments: '{"q":1}', call_id: 'call_1', name: 'lookup' },
    sequence_number: 3,
  };
  tt.same(lines(decode(sse(created('resp_t', 0), fcAdded, fcDelta, fcItemDone, completed('resp_t', 4)))).slice(2), [
    'tool_start 0 call_1 lookup @1',
    'tool_delta 0 call_1 {"q":1 @2',
    'tool_done 0 call_1 lookup {"q":1} @3',
    'raw response.output_item.done @3',
    'raw response.completed @4',
    'done tool_use completed @4',
  ], 'output_item.done supplies the done when arguments.done never came');

  const whole = { ...fcItemDone, sequence_number: 1 };
  tt.same(lines(decode(sse(created('resp_t', 0), whole, completed('resp_t', 2)))).slice(2), [
    'tool_start 0 call_1 lookup @1',
    'tool_delta 0 call_1 {"q":1} @1',
    'tool_done 0 call_1 lookup {"q":1} @1',
    'raw response.output_item.done @1',
    'raw response.completed @2',
    'done tool_use completed @2',
  ], 'a call seen only whole still goes start → one delta → done');

  const ctAdded = {
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: 'ctc_1', type: 'custom_tool_call', status: 'in_progress', call_id: 'call_c', name: 'run_sql', input: '' },
    sequence_number: 1,
  };
  const ctDelta = { type: 'response.custom_tool_call_input.delta', item_id: 'ctc_1', output_index: 0, delta: 'SELECT 1', sequence_number: 2 };
  const ctDone = { type: 'response.custom_tool_call_input.done', item_id: 'ctc_1', output_index: 0, input: 'SELECT 1;', sequence_number: 3 };
  tt.same(lines(decode(sse(created('resp_c', 0), ctAdded, ctDelta, ctDone, completed('resp_c', 4)))).slice(2), [
    'tool_start 0 call_c run_sql @1',
    'tool_delta 0 call_c SELECT 1 @2',
    'tool_done 0 call_c run_sql SELECT 1; @3', // the authoritative input text, not the concatenated deltas
    'raw response.completed @4',
    'done tool_use completed @4',
  ], 'custom tool input text goes the same path and makes tool_use on OpenAI');

  const wsAdded = { type: 'response.output_item.added', output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' }, sequence_number: 1 };
  const shell = { type: 'response.shell_call_command.delta', output_index: 0, item_id: 'sh_1', delta: 'ls', sequence_number: 2 };
  tt.same(lines(decode(sse(created('resp_h', 0), wsAdded, shell, completed('resp_h', 3)))).slice(2), [
    'tool_start 0 ws_1 web_search provider @1',
    'raw response.shell_call_command.delta @2',
    'raw response.completed @3',
    // the search never completed: its call closes at the terminal event, with no input fields
    'tool_delta 0 ws_1 {} provider @3',
    'tool_done 0 ws_1 web_search {} provider @3',
    'done end completed @3',
  ], 'a hosted call is providerExecuted and never makes tool_use; unknown events stay raw');
  const orphanDone = { type: 'response.function_call_arguments.done', item_id: 'fc_9', output_index: 3, arguments: '{}', name: 'ping', sequence_number: 5 };
  tt.same(lines(decode(sse(orphanDone))).slice(0, 4), [
    'start null null @5',
    'tool_start 3 call_3 ping @5',
    'tool_delta 3 call_3 {} @5',
    'tool_done 3 call_3 ping {} @5',
  ], 'a resumed stream that missed the added item still gets start/delta/done, with a synthetic id');
  tt.end();
});

t.test('fixture (hand-written): server tool search and container shell are provider-executed with their output items as results; local shell is the client\'s', (tt) => {
  const input = fixture('openai-responses/hosted-shell-tool-search.sse');
  const events = sameUnderChunkings(tt, input);
  tt.same(lines(events).filter((l) => !l.startsWith('raw')), [
    'start resp_hosted_shell gpt-5.5 @0',
    // execution "server", call_id null: the item id names the call
    'tool_start 0 ts_1 tool_search provider @2',
    'tool_delta 0 ts_1 {"query":"weather tools"} provider @3',
    'tool_done 0 ts_1 tool_search {"query":"weather tools"} provider @3',
    // tool_search_output with call_id null belongs to the oldest server tool search without a result
    'tool_result 1 ts_1 tool_search @5',
    // environment container_reference: the platform runs it
    'tool_start 2 call_shell_1 shell provider @6',
    'tool_delta 2 call_shell_1 {"commands":["ls -la /mnt/data"],"max_output_length":null,"timeout_ms":10000} provider @7',
    'tool_done 2 call_shell_1 shell {"commands":["ls -la /mnt/data"],"max_output_length":null,"timeout_ms":10000} provider @7',
    'tool_result 3 call_shell_1 shell @9',
    'tool_start 4 call_local_1 local_shell @10',
    'tool_delta 4 call_local_1 {"type":"exec","command":["pwd"],"env":{},"timeout_ms":null,"user":null,"working_directory":null} @11',
    'tool_done 4 call_local_1 local_shell {"type":"exec","command":["pwd"],"env":{},"timeout_ms":null,"user":null,"working_directory":null} @11',
    'usage in=120 out=48 total=168 reasoning=0 cached=0 @12',
    'done tool_use completed @12',
  ]);
  const [search, shell] = ofType(events, 'tool_result');
  tt.match(search!.result, [{ type: 'function', name: 'get_weather' }], 'the loaded tools');
  tt.same(shell!.result, [{ stdout: 'total 0\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }], 'the shell output as received');
  const [final] = finalsOf(events);
  tt.same(final!.toolCalls.map((c) => c.id), ['call_local_1'], 'only the local shell call is the client\'s');
  tt.same(final!.content.map((b) => `${b.type}${'providerExecuted' in b ? ' provider' : ''}`), ['tool_call provider', 'tool_result', 'tool_call provider', 'tool_result', 'tool_call']);
  // without the container environment (and no hosted shell declared), a shell_call is the client's
  const local = sse(
    { type: 'response.created', sequence_number: 0, response: { id: 'resp_l', model: 'gpt-5.5', status: 'in_progress', tools: [{ type: 'shell', environment: { type: 'local' } }] } },
    { type: 'response.output_item.done', sequence_number: 1, output_index: 0, item: { id: 'sh_2', type: 'shell_call', call_id: 'call_2', action: { commands: ['ls'] }, environment: null, status: 'completed' } },
    completed('resp_l', 2),
  );
  tt.same(lines(decode(local)).filter((l) => l.startsWith('tool_') || l.startsWith('done')), [
    'tool_start 0 call_2 shell @1',
    'tool_delta 0 call_2 {"commands":["ls"]} @1',
    'tool_done 0 call_2 shell {"commands":["ls"]} @1',
    'done tool_use completed @2',
  ]);
  tt.end();
});

t.test('fixture (hand-written): failed MCP listing and call are error results; an MCP approval request is a client call', (tt) => {
  const input = fixture('openai-responses/mcp-approval-failures.sse');
  const events = sameUnderChunkings(tt, input);
  tt.same(lines(events).filter((l) => !l.startsWith('raw')), [
    'start resp_mcp_approval gpt-5.5 @0',
    'tool_start 0 mcpl_1 mcp_list_tools provider @1',
    'tool_delta 0 mcpl_1 {"server_label":"broken"} provider @4',
    'tool_done 0 mcpl_1 mcp_list_tools {"server_label":"broken"} provider @4',
    'tool_result 0 mcpl_1 mcp_list_tools error @4',
    'tool_start 1 mcp_1 ask_question provider @5',
    'tool_delta 1 mcp_1 {"repoName":"a/b", provider @7',
    'tool_delta 1 mcp_1 "question":"What is it?"} provider @8',
    'tool_done 1 mcp_1 ask_question {"repoName":"a/b","question":"What is it?"} provider @9',
    'tool_result 1 mcp_1 ask_question error @11',
    'tool_start 2 mcpr_1 mcp_approval_request @12',
    'tool_delta 2 mcpr_1 {"server_label":"deepwiki","name":"read_wiki_contents","arguments":"{\\"repoName\\":\\"a/b\\"}"} @13',
    'tool_done 2 mcpr_1 mcp_approval_request {"server_label":"deepwiki","name":"read_wiki_contents","arguments":"{\\"repoName\\":\\"a/b\\"}"} @13',
    'usage in=300 out=60 total=360 reasoning=null cached=null @14',
    'done tool_use completed @14',
  ]);
  tt.same(ofType(events, 'tool_result').map((r) => r.result), [
    "Error retrieving tool list from MCP server: 'broken'. Http status code: 424 (Failed Dependency)",
    'Tool call timed out after 60s',
  ], 'the error as the result');
  tt.same(rawPayloads(events, 'response.mcp_call.failed').length, 1, 'progress stays raw');
  const [final] = finalsOf(events);
  tt.same(final!.toolCalls, [{ id: 'mcpr_1', name: 'mcp_approval_request', arguments: { server_label: 'deepwiki', name: 'read_wiki_contents', arguments: '{"repoName":"a/b"}' } }], 'the approval the client owes, under the item id it answers with');
  tt.same(final!.content.filter((b) => b.type === 'tool_result'), [
    { type: 'tool_result', id: 'mcpl_1', name: 'mcp_list_tools', result: "Error retrieving tool list from MCP server: 'broken'. Http status code: 424 (Failed Dependency)", isError: true },
    { type: 'tool_result', id: 'mcp_1', name: 'ask_question', result: 'Tool call timed out after 60s', isError: true },
  ]);
  tt.end();
});

t.test('fixture (hand-written): code deltas escaped into JSON, outputs as the result, a failed image, a JPEG partial, annotations only on the finished part', (tt) => {
  const input = fixture('openai-responses/code-image-annotations.sse');
  const events = sameUnderChunkings(tt, input);
  const code = 'print("héllo\\tworld")\nprint(1 + 1)';
  tt.same(lines(events).filter((l) => !l.startsWith('raw') && !l.startsWith('text')), [
    'start resp_parts gpt-5.5 @0',
    'tool_start 0 ci_1 code_interpreter provider @1',
    'tool_delta 0 ci_1 {"code":" provider @1',
    'tool_delta 0 ci_1 print(\\"hé provider @3',
    'tool_delta 0 ci_1 llo\\\\tworld\\")\\n provider @4',
    'tool_delta 0 ci_1 print(1 + 1) provider @5',
    'tool_delta 0 ci_1 "} provider @6',
    `tool_done 0 ci_1 code_interpreter ${JSON.stringify({ code })} provider @6`,
    'tool_result 0 ci_1 code_interpreter @9',
    'tool_start 1 ig_1 image_generation provider @10',
    // no output_format: the JPEG magic bytes tell
    'file 1 image/jpeg 20 partial @13',
    'tool_delta 1 ig_1 {} provider @14',
    'tool_done 1 ig_1 image_generation {} provider @14',
    'tool_result 1 ig_1 image_generation error @14',
    'citation 2 https://example.com/report 15-18 @18',
    // annotations 1 and 2 were never announced: cited at content_part.done, not again at output_item.done
    'citation 2 cfile_1 23-32 @21',
    'citation 2 cfile_1 - @21',
    'usage in=200 out=90 total=290 reasoning=null cached=null @23',
    'done end completed @23',
  ]);
  const done = ofType(events, 'tool_call_done')[0]!;
  tt.same(JSON.parse(done.arguments), { code }, 'valid JSON holding the code');
  tt.equal(ofType(events, 'tool_call_delta').filter((d) => d.id === 'ci_1').map((d) => d.argumentsDelta).join(''), done.arguments, 'the deltas add up to it');
  const [codeResult, image] = ofType(events, 'tool_result');
  tt.same(codeResult!.result, { container_id: 'cntr_xyz', outputs: [{ type: 'logs', logs: 'héllo\tworld\n2\n' }] }, 'the container and the outputs');
  tt.same(image!.result, { status: 'failed' });
  tt.equal(ofType(events, 'file').filter((f) => f.partial !== true).length, 0, 'a failed generation has no file');
  const text = texts(events, 'text_delta').get('2/0')!;
  tt.same(ofType(events, 'citation').map((c) => [c.url ?? c.source, c.title, c.start === undefined ? null : text.slice(c.start, c.end)]), [
    ['https://example.com/report', 'Report', '[1]'],
    ['cfile_1', 'chart.png', 'chart.png'],
    ['cfile_1', undefined, null],
  ]);
  const [final] = finalsOf(events);
  tt.same(final!.citations, [
    { index: 2, url: 'https://example.com/report', title: 'Report', start: 15, end: 18 },
    { index: 2, title: 'chart.png', source: 'cfile_1', start: 23, end: 32 },
    { index: 2, source: 'cfile_1' },
  ]);
  tt.same(final!.content.map((b) => b.type), ['tool_call', 'tool_result', 'tool_call', 'tool_result', 'text'], 'no file: the partial is an event only');
  tt.end();
});

t.test('annotations only in the terminal snapshot are cited there; an annotation.added repeated is cited once', (tt) => {
  const part = { type: 'output_text', text: 'Hi [a]', annotations: [{ type: 'url_citation', url: 'https://a.example', title: 'A', start_index: 3, end_index: 6 }] };
  const body = sse(
    created('resp_s', 0),
    { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi [a]' },
    { type: 'response.output_text.annotation.added', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, annotation_index: 0, annotation: part.annotations[0]! },
    { type: 'response.output_text.annotation.added', sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, annotation_index: 0, annotation: part.annotations[0]! },
    { type: 'response.output_text.annotation.added', sequence_number: 4, item_id: 'msg_1', output_index: 0, content_index: 0, annotation_index: 1, annotation: { type: 'note', text: 'not a citation' } },
    { type: 'response.completed', sequence_number: 5, response: { id: 'resp_s', status: 'completed', output: [{ id: 'msg_1', type: 'message', content: [part] }, { id: 'msg_2', type: 'message', content: [{ ...part, text: 'Yo [a]' }] }] } },
  );
  tt.same(lines(decode(body)).slice(2), [
    'text 0/0 "Hi [a]" @1',
    'citation 0 https://a.example 3-6 @2',
    'raw response.output_text.annotation.added @3',
    'raw response.output_text.annotation.added @4',
    'raw response.completed @5',
    'citation 1 https://a.example 3-6 @5',
    'done end completed @5',
  ], 'the repeat and an unknown annotation type stay raw; the second message\'s annotation comes from the snapshot');
  tt.end();
});

t.test('program items (programmatic tool calling) are provider-executed, program_output their result; the calls a program makes stay the client\'s', (tt) => {
  const program = { id: 'prog_1', type: 'program', call_id: 'call_p', code: 'return await tools.lookup({ q: 1 });', fingerprint: 'fp_1' };
  const call = { id: 'fc_1', type: 'function_call', call_id: 'call_f', name: 'lookup', arguments: '{"q":1}', status: 'completed', caller: { type: 'program', caller_id: 'call_p' } };
  const output = { id: 'po_1', type: 'program_output', call_id: 'call_p', result: '42', status: 'completed' };
  const body = sse(
    created('resp_p', 0),
    { type: 'response.output_item.done', sequence_number: 1, output_index: 0, item: program },
    { type: 'response.output_item.done', sequence_number: 2, output_index: 1, item: call },
    { type: 'response.output_item.done', sequence_number: 3, output_index: 2, item: output },
    completed('resp_p', 4),
  );
  const events = decode(body);
  tt.same(lines(events).filter((l) => !l.startsWith('raw')).slice(1), [
    'tool_start 0 call_p program provider @1',
    'tool_delta 0 call_p {"code":"return await tools.lookup({ q: 1 });"} provider @1',
    'tool_done 0 call_p program {"code":"return await tools.lookup({ q: 1 });"} provider @1',
    'tool_start 1 call_f lookup @2',
    'tool_delta 1 call_f {"q":1} @2',
    'tool_done 1 call_f lookup {"q":1} @2',
    'tool_result 2 call_p program @3',
    'done tool_use completed @4',
  ]);
  tt.equal(ofType(events, 'tool_result')[0]!.result, '42');
  tt.end();
});

t.test('fast path: code interpreter code deltas are taken by a template, with the events of the parse path', (tt) => {
  const bytes = corpusFile('openai-responses/pydantic-ai--code-interpreter.sse');
  const config = { dialect: DIALECT } as const;
  tt.strictSame(run([bytes], config, 'events', true, true), run([bytes], config, 'events', true, false), 'same events, fast path on and off');
  tt.strictSame(run([bytes], config, 'final', false, true), run([bytes], config, 'final', false, false), 'same final');
  const seen = parsedTexts(bytes, config);
  const deltas = bytes.toString().split('\n').filter((l) => l.startsWith('data: ') && l.includes('"response.code_interpreter_call_code.delta"')).map((l) => l.slice(6));
  tt.equal(deltas.length, 27);
  const parsed = deltas.filter((d) => seen.has(d)).length;
  tt.ok(parsed <= 3, `${deltas.length - parsed} of ${deltas.length} code deltas taken by the template (${parsed} parsed)`);
  tt.end();
});

t.test('cut-off input: parseable tool arguments are finished, then incomplete_stream + done(error)', (tt) => {
  const a = { type: 'response.output_item.added', output_index: 0, item: { id: 'fc_a', type: 'function_call', arguments: '', call_id: 'call_a', name: 'a' }, sequence_number: 1 };
  const b = { type: 'response.output_item.added', output_index: 1, item: { id: 'fc_b', type: 'function_call', arguments: '', call_id: 'call_b', name: 'b' }, sequence_number: 2 };
  const da = { type: 'response.function_call_arguments.delta', item_id: 'fc_a', output_index: 0, delta: '{"x":1}', sequence_number: 3 };
  const db = { type: 'response.function_call_arguments.delta', item_id: 'fc_b', output_index: 1, delta: '{"y":', sequence_number: 4 };
  tt.same(lines(decode(sse(created('resp_x', 0), a, b, da, db))).slice(-3), [
    'tool_done 0 call_a a {"x":1}',
    'error incomplete_stream terminal',
    'done error null',
  ]);
  tt.end();
});

t.test('a new response.created while a response is open closes the first one', (tt) => {
  const events = decode(sse(created('resp_1', 0), textDelta('cut', 1), created('resp_2', 0), { type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_2', model: 'gpt-5.4-nano', status: 'in_progress' } }, textDelta('ok', 2), completed('resp_2', 3)));
  tt.same(lines(events), [
    'start resp_1 gpt-5.4-nano @0',
    'raw response.created @0',
    'text 0/0 "cut" @1',
    'error incomplete_stream terminal',
    'done error null',
    'raw response.created @0',
    'start resp_2 gpt-5.4-nano @1',
    'raw response.in_progress @1',
    'text 0/0 "ok" @2',
    'raw response.completed @3',
    'done end completed @3',
  ]);
  const repeated = decode(sse(created('resp_1', 0), created('resp_1', 1), completed('resp_1', 2)));
  tt.equal(ofType(repeated, 'done').length, 1, 'the same response id repeated is not a new response');
  tt.end();
});

t.test('unknown types and odd payloads never throw', (tt) => {
  const events = decode(sse(created('resp_u', 0), { type: 'response.future_thing', sequence_number: 1, x: [1] }, { sequence_number: 2 }, completed('resp_u', 3)) + 'data: 42\n\n');
  tt.same(lines(events), [
    'start resp_u gpt-5.4-nano @0',
    'raw response.created @0',
    'raw response.future_thing @1',
    'raw undefined @2',
    'raw response.completed @3',
    'done end completed @3',
    'raw 42',
  ]);
  // wire strings that name Object.prototype members, odd items, annotations and citation lists
  const odd = sse(
    { type: 'response.created', sequence_number: 0, response: { id: 'resp_o', model: 'gpt-x', tools: [{ type: 'shell', environment: 'x' }, null, 3] } },
    { type: 'toString', delta: 'x', sequence_number: 1 },
    { type: 'toString', delta: 'x', sequence_number: 2 },
    { type: 'response.output_item.added', output_index: 0, sequence_number: 3, item: { type: 'toString', id: 'a' } },
    { type: 'response.output_item.done', output_index: 1, sequence_number: 4, item: { type: 'constructor', id: 'b' } },
    { type: 'response.image_generation_call.partial_image', output_index: 1, sequence_number: 5, partial_image_b64: 'AAA', output_format: 'constructor' },
    { type: 'response.output_text.annotation.added', output_index: 1, sequence_number: 6, annotation: 'x' },
    { type: 'response.content_part.done', output_index: 1, sequence_number: 7, part: { annotations: [null, 1, { type: 'url_citation' }, { type: 'file_path' }] } },
    { type: 'response.output_item.done', output_index: 2, sequence_number: 8, item: { type: 'shell_call_output', call_id: 'toString' } },
    { type: 'response.completed', sequence_number: 9, response: { id: 'resp_o', citations: [1, null, { url: 'https://u.example', title: 'U' }], output: [null, { type: 'message', content: 'x' }] } },
  );
  for (const fastPath of [false, true]) {
    tt.same(lines(decodeEvents(odd, { dialect: DIALECT, fastPath })), [
      'start resp_o gpt-x @0',
      'raw response.created @0',
      'raw toString @1',
      'raw toString @2',
      'raw response.output_item.added @3',
      'raw response.output_item.done @4',
      'file 1 image/png 3 partial @5',
      'raw response.output_text.annotation.added @6',
      'raw response.content_part.done @7',
      'raw response.output_item.done @8',
      'raw response.completed @9',
      'citation 1 https://u.example - @9',
      'done end completed @9',
    ], `fast path ${fastPath}: nothing throws, what cites nothing stays raw`);
  }
  tt.end();
});

t.test('plain JSON error body with the dialect forced: error + done, no start', (tt) => {
  const body = '{\n  "error": {\n    "message": "Bad key",\n    "type": "invalid_request_error",\n    "code": "invalid_api_key"\n  }\n}';
  tt.same(lines(decode(body)), ['error invalid_api_key terminal', 'done error null']);
  tt.end();
});

// ---------------------------------------------------------------------------
// Corpus

const corpus = corpusFiles(['openai-responses']);

t.test('corpus: every file decodes the same under every chunking, one done per response', (tt) => {
  tt.equal(corpus.length, 21, 'all 21 corpus files are checked');
  for (const f of corpus) {
    tt.test(f.name, (ft) => {
      const events = decode(f.bytes);
      ft.equal(ofType(events, 'error').filter((e) => e.code === 'invalid_json').length, 0, 'no invalid_json');
      ft.equal(ofType(events, 'error').filter((e) => e.code === 'sequence_gap').length, 0, 'no sequence gaps in real captures');
      ft.equal(ofType(events, 'done').length, 1, 'exactly one done');
      ft.ok(events.slice(events.findIndex((e) => e.type === 'done') + 1).every((e) => e.type === 'raw'), 'done closes the stream (only raw after it)');
      ft.equal(ofType(events, 'start').length, f.name.endsWith('.body') ? 0 : 1, 'one start');
      ft.same(lines(decode(f.bytes, 'auto')), lines(events), 'auto-detection gives the same events');
      // The streamed text of every position equals the provider's own `.done` text.
      const doneText = new Map<string, string>();
      for (const p of rawPayloads(events, 'response.output_text.done')) doneText.set(`${p['output_index']}/${p['content_index']}`, String(p['text']));
      const streamed = texts(events, 'text_delta');
      for (const [k, v] of doneText) ft.equal(streamed.get(k) ?? '', v, `text at ${k} equals output_text.done`);
      const doneReasoning = new Map<string, string>();
      for (const p of rawPayloads(events, 'response.reasoning_summary_text.done')) doneReasoning.set(`${p['output_index']}/${p['summary_index']}`, String(p['text']));
      for (const p of rawPayloads(events, 'response.reasoning_text.done')) doneReasoning.set(`${p['output_index']}/${p['content_index']}`, String(p['text']));
      const streamedReasoning = texts(events, 'reasoning_delta');
      for (const [k, v] of doneReasoning) ft.equal(streamedReasoning.get(k) ?? '', v, `reasoning at ${k} equals its .done text`);
      ft.same([...streamedReasoning.keys()].sort(), [...doneReasoning.keys()].sort(), 'no reasoning without a done counterpart');
      // Every tool_call_done joins its deltas exactly.
      for (const d of ofType(events, 'tool_call_done')) {
        const joined = ofType(events, 'tool_call_delta').filter((x) => x.id === d.id).map((x) => x.argumentsDelta).join('');
        ft.equal(joined, d.arguments, `deltas of ${d.id} add up to its arguments`);
      }
      // Provider-executed calls: flagged on start, every delta and done; their arguments JSON; results answer them.
      const hosted = new Set(ofType(events, 'tool_call_start').filter((e) => e.providerExecuted === true).map((e) => e.id));
      ft.ok([...ofType(events, 'tool_call_delta'), ...ofType(events, 'tool_call_done')].every((e) => (e.providerExecuted === true) === hosted.has(e.id)), 'providerExecuted on all three events of a hosted call, never on a client one');
      for (const d of ofType(events, 'tool_call_done')) if (d.providerExecuted === true) ft.doesNotThrow(() => JSON.parse(d.arguments), `${d.id}: JSON arguments`);
      ft.ok(ofType(events, 'tool_result').every((r) => hosted.has(r.id)), 'every tool_result answers a provider-executed call');
      ft.equal(new Set(ofType(events, 'citation').map((c) => JSON.stringify([c.index, c.raw]))).size, ofType(events, 'citation').length, 'no citation twice');
      sameUnderChunkings(ft, f.bytes, true);
      ft.end();
    });
  }
  tt.end();
});

const corpusEvents = (name: string): UnifiedEvent[] => decode(corpusFile(`${DIALECT}/${name}`));

const summary = (events: UnifiedEvent[]): string[] => outlineLines(lines(events));

t.test('corpus: what each file exercises', (tt) => {
  tt.test('llm--function-call: arguments deltas', (ft) => {
    const ev = corpusEvents('llm--function-call.sse');
    ft.same(summary(ev), [
      'start resp_00d64fa806f333310169fab1be69d081a08f8285661855594c gpt-5.5-2026-04-23 @0',
      'tool_start 0 call_sVidsfFJ6zlzRpelrPkTPlpd multiply @2',
      'tool_done 0 call_sVidsfFJ6zlzRpelrPkTPlpd multiply {"a":1231,"b":2331} @14',
      'usage in=58 out=23 total=81 reasoning=0 cached=0 @16',
      'done tool_use completed @16',
    ]);
    ft.equal(ofType(ev, 'tool_call_delta').length, 11);
    ft.end();
  });

  tt.test('llm--text-basic', (ft) => {
    const ev = corpusEvents('llm--text-basic.sse');
    ft.same(lines(ev).filter((l) => !l.startsWith('raw')), [
      'start resp_00592e63e61b66660169fab1b9f8e481a2b321356198d7ac1b gpt-5.5-2026-04-23 @0',
      'text 0/0 "pong" @4',
      'usage in=11 out=5 total=16 reasoning=0 cached=0 @8',
      'done end completed @8',
    ]);
    ft.end();
  });

  tt.test('mirascope--http400-error.body: the HTTP error is reported, forced or auto', (ft) => {
    const f = corpus.find((c) => c.name.endsWith('mirascope--http400-error.body'))!;
    for (const d of [DIALECT, 'auto'] as const) {
      const ev = decode(f.bytes, d);
      ft.same(lines(ev), ['error model_not_found terminal', 'done error null'], d);
      ft.match(ofType(ev, 'error')[0]!.message, /this-model-does-not-exist-12345/);
    }
    ft.end();
  });

  tt.test('pydantic-ai--background-initial: created, queued, in_progress', (ft) => {
    const ev = corpusEvents('pydantic-ai--background-initial.sse');
    ft.same(lines(ev).slice(0, 4), [
      'start resp_0850765c843cca5300699cc47d93c0819089a181f5feeff8eb gpt-4o-2024-08-06 @0',
      'raw response.created @0',
      'raw response.queued @1',
      'raw response.in_progress @2',
    ]);
    ft.equal(texts(ev, 'text_delta').get('0/0'), '2 + 2 equals 4.');
    ft.equal(lines(ev).at(-1), 'done end completed @16');
    ft.end();
  });

  tt.test('pydantic-ai--background-resume-starting-after: starts at response.queued seq 1', (ft) => {
    const ev = corpusEvents('pydantic-ai--background-resume-starting-after.sse');
    ft.same(lines(ev).slice(0, 3), [
      'start resp_0850765c843cca5300699cc47d93c0819089a181f5feeff8eb gpt-4o-2024-08-06 @1',
      'raw response.queued @1',
      'raw response.in_progress @2',
    ]);
    ft.equal(texts(ev, 'text_delta').get('0/0'), '2 + 2 equals 4.');
    ft.same(summary(ev).slice(-2), ['usage in=15 out=9 total=24 reasoning=0 cached=0 @16', 'done end completed @16']);
    ft.end();
  });

  tt.test('pydantic-ai--code-interpreter: three provider-executed code calls, code streamed inside a JSON text', (ft) => {
    const ev = corpusEvents('pydantic-ai--code-interpreter.sse');
    const container = 'cntr_68c3509aa0348191ad0bfefe24878dbb0deaa35a4e39052e';
    const ids = ['ci_68c3509faff0819e96f6d45e6faf78490f2d670b80edc507', 'ci_68c350a41d2c819ebb23bdfb9ff322770f2d670b80edc507', 'ci_68c350a5e1f8819eb082eccb870199ec0f2d670b80edc507'];
    const codes = ['n = pow(123456, 123)\nlen(str(n))', 'str(n)[:100], str(n)[-100:]', 'n'];
    ft.same(ofType(ev, 'tool_call_done').map((d) => [d.index, d.id, d.name, d.arguments, d.providerExecuted]), ids.map((id, i) => [i + 1, id, 'code_interpreter', JSON.stringify({ code: codes[i] }), true]));
    ft.ok([...ofType(ev, 'tool_call_start'), ...ofType(ev, 'tool_call_delta')].every((e) => e.providerExecuted === true), 'providerExecuted on every start and delta');
    // 27 code deltas + one prefix and one closing delta per call
    ft.equal(ofType(ev, 'tool_call_delta').length, 27 + 3 * 2);
    ft.equal(rawPayloads(ev, 'response.code_interpreter_call_code.delta').length, 0, 'code deltas are tool_call_delta now');
    ft.same(ofType(ev, 'tool_result').map((r) => [r.index, r.id, r.name, r.result, r.isError]), ids.map((id, i) => [i + 1, id, 'code_interpreter', { container_id: container, outputs: null }, undefined]), 'the container, and outputs null (not requested with include) as received');
    ft.equal(rawPayloads(ev, 'response.code_interpreter_call.interpreting').length, 3, 'progress stays raw');
    ft.equal(rawPayloads(ev, 'response.code_interpreter_call.completed').length, 3);
    ft.equal(ofType(ev, 'reasoning_delta').length, 92);
    ft.equal(ofType(ev, 'text_delta').length, 215);
    ft.same(summary(ev).slice(-2), ['usage in=3727 out=347 total=4074 reasoning=128 cached=3200 @364', 'done end completed @364']);
    const [final] = finalsOf(ev);
    ft.same(final!.toolCalls, [], 'nothing for the client to run');
    ft.same(final!.content.map((b) => b.type), ['reasoning', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'text']);
    ft.same(final!.content[1], { type: 'tool_call', id: ids[0], name: 'code_interpreter', arguments: { code: codes[0] }, providerExecuted: true });
    ft.end();
  });

  tt.test('pydantic-ai--compat-openrouter-data-only: data-only, reasoning_text, [DONE]', (ft) => {
    const ev = corpusEvents('pydantic-ai--compat-openrouter-data-only.sse');
    const reasoning = texts(ev, 'reasoning_delta');
    ft.same([...reasoning.keys()], ['0/0']);
    ft.match(reasoning.get('0/0'), /^The user asks: "What is 2\+2\?"/);
    ft.equal(texts(ev, 'text_delta').get('1/0'), '4');
    ft.same(lines(ev).slice(-4), ['raw response.completed @39', 'usage in=78 out=37 total=115 reasoning=22 cached=0 @39', 'done end completed @39', 'raw "[DONE]"'], '[DONE] after the terminal event is raw, outside the response');
    ft.end();
  });

  tt.test('pydantic-ai--file-search: provider-executed file search, its result, one file_citation', (ft) => {
    const ev = corpusEvents('pydantic-ai--file-search.sse');
    const id = 'fs_006dcb10dc68b990006931d758d64c819b8936fb07f31c09d4';
    ft.same(summary(ev), [
      'start resp_006dcb10dc68b990006931d756c6fc819ba28a90e19a504ee0 gpt-4o-2024-08-06 @0',
      `tool_start 0 ${id} file_search provider @2`,
      `tool_done 0 ${id} file_search {"queries":["What is the capital of France?"]} provider @6`,
      `tool_result 0 ${id} file_search @6`,
      'citation 1 file-9RhPAs9YqVajpGXRfcgavJ - @15',
      'usage in=1177 out=37 total=1214 reasoning=0 cached=0 @20',
      'done end completed @20',
    ], 'the annotation repeated at content_part.done and output_item.done is cited once');
    ft.equal(ofType(ev, 'tool_result')[0]!.result, null, 'results: null (not requested with include) as received');
    ft.same(noRaw(ofType(ev, 'citation')[0]!), { type: 'citation', index: 1, title: 'tmp8l5_2pzy.txt', source: 'file-9RhPAs9YqVajpGXRfcgavJ', cursor: 15 }, 'file_id as source, filename as title, no offsets');
    ft.same(ofType(ev, 'citation')[0]!.raw, { type: 'file_citation', file_id: 'file-9RhPAs9YqVajpGXRfcgavJ', filename: 'tmp8l5_2pzy.txt', index: 30 });
    ft.equal(rawPayloads(ev, 'response.output_text.annotation.added').length, 0, 'the annotation is a citation, not raw');
    ft.equal(rawPayloads(ev, 'response.file_search_call.searching').length, 1, 'progress stays raw');
    const [final] = finalsOf(ev);
    ft.same(final!.citations, [{ index: 1, title: 'tmp8l5_2pzy.txt', source: 'file-9RhPAs9YqVajpGXRfcgavJ' }]);
    ft.same(final!.toolCalls, []);
    ft.end();
  });

  tt.test('pydantic-ai--function-call: no sequence numbers → no cursors', (ft) => {
    const ev = corpusEvents('pydantic-ai--function-call.sse');
    ft.ok(ev.every((e) => e.cursor === undefined));
    ft.same(summary(ev), [
      'start resp_67e554a155508191900ee113293c4c830794405d35281ae2 gpt-4o-2024-08-06',
      'tool_start 0 call_kL0PCQV7M2WMoVX8V8OtYSAL get_capital',
      'tool_done 0 call_kL0PCQV7M2WMoVX8V8OtYSAL get_capital {"country":"France"}',
      'usage in=255 out=16 total=271 reasoning=0 cached=0',
      'done tool_use completed',
    ]);
    ft.end();
  });

  tt.test('pydantic-ai--logprobs: logprobs stay available in the raw .done event', (ft) => {
    const ev = corpusEvents('pydantic-ai--logprobs.sse');
    ft.equal(texts(ev, 'text_delta').get('0/0'), 'The capital of Minas Gerais is Belo Horizonte.');
    const done = rawPayloads(ev, 'response.output_text.done')[0]!;
    ft.equal((done['logprobs'] as Json[]).length, 9);
    ft.end();
  });

  tt.test('pydantic-ai--mcp-call: mcp_list_tools and mcp_call provider-executed, with their results', (ft) => {
    const ev = corpusEvents('pydantic-ai--mcp-call.sse');
    const list = 'mcpl_00b9cc7a23d047270068faa0e29804819fb060cec0408ffbcd';
    const call = 'mcp_00b9cc7a23d047270068faa0e67fb0819fa9e21302c398e9ac';
    const args = '{"repoName":"pydantic/pydantic-ai","question":"What is the pydantic/pydantic-ai repository about?"}';
    ft.same(summary(ev).filter((l) => !l.startsWith('signature')), [
      'start resp_00b9cc7a23d047270068faa0e25934819f9c3bfdec80065bc4 o4-mini-2025-04-16 @0',
      `tool_start 0 ${list} mcp_list_tools provider @2`,
      `tool_done 0 ${list} mcp_list_tools {"server_label":"deepwiki"} provider @5`,
      `tool_result 0 ${list} mcp_list_tools @5`,
      `tool_start 2 ${call} ask_question provider @8`,
      `tool_done 2 ${call} ask_question ${args} provider @11`,
      `tool_result 2 ${call} ask_question @13`,
      'usage in=1401 out=480 total=1881 reasoning=256 cached=0 @193',
      'done end completed @193',
    ]);
    ft.same(lines(ev).filter((l) => l.startsWith('tool_delta')), [`tool_delta 0 ${list} {"server_label":"deepwiki"} provider @5`, `tool_delta 2 ${call} ${args} provider @10`]);
    const [tools, output] = ofType(ev, 'tool_result');
    ft.same((tools!.result as JsonObject[]).map((tool) => tool['name']), ['read_wiki_structure', 'ask_question'], 'the listed tools');
    ft.match(output!.result, /^The `pydantic\/pydantic-ai` repository is a Python agent framework/, 'the MCP output text');
    ft.equal(output!.isError, undefined);
    ft.equal(rawPayloads(ev, 'response.mcp_list_tools.completed').length, 1, 'progress stays raw');
    ft.same(ofType(ev, 'signature').map((s) => s.index), [1, 3]);
    const [final] = finalsOf(ev);
    ft.same(final!.toolCalls, []);
    ft.same(final!.content.filter((b) => b.type.startsWith('tool_')).map((b) => [b.type, 'id' in b ? b.id : null]), [['tool_call', list], ['tool_result', list], ['tool_call', call], ['tool_result', call]]);
    ft.end();
  });

  tt.test('pydantic-ai--moderation: moderation results kept in the terminal snapshot', (ft) => {
    const ev = corpusEvents('pydantic-ai--moderation.sse');
    const final = rawPayloads(ev, 'response.completed')[0]!;
    ft.match(final, { response: { moderation: { input: { type: 'moderation_result' } } } });
    ft.equal(texts(ev, 'text_delta').get('1/0'), 'Paris.');
    ft.equal(ofType(ev, 'signature').length, 1);
    ft.end();
  });

  tt.test('pydantic-ai--reasoning-function-call-usage: signature from output_item.done, reasoning tokens', (ft) => {
    const ev = corpusEvents('pydantic-ai--reasoning-function-call-usage.sse');
    const itemDone = rawPayloads(ev, 'response.output_item.done')[0]!;
    const sig = ofType(ev, 'signature');
    ft.equal(sig.length, 1);
    ft.equal(sig[0]!.signature, (itemDone['item'] as JsonObject)['encrypted_content'], 'the final encrypted_content, not the one on output_item.added');
    ft.same(summary(ev).filter((l) => !l.startsWith('signature')), [
      'start resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33 gpt-5-2025-08-07 @0',
      'tool_start 1 call_CWXgs68YprAjp6t0371hiPOI final_result @4',
      'tool_done 1 call_CWXgs68YprAjp6t0371hiPOI final_result {"result":6666} @11',
      'usage in=53 out=469 total=522 reasoning=448 cached=0 @13',
      'done tool_use completed @13',
    ]);
    ft.end();
  });

  tt.test('pydantic-ai--reasoning-summary: four summary parts, long text', (ft) => {
    const ev = corpusEvents('pydantic-ai--reasoning-summary.sse');
    ft.same([...texts(ev, 'reasoning_delta').keys()], ['0/0', '0/1', '0/2', '0/3']);
    ft.equal(ofType(ev, 'reasoning_delta').length, 383);
    ft.ok((texts(ev, 'text_delta').get('1/0') ?? '').length > 1000);
    ft.same(summary(ev).slice(-2), ['usage in=13 out=1680 total=1693 reasoning=1408 cached=0 @675', 'done end completed @675']);
    ft.end();
  });

  tt.test('pydantic-ai--text-after-tool: message item with content parts', (ft) => {
    const ev = corpusEvents('pydantic-ai--text-after-tool.sse');
    ft.equal(rawPayloads(ev, 'response.content_part.added').length, 1);
    ft.equal(ofType(ev, 'text_delta').length, 7);
    ft.equal(lines(ev).at(-1), 'done end completed');
    ft.end();
  });

  tt.test('pydantic-ai--web-search-annotations / web-search: provider-executed searches, their actions, url citations', (ft) => {
    const a = corpusEvents('pydantic-ai--web-search-annotations.sse');
    const ws = ['ws_0a4bc5e23769d65c00696d5e682884819da7fe3195ef84421f', 'ws_0a4bc5e23769d65c00696d5e6a0588819d835082264406b94b'];
    ft.same(ofType(a, 'tool_call_done').map((d) => [d.index, d.id, d.name, JSON.parse(d.arguments), d.providerExecuted]), [
      [0, ws[0], 'web_search', { type: 'search', queries: ['tallest mountain in Alberta highest peak Alberta Mount Columbia elevation'], query: 'tallest mountain in Alberta highest peak Alberta Mount Columbia elevation' }, true],
      [1, ws[1], 'web_search', { type: 'search', queries: ['Mount Columbia highest point in Alberta 3747 m highest mountain in Alberta', 'Mount Columbia tallest mountain in Alberta official source'], query: 'Mount Columbia highest point in Alberta 3747 m highest mountain in Alberta' }, true],
    ]);
    ft.same(ofType(a, 'tool_result').map((r) => [r.id, (r.result as JsonObject)['type']]), [[ws[0], 'search'], [ws[1], 'search']], 'the action as the result');
    ft.same(ofType(a, 'citation').map(noRaw), [{
      type: 'citation', index: 2, url: 'https://www.britannica.com/place/Mount-Columbia?utm_source=openai', title: 'Mount Columbia | mountain, Alberta, Canada | Britannica', start: 77, end: 162, cursor: 18,
    }], 'one citation, though the annotation is repeated at content_part.done and output_item.done');
    const text = texts(a, 'text_delta').get('2/0')!;
    ft.equal(text.slice(77, 162), '([britannica.com](https://www.britannica.com/place/Mount-Columbia?utm_source=openai))', 'start/end slice the cited link out of the text');
    ft.equal(rawPayloads(a, 'response.web_search_call.completed').length, 2, 'progress stays raw');
    const w = corpusEvents('pydantic-ai--web-search.sse');
    const id = 'ws_00a60507bf41223d0068c9d30021d081a0962d80d50c12e317';
    ft.same(summary(w).filter((l) => !l.startsWith('signature')), [
      'start resp_00a60507bf41223d0068c9d2fbf93481a0ba2a7796ae2cab4c gpt-5-2025-08-07 @0',
      `tool_start 1 ${id} web_search provider @4`,
      `tool_done 1 ${id} web_search {"type":"search","query":"weather: San Francisco, CA"} provider @8`,
      `tool_result 1 ${id} web_search @8`,
      'usage in=9463 out=582 total=10045 reasoning=512 cached=8320 @60',
      'done end completed @60',
    ], 'the query is the input, the action with its sources the result');
    ft.same(ofType(w, 'tool_result')[0]!.result, { type: 'search', query: 'weather: San Francisco, CA', sources: [{ type: 'api', name: 'oai-weather' }] });
    ft.equal(rawPayloads(w, 'response.web_search_call.searching').length, 1);
    const [final] = finalsOf(w);
    ft.same(final!.toolCalls, []);
    ft.same(final!.content.slice(1, 3), [
      { type: 'tool_call', id, name: 'web_search', arguments: { type: 'search', query: 'weather: San Francisco, CA' }, providerExecuted: true },
      { type: 'tool_result', id, name: 'web_search', result: { type: 'search', query: 'weather: San Francisco, CA', sources: [{ type: 'api', name: 'oai-weather' }] } },
    ]);
    ft.end();
  });

  tt.test('vercel-ai--apply-patch: apply_patch_call is a client tool call (whole operation at item done)', (ft) => {
    const ev = corpusEvents('vercel-ai--apply-patch.sse');
    ft.equal(rawPayloads(ev, 'response.apply_patch_call_operation_diff.delta').length, 32, 'the diff fragments stay raw');
    const starts = ofType(ev, 'tool_call_start');
    ft.match(starts, [{ id: 'call_kA46f91ZwocQyMCKyyZqRyC5', name: 'apply_patch', index: 0 }]);
    const done = ofType(ev, 'tool_call_done')[0];
    const op = JSON.parse(done?.type === 'tool_call_done' ? done.arguments : '{}') as { type: string; path: string; diff: string };
    ft.equal(op.type, 'create_file');
    ft.equal(op.path, 'shopping-checklist.md');
    ft.match(op.diff, /^\+## Shopping Checklist\n/);
    ft.equal(ofType(ev, 'tool_call_delta').length, 1, 'one delta holding the whole operation');
    ft.equal(lines(ev).at(-1), 'done tool_use completed @37');
    ft.end();
  });

  tt.test('vercel-ai--error-insufficient-quota: error then response.failed → one error, one done', (ft) => {
    const ev = corpusEvents('vercel-ai--error-insufficient-quota.sse');
    ft.same(lines(ev), [
      'start resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424 gpt-5-nano-2025-08-07 @0',
      'raw response.created @0',
      'raw response.in_progress @1',
      'error insufficient_quota terminal @2',
      'raw response.failed @3',
      'done error failed @3',
    ]);
    ft.match(ofType(ev, 'error')[0]!.message, /^You exceeded your current quota/);
    ft.end();
  });

  tt.test('vercel-ai--image-generation: partial image and completed image as files, the call provider-executed', (ft) => {
    const ev = corpusEvents('vercel-ai--image-generation.sse');
    const id = 'ig_0df93c0bb83a72f20068c979f589c0819e9f0fc2d1a27aa1b8';
    const done = rawPayloads(ev, 'response.output_item.done').map((p) => p['item'] as JsonObject).find((i) => i['type'] === 'image_generation_call')!;
    const image = done['result'] as string;
    ft.same(summary(ev).filter((l) => !l.startsWith('signature')), [
      'start resp_0df93c0bb83a72f20068c979db26ac819e8b5a444fad3f0d7f gpt-5-2025-08-07 @0',
      `tool_start 1 ${id} image_generation provider @4`,
      `file 1 image/webp ${image.length} partial @7`,
      `tool_done 1 ${id} image_generation ${JSON.stringify({ revised_prompt: done['revised_prompt'] })} provider @9`,
      `tool_result 1 ${id} image_generation @9`,
      `file 1 image/webp ${image.length} @9`,
      'usage in=2941 out=1249 total=4190 reasoning=1024 cached=1920 @15',
      'done end completed @15',
    ]);
    const [partial, file] = ofType(ev, 'file');
    ft.same(partial, { type: 'file', index: 1, id, mimeType: 'image/webp', data: image, partial: true, cursor: 7 }, 'the partial_image_b64 (this capture repeats the final image), webp from output_format');
    ft.same(file, { type: 'file', index: 1, id, mimeType: 'image/webp', data: image, cursor: 9 });
    const result = ofType(ev, 'tool_result')[0]!.result as JsonObject;
    ft.same(result, { status: 'completed', background: 'opaque', output_format: 'webp', quality: 'low', revised_prompt: done['revised_prompt'], size: '1536x1024' }, 'the item without id, type and its base64 result');
    ft.equal(rawPayloads(ev, 'response.image_generation_call.partial_image').length, 0, 'the partial image is a file event, not raw');
    ft.equal(ofType(ev, 'text_delta').length, 0);
    const [final] = finalsOf(ev);
    ft.same(final!.content.map((b) => b.type), ['tool_call', 'tool_result', 'file']);
    ft.same(final!.content[2], { type: 'file', mimeType: 'image/webp', data: image, id });
    ft.equal(JSON.stringify(final).split(image).length - 1, 1, 'the base64 is in the final once');
    ft.same(final!.toolCalls, []);
    ft.equal(final!.stopReason, 'end');
    ft.end();
  });

  tt.test('vercel-ai--web-search: six provider-executed searches (search, open_page, find_in_page), twelve url citations', (ft) => {
    const ev = corpusEvents('vercel-ai--web-search.sse');
    const done = ofType(ev, 'tool_call_done');
    ft.same(done.map((d) => [d.index, d.name, JSON.parse(d.arguments).type, d.providerExecuted]), [
      [1, 'web_search', 'search', true], [3, 'web_search', 'search', true], [5, 'web_search', 'open_page', true],
      [7, 'web_search', 'find_in_page', true], [9, 'web_search', 'find_in_page', true], [11, 'web_search', 'find_in_page', true],
    ]);
    ft.same(JSON.parse(done[3]!.arguments), { type: 'find_in_page', pattern: 'vercel', url: 'https://www.wired.com/story/the-big-interview-2025-recap' });
    ft.equal(ofType(ev, 'tool_result').length, 6);
    const citations = ofType(ev, 'citation');
    ft.equal(citations.length, 12, 'one per annotation.added; none again from content_part.done / output_item.done');
    ft.ok(citations.every((c) => c.index === 13 && c.title !== undefined && c.url!.endsWith('?utm_source=openai')));
    const text = texts(ev, 'text_delta').get('13/0')!;
    // start/end slice each cited link out of the final text (non-ASCII text precedes them: same in code points and UTF-16 here)
    for (const c of citations) ft.match(text.slice(c.start, c.end), /^\(\[[a-z.]+\]\(https:\/\/[^)]+\)\)$/, `${c.start}-${c.end}`);
    ft.same([citations[0]!.start, citations[0]!.end, citations[11]!.start, citations[11]!.end], [277, 411, 3309, 3427]);
    ft.equal(rawPayloads(ev, 'response.output_text.annotation.added').length, 0);
    ft.equal(rawPayloads(ev, 'response.web_search_call.completed').length, 6);
    ft.same(summary(ev).slice(-2), ['usage in=31073 out=4416 total=35489 reasoning=3712 cached=3712 @184', 'done end completed @184']);
    const [final] = finalsOf(ev);
    ft.equal(final!.citations.length, 12);
    ft.same(final!.citations[0], { index: 13, url: 'https://techcrunch.com/2025/12/05/petco-confirms-security-lapse-exposed-customers-personal-data/?utm_source=openai', title: citations[0]!.title, start: 277, end: 411 });
    ft.end();
  });
  tt.end();
});

t.test('a tool call done twice (the second is raw), a payload that is not an object, an error body with the dialect forced', (tt) => {
  const created = { type: 'response.created', sequence_number: 0, response: { id: 'resp_t', model: 'gpt-x', status: 'in_progress' } };
  const added = { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '' } };
  const done = { type: 'response.function_call_arguments.done', sequence_number: 2, item_id: 'fc_1', output_index: 0, arguments: '{"a":1}' };
  const again = { ...done, sequence_number: 3 };
  const completed = { type: 'response.completed', sequence_number: 4, response: { id: 'resp_t', model: 'gpt-x', status: 'completed' } };
  const input = Buffer.from(sse(created, added, done, again) + 'event: odd\ndata: [1,2]\n\n' + sse(completed));
  const events = sameUnderChunkings(tt, input, true);
  tt.same(
    events.filter((e) => e.type === 'tool_call_done').map((e) => e.type === 'tool_call_done' && e.arguments),
    ['{"a":1}'],
    'one tool_call_done',
  );
  tt.same(
    events.flatMap((e) => (e.type === 'raw' ? [e.event] : [])).slice(-3),
    [again, [1, 2], completed],
    'the repeated done and the array are raw as received',
  );
  tt.equal(events.at(-1)?.type, 'done');
  tt.equal(
    events.find((e) => e.type === 'raw' && Array.isArray(e.event))?.cursor,
    undefined,
    'a payload without a sequence_number has no cursor',
  );

  const body = Buffer.from('{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}');
  const forced = decode(body);
  tt.same(lines(forced), ['error invalid_api_key terminal', 'done error null']);
  tt.match(forced[0], { type: 'error', code: 'invalid_api_key', message: 'Incorrect API key provided.', terminal: true });
  tt.end();
});
