import t, { type Test } from 'tap';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectOption, JsonObject, UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents, stable, type Input } from '../helpers/decode.js';
import { eventLines, outlineLines } from '../helpers/event-lines.js';
import { ofType, rawPayloads, startDialect } from '../helpers/events.js';
import { typedSse as sse } from '../helpers/sse.js';

const DIALECT = 'xai-responses';

const decode = (input: Input, dialect: DialectOption = DIALECT): UnifiedEvent[] => decodeEvents(input, { dialect });

/** The finals of decoded events. */
const finalsOf = (events: UnifiedEvent[]): FinalResult[] => runStage(createFinalAccumulator(), events);

/** One line per event (raw payloads reduced to their type; refusals are not marked here). */
const lines = (events: UnifiedEvent[]): string[] => eventLines(events);

function joinedText(events: UnifiedEvent[], type: 'text_delta' | 'reasoning_delta', index: number): string {
  return events
    .filter((e): e is Extract<UnifiedEvent, { type: typeof type }> => e.type === type && e.index === index)
    .map((e) => e.text)
    .join('');
}

const sameUnderChunkings = (tt: Test, input: Buffer, quick: boolean): UnifiedEvent[] =>
  stable(tt, input, { dialect: DIALECT }, { quick, message: 'identical under every chunking' });

t.test('fixture: reasoning summary, encrypted reasoning, whole-JSON function call', (tt) => {
  const input = fixture('xai-responses/reasoning-function-call.sse');
  const events = decode(input);
  const id = '5f0c2a3e-91d4-7b1e-a2c0-6d3f1e8b9a47';
  tt.same(lines(events), [
    `start ${id} grok-4.3 @0`,
    'raw response.created @0',
    'raw response.in_progress @1',
    'raw response.output_item.added @2',
    'raw response.reasoning_summary_part.added @3',
    'reasoning 0/0 "I need to get " @4',
    'reasoning 0/0 "the weather for Paris, " @5',
    'reasoning 0/0 "so I\'ll call get_weather." @6',
    'raw response.reasoning_summary_text.done @7',
    'raw response.reasoning_summary_part.done @8',
    'signature 0 encrypted_content RW5jcnlwdGVkUmVhc29uaW5nQmxvYg== @9',
    'raw response.output_item.done @9',
    'tool_start 1 call-38291745 get_weather @10',
    // xAI sends the whole JSON in one delta: still exactly one delta, then the authoritative done.
    'tool_delta 1 call-38291745 {"city":"Paris"} @11',
    'tool_done 1 call-38291745 get_weather {"city":"Paris"} @12',
    'raw response.output_item.done @13',
    'raw response.completed @14',
    // output_tokens (96) already includes the 71 reasoning tokens: not added again.
    'usage in=187 out=96 total=283 reasoning=71 cached=128 @14',
    'done tool_use completed @14',
  ]);
  tt.equal(startDialect(events), DIALECT);
  tt.same(lines(decode(input, 'auto')), lines(events), 'auto-detects xai-responses from the grok model');
  tt.match(ofType(events, 'usage')[0]!.raw, { cost_in_usd_ticks: 1873000, num_sources_used: 0 }, 'xAI usage extras stay in raw');
  sameUnderChunkings(tt, input, false);
  tt.end();
});

