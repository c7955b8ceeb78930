import t from 'tap';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import type { EventsStageOptions } from '../../lib/pipeline/events-stage.js';
import { chunkings, quickChunkings } from '../helpers/chunks.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { checkChunkings, decodeEvents } from '../helpers/decode.js';
import { ofType, withoutPayloads as view } from '../helpers/events.js';
import { fixtureNames } from '../helpers/fixtures.js';
import { dataSse as sse } from '../helpers/sse.js';

const XAI: EventsStageOptions = { dialect: 'xai-chat', framing: 'sse' };

const run = (input: Buffer | string, options: EventsStageOptions = XAI): UnifiedEvent[] => decodeEvents(input, options);

function joined(evs: UnifiedEvent[], type: 'text_delta' | 'reasoning_delta'): string {
  return ofType(evs, type)
    .map((e) => e.text)
    .join('');
}

const usageChunk = (usage: object) => ({
  id: 'x1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'grok-4',
  choices: [],
  usage,
});

t.test('fixtures: identical events under every chunking; auto detects xai-chat', (t) => {
  const names = fixtureNames('xai-chat', '.sse');
  t.ok(names.length >= 1);
  for (const f of names) {
    const buf = fixture(`xai-chat/${f}`);
    checkChunkings(t, f, buf, (b) => chunkings(b), XAI);
    const auto = run(buf, {});
    t.match(auto[0], { type: 'start', dialect: 'xai-chat' }, `${f}: auto-detected from the grok model`);
    t.same(auto, run(buf), `${f}: auto gives the same events`);
  }
  t.end();
});

t.test('fixture reasoning-tool-call: reasoning, whole call as start/delta/done, usage incl. reasoning', (t) => {
  const evs = run(fixture('xai-chat/reasoning-tool-call.sse'));
  const args = '{"city":"Oslo","unit":"celsius"}';
  t.same(view(evs), [
    { type: 'start', id: '3f1c2d4e-5a6b-7c8d-9e0f-a1b2c3d4e5f6', model: 'grok-4-fast-reasoning', dialect: 'xai-chat' },
    { type: 'reasoning_delta', index: 0, text: 'The user' },
    { type: 'reasoning_delta', index: 0, text: ' wants' },
    { type: 'reasoning_delta', index: 0, text: ' the weather' },
    { type: 'reasoning_delta', index: 0, text: ' in Oslo.' },
    { type: 'tool_call_start', index: 0, id: 'call_48213907', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'call_48213907', argumentsDelta: args },
    { type: 'tool_call_done', index: 0, id: 'call_48213907', name: 'get_weather', arguments: args },
    {
      type: 'usage',
      inputTokens: 420,
      outputTokens: 31 + 138,
      totalTokens: 589,
      reasoningTokens: 138,
      cachedInputTokens: 384,
    },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ]);
  t.match(ofType(evs, 'usage')[0]!.raw, { cost_in_usd_ticks: 1234500 }, 'usage.raw keeps the xAI extras');
  t.end();
});

t.test('fixture live-search-citations: the URL list of the last chunk is citations of the text, in the final', (t) => {
  const evs = run(fixture('xai-chat/live-search-citations.sse'));
  const urls = ['https://x.ai/news/grok-3', 'https://x.com/xai/status/1891699715298730482'];
  t.same(
    view(evs.slice(-4)),
    [
      { type: 'usage', inputTokens: 1240, outputTokens: 14, totalTokens: 1254, reasoningTokens: 0, cachedInputTokens: 0 },
      ...urls.map((url) => ({ type: 'citation', index: 0, url })),
      { type: 'done', stopReason: 'end', providerReason: 'stop' },
    ],
  );
  t.same(ofType(evs, 'citation').map((c) => c.raw), urls, 'raw: the list entry as received');
  const [final] = runStage(createFinalAccumulator(), evs);
  t.equal(final!.text, 'xAI released Grok 3 in February 2025 [1][2].');
  t.same(final!.citations, urls.map((url) => ({ index: 0, url })));
  t.same(final!.toolCalls, [], 'Live Search runs on the server: no call for the client');
  t.end();
});

t.test('corpus: chunking-independent, valid, one start and one done', (t) => {
  const files = corpusFiles(['xai-chat']);
  t.equal(files.length, 3);
  for (const f of files) {
    checkChunkings(t, f.name, f.bytes, quickChunkings, XAI);
    const evs = run(f.bytes);
    t.notOk(evs.some((e) => e.type === 'error'), `${f.name}: no error`);
    t.equal(ofType(evs, 'start').length, 1, `${f.name}: one start`);
    t.equal(ofType(evs, 'done').length, 1, `${f.name}: one done`);
    t.equal(evs.at(-1)!.type, 'done', `${f.name}: done last`);
    t.notOk(evs.some((e) => (e.type === 'text_delta' || e.type === 'reasoning_delta') && e.text === ''));
    const auto = run(f.bytes, {});
    t.same(auto, run(f.bytes), `${f.name}: auto-detection picks xai-chat`);
    t.match(auto[0], { type: 'start', dialect: 'xai-chat', model: 'grok-3-mini' });
  }
  t.end();
});