t.test('custom_tool_call: client-side on OpenAI (tool_use), server-side x_search on xAI (providerExecuted, end)', (tt) => {
  const body = sse(
    { sequence_number: 0, type: 'response.created', response: { created_at: 0, id: 'r1', model: 'grok-4.3', output: [], status: 'in_progress' } },
    {
      sequence_number: 1,
      type: 'response.output_item.added',
      item: { call_id: 'xs_call_1', input: '', name: 'x_keyword_search', type: 'custom_tool_call', id: 'ctc_r1_xs_call_1', status: 'in_progress' },
      output_index: 0,
    },
    { sequence_number: 2, type: 'response.custom_tool_call_input.delta', item_id: 'ctc_r1_xs_call_1', output_index: 0, delta: '{"query":"xai"}' },
    { sequence_number: 3, type: 'response.custom_tool_call_input.done', item_id: 'ctc_r1_xs_call_1', output_index: 0, input: '{"query":"xai"}' },
    {
      sequence_number: 4,
      type: 'response.completed',
      response: { id: 'r1', model: 'grok-4.3', status: 'completed', output: [{ type: 'custom_tool_call', call_id: 'xs_call_1', name: 'x_keyword_search', input: '{"query":"xai"}' }] },
    },
  );
  const xai = decode(body);
  tt.same(lines(xai).filter((l) => !l.startsWith('raw')), [
    'start r1 grok-4.3 @0',
    'tool_start 0 xs_call_1 x_keyword_search provider @1',
    'tool_delta 0 xs_call_1 {"query":"xai"} provider @2',
    'tool_done 0 xs_call_1 x_keyword_search {"query":"xai"} provider @3',
    'done end completed @4',
  ], 'no tool_result: the item carries none');
  const openai = decode(body, 'openai-responses');
  tt.same(lines(openai).filter((l) => l.startsWith('tool_')), [
    'tool_start 0 xs_call_1 x_keyword_search @1',
    'tool_delta 0 xs_call_1 {"query":"xai"} @2',
    'tool_done 0 xs_call_1 x_keyword_search {"query":"xai"} @3',
  ], 'OpenAI custom tools are declared client tools');
  tt.equal(lines(openai).at(-1), 'done tool_use completed @4');
  tt.end();
});

t.test('fixture (hand-written): server-side sub-tool and code execution, a declared client custom tool, inline and response-level citations', (tt) => {
  const input = fixture('xai-responses/server-tools-citations.sse');
  const events = sameUnderChunkings(tt, input, false);
  const id = 'c3d4e5f6-0000-4a1b-9c2d-000000000001';
  tt.same(outlineLines(lines(events)), [
    `start ${id} grok-4.3 @0`,
    'tool_start 0 xs_call_1 x_semantic_search provider @2',
    'tool_done 0 xs_call_1 x_semantic_search {"query":"xAI news","limit":5} provider @4',
    // a code_execution_call item: name and arguments given whole, call_id ""
    `tool_start 1 ce_${id}_0 code_execution provider @6`,
    `tool_done 1 ce_${id}_0 code_execution {"code":"print(6*7)"} provider @7`,
    'citation 2 https://x.ai/news 16-40 @12',
    // run_sql is declared in the response's tools: the client's call
    'tool_start 3 call_sql_1 run_sql @16',
    'tool_done 3 call_sql_1 run_sql SELECT 42; @18',
    // the response-level list: only the URL not already cited inline, on the last message's text
    'citation 2 https://x.com/i/status/1990000000000000001 - @20',
    'usage in=900 out=70 total=970 reasoning=30 cached=0 @20',
    'done tool_use completed @20',
  ]);
  tt.equal(ofType(events, 'tool_result').length, 0, 'none of these items carries a result');
  tt.equal(ofType(events, 'citation')[1]!.raw, 'https://x.com/i/status/1990000000000000001', 'the list entry as received');
  const [final] = finalsOf(events);
  tt.same(final!.toolCalls, [{ id: 'call_sql_1', name: 'run_sql', arguments: 'SELECT 42;' }]);
  tt.same(final!.citations, [
    { index: 2, url: 'https://x.ai/news', title: '1', start: 16, end: 40 },
    { index: 2, url: 'https://x.com/i/status/1990000000000000001' },
  ]);
  tt.equal(joinedText(events, 'text_delta', 2).slice(16, 40), '[[1]](https://x.ai/news)');
  tt.end();
});

const corpus = corpusFiles(['xai-responses']);

t.test('corpus: every file decodes the same under every chunking, one done per response', (tt) => {
  tt.equal(corpus.length, 5, 'all 5 corpus files are checked');
  for (const f of corpus) {
    tt.test(f.name, (ft) => {
      const events = decode(f.bytes);
      const errors = ofType(events, 'error');
      ft.same(errors.map((e) => e.code), [], 'no invalid_json, sequence_gap or other error');
      ft.equal(ofType(events, 'start').length, 1);
      ft.equal(ofType(events, 'done').length, 1, 'exactly one done');
      ft.equal(events.at(-1)?.type, 'done', 'done is last');
      const auto = decode(f.bytes, 'auto');
      ft.same(lines(auto), lines(events), 'auto-detection gives the same events');
      ft.equal(startDialect(auto), DIALECT, 'detected as xai-responses');
      for (const p of rawPayloads(events, 'response.output_text.done')) {
        ft.equal(joinedText(events, 'text_delta', p['output_index'] as number), p['text'], 'streamed text equals output_text.done');
      }
      for (const p of rawPayloads(events, 'response.reasoning_summary_text.done')) {
        ft.equal(joinedText(events, 'reasoning_delta', p['output_index'] as number), p['text'], 'streamed reasoning equals its .done');
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
  tt.test('vercel-ai--text-with-reasoning: summary deltas, usage incl. reasoning', (ft) => {
    const ev = corpusEvents('vercel-ai--text-with-reasoning.sse');
    ft.same(summary(ev), [
      'start bf3b2b34-79d4-a45c-7be8-d1e5f96386c2 grok-code-fast-1 @0',
      'usage in=216 out=923 total=1139 reasoning=323 cached=192 @678',
      'done end completed @678',
    ]);
    ft.equal(ofType(ev, 'reasoning_delta').length, 66);
    ft.equal(ofType(ev, 'text_delta').length, 600);
    ft.match(joinedText(ev, 'text_delta', 1), /^### Overview of Sonoran Cuisine/);
    ft.match(ofType(ev, 'usage')[0]!.raw, { num_sources_used: 0 });
    ft.equal(ofType(ev, 'signature').length, 0, 'no encrypted_content when stored');
    ft.end();
  });

  tt.test('vercel-ai--text-with-reasoning-store-false: encrypted reasoning content', (ft) => {
    const ev = corpusEvents('vercel-ai--text-with-reasoning-store-false.sse');
    const sig = ofType(ev, 'signature');
    ft.equal(sig.length, 1);
    const item = rawPayloads(ev, 'response.output_item.done')[0]!['item'] as JsonObject;
    ft.match(sig[0], { index: 0, kind: 'encrypted_content', signature: item['encrypted_content'] });
    ft.equal(sig[0]!.signature.length, 1731);
    ft.same(summary(ev).slice(-2), ['usage in=216 out=831 total=1047 reasoning=253 cached=192 @654', 'done end completed @654']);
    ft.end();
  });

  tt.test('vercel-ai--web-search: a server-side web_search_call with its arguments, five url citations', (ft) => {
    const ev = corpusEvents('vercel-ai--web-search.sse');
    const id = 'fc_98a8d4aa-fc8b-fd93-e673-d5a8f1c9cee8_0';
    ft.same(summary(ev), [
      'start 98a8d4aa-fc8b-fd93-e673-d5a8f1c9cee8 grok-4-fast-reasoning @0',
      // call_id "" on the wire: the item id identifies the call
      `tool_start 0 ${id} web_search provider @2`,
      `tool_done 0 ${id} web_search {"query":"what is xAI","num_results":5} provider @3`,
      'citation 1 https://en.wikipedia.org/wiki/XAI_%28company%29 - @265',
      'citation 1 https://x.ai/company - @266',
      'citation 1 https://www.ibm.com/think/topics/explainable-ai - @267',
      'citation 1 https://www.owkin.com/a-z-of-ai-for-healthcare/xai - @268',
      'citation 1 https://x.ai/ - @269',
      'usage in=1875 out=695 total=2570 reasoning=397 cached=1578 @273',
      'done end completed @273',
    ], 'the item holds no result (no action): no tool_result');
    ft.same(lines(ev).filter((l) => l.startsWith('tool_delta')), [`tool_delta 0 ${id} {"query":"what is xAI","num_results":5} provider @2`], 'the arguments already in the added item');
    ft.same(ofType(ev, 'citation')[1]!.raw, { type: 'url_citation', url: 'https://x.ai/company' }, 'xAI gives no title or offsets');
    ft.equal(rawPayloads(ev, 'response.output_text.annotation.added').length, 0);
    const [final] = finalsOf(ev);
    ft.same(final!.toolCalls, []);
    ft.same(final!.citations.map((c) => c.url), ofType(ev, 'citation').map((c) => c.url));
    ft.same(final!.citations[0], { index: 1, url: 'https://en.wikipedia.org/wiki/XAI_%28company%29' });
    ft.end();
  });

  tt.test('vercel-ai--x-search: x_search sub-tools as server-side custom_tool_calls, web_search_call items, 20 citations', (ft) => {
    const ev = corpusEvents('vercel-ai--x-search.sse');
    const done = ofType(ev, 'tool_call_done');
    ft.same(done.map((d) => `${d.index} ${d.id} ${d.name} ${d.providerExecuted}`), [
      '0 xs_call_24148162 x_keyword_search true',
      '1 xs_call_14963218 view_x_video true',
      '4 ws_b7b464ea-cc85-d44a-0f2f-1f7320e703c3_call_09546004 web_search true',
      '5 ws_b7b464ea-cc85-d44a-0f2f-1f7320e703c3_call_45339693 web_search true',
      '2 ws_b7b464ea-cc85-d44a-0f2f-1f7320e703c3_call_55360208 web_search true',
      '3 ws_b7b464ea-cc85-d44a-0f2f-1f7320e703c3_call_63718660 web_search true',
    ], 'x_keyword_search and view_x_video are not among the response\'s tools (only {type: x_search}): server-side');
    ft.same(JSON.parse(done[0]!.arguments), { query: 'from:xai filter:media', limit: 20, mode: 'Latest' });
    ft.match(JSON.parse(done[1]!.arguments), { video_url: /^https:\/\/video\.twimg\.com\// });
    ft.same(JSON.parse(done[2]!.arguments), { type: 'search', query: '' }, 'the action without its sources');
    ft.ok([...ofType(ev, 'tool_call_start'), ...ofType(ev, 'tool_call_delta')].every((e) => e.providerExecuted === true));
    ft.same(ofType(ev, 'tool_result').map((r) => [r.index, r.result]), [4, 5, 2, 3].map((i) => [i, { type: 'search', query: '', sources: [] }]), 'web_search_call: the action as received; custom_tool_call: no result on the wire');
    ft.equal(rawPayloads(ev, 'response.web_search_call.completed').length, 4);
    const citations = ofType(ev, 'citation');
    ft.equal(citations.length, 20);
    ft.ok(citations.every((c) => c.index === 6 && /^https:\/\/x\.com\/i\/status\/\d+$/.test(c.url!)));
    ft.same(summary(ev).slice(-2), ['usage in=27236 out=3077 total=30313 reasoning=1091 cached=4585 @1756', 'done end completed @1756']);
    const [final] = finalsOf(ev);
    ft.same(final!.toolCalls, [], 'nothing for the client to run');
    ft.equal(final!.content.filter((b) => b.type === 'tool_call' && b.providerExecuted === true).length, 6);
    ft.end();
  });

  tt.test('vercel-ai--image-generation (.ndjson, read as-is): server-side image generation, the image as a file', (ft) => {
    const ev = corpusEvents('vercel-ai--image-generation.ndjson');
    const id = 'ig_00000000-0000-4000-8000-000000000002_call-00000000-0000-4000-8000-00000000000b-0';
    const prompt = 'A delicate origami paper boat sailing gently on a tranquil pond covered with floating green lily pads and autumn leaves, soft sunlight filtering through trees, peaceful nature scene, highly detailed, realistic style';
    ft.same(summary(ev), [
      'start 00000000-0000-4000-8000-000000000002 grok-4.5 @0',
      `tool_start 0 ${id} image_generation provider @2`,
      `tool_done 0 ${id} image_generation ${JSON.stringify({ prompt })} provider @6`,
      `tool_result 0 ${id} image_generation @6`,
      'file 0 image/png 28 @6',
      'usage in=100 out=50 total=150 reasoning=30 cached=20 @28',
      'done end completed @28',
    ]);
    ft.same(ofType(ev, 'tool_result')[0]!.result, { status: 'completed', prompt }, 'the item without its base64');
    // no output_format and no known magic bytes (the source replaced the image): PNG, the documented default
    ft.same(ofType(ev, 'file')[0], { type: 'file', index: 0, id, mimeType: 'image/png', data: 'ZmFrZUltYWdlQmFzZTY0RGF0YQ==', cursor: 6 });
    ft.equal(joinedText(ev, 'text_delta', 1), "Here's a serene image of a paper boat sailing on a leaf-covered pond:");
    const [final] = finalsOf(ev);
    ft.same(final!.content.map((b) => b.type), ['tool_call', 'tool_result', 'file', 'text']);
    ft.equal(JSON.stringify(final).split('ZmFrZUltYWdlQmFzZTY0RGF0YQ==').length - 1, 1, 'the base64 is in the final once');
    ft.equal(final!.stopReason, 'end');
    ft.end();
  });
  tt.end();
});