t.test('corpus: reasoning-short', (t) => {
  const evs = run(corpusFile('xai-chat/vercel-ai--reasoning-short.sse'));
  t.equal(joined(evs, 'reasoning_delta'), 'First, the user said');
  t.equal(joined(evs, 'text_delta'), 'Hello');
  t.same(view(evs.slice(-2)), [
    // 12 + (1 + 290) = 303: completion_tokens excludes the reasoning tokens.
    { type: 'usage', inputTokens: 12, outputTokens: 291, totalTokens: 303, reasoningTokens: 290, cachedInputTokens: 11 },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  t.end();
});

t.test('corpus: reasoning-content-text', (t) => {
  const evs = run(corpusFile('xai-chat/vercel-ai--reasoning-content-text.sse'));
  const types = evs.map((e) => e.type);
  t.ok(types.lastIndexOf('reasoning_delta') < types.indexOf('text_delta'), 'reasoning comes first');
  t.match(joined(evs, 'reasoning_delta'), /^First, /);
  t.ok(joined(evs, 'text_delta').length > 0);
  t.same(view(evs.slice(-2)), [
    { type: 'usage', inputTokens: 12, outputTokens: 342, totalTokens: 354, reasoningTokens: 340, cachedInputTokens: 11 },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  t.match(ofType(evs, 'usage')[0]!.raw, { num_sources_used: 0, cost_in_usd_ticks: 1721250 });
  t.end();
});

t.test('corpus: reasoning-tool-call', (t) => {
  const evs = run(corpusFile('xai-chat/vercel-ai--reasoning-tool-call.sse'));
  t.ok(ofType(evs, 'reasoning_delta').length > 100);
  const args = '{"location":"San Francisco"}';
  t.same(view(evs.filter((e) => e.type.startsWith('tool_call'))), [
    { type: 'tool_call_start', index: 0, id: 'call_79382389', name: 'weather' },
    { type: 'tool_call_delta', index: 0, id: 'call_79382389', argumentsDelta: args },
    { type: 'tool_call_done', index: 0, id: 'call_79382389', name: 'weather', arguments: args },
  ]);
  t.same(view(evs.slice(-2)), [
    { type: 'usage', inputTokens: 307, outputTokens: 253, totalTokens: 560, reasoningTokens: 227, cachedInputTokens: 306 },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ]);
  t.end();
});

t.test('usage: xAI and OpenAI semantics differ only where total_tokens cannot tell', (t) => {
  const usage = (u: object, dialect: 'xai-chat' | 'openai-chat') =>
    ofType(run(sse(usageChunk(u), '[DONE]'), { dialect, framing: 'sse' }), 'usage')[0]!;
  const noTotal = { prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 20 } };
  t.match(usage(noTotal, 'xai-chat'), { outputTokens: 25, totalTokens: 35, reasoningTokens: 20 });
  t.match(usage(noTotal, 'openai-chat'), { outputTokens: 5, totalTokens: 15, reasoningTokens: 20 });
  // A total that shows completion already includes the reasoning is believed, even from xAI.
  const inclusive = { ...noTotal, completion_tokens: 25, total_tokens: 35 };
  t.match(usage(inclusive, 'xai-chat'), { outputTokens: 25, totalTokens: 35 });
  // No reasoning tokens: nothing to add.
  t.match(usage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }, 'xai-chat'), {
    outputTokens: 4,
    reasoningTokens: null,
  });
  t.end();
});

t.test('cut off after the tool call: done owed for the call, then incomplete_stream', (t) => {
  const base = { id: 'x2', object: 'chat.completion.chunk', created: 1, model: 'grok-4' };
  const evs = run(
    sse(
      { ...base, choices: [{ index: 0, delta: { reasoning_content: 'hm', role: 'assistant' } }] },
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ id: 'call_1', function: { name: 'f', arguments: '{"a":1}' }, index: 0, type: 'function' }] },
          },
        ],
      },
    ),
  );
  t.same(
    evs.map((e) => e.type),
    ['start', 'reasoning_delta', 'tool_call_start', 'tool_call_delta', 'tool_call_done', 'error', 'done'],
  );
  t.match(evs.at(-2), { type: 'error', code: 'incomplete_stream', terminal: true });
  t.match(evs.at(-1), { type: 'done', stopReason: 'error' });
  t.end();
});
