import t from 'tap';
import type { UnifiedEvent } from '../../lib/events.js';
import type { EventsStageOptions } from '../../lib/pipeline/events-stage.js';
import { chunkings, quickChunkings } from '../helpers/chunks.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { checkChunkings, decodeEvents } from '../helpers/decode.js';
import { ofType, texts, withoutPayloads as view } from '../helpers/events.js';
import { fixtureNames } from '../helpers/fixtures.js';
import { dataSse as sse } from '../helpers/sse.js';

const CHAT: EventsStageOptions = { dialect: 'openai-chat', framing: 'sse' };

const run = (input: Buffer | string, options: EventsStageOptions = CHAT): UnifiedEvent[] => decodeEvents(input, options);

function chunk(choices: object[], extra: object = {}): object {
  return { id: 'chatcmpl-t1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices, ...extra };
}

function delta(d: object, finish: string | null = null, index = 0): object {
  return { index, delta: d, logprobs: null, finish_reason: finish };
}

/** The visible text (refusals left out) of one choice (choice 0 when none is given). */
const textOf = (evs: UnifiedEvent[], choice?: number): string => texts(evs, (e) => e.refusal !== true && e.choice === choice);

const MISSING = "the stream ended without `data: [DONE]` after every choice's finish_reason: the response is complete";

/** The one done of a several-choice response: [stopReason, providerReason] of each choice, from choice 0 (the done's own). */
function doneOf(...stops: [string, string | null][]): object {
  const choices = stops.map(([stopReason, providerReason], choice) => ({ choice, stopReason, providerReason }));
  return { type: 'done', stopReason: stops[0]![0], providerReason: stops[0]![1], choices };
}

/** Response-closing dones: the ones without `choice`. */
function mainDones(evs: UnifiedEvent[]) {
  return ofType(evs, 'done').filter((e) => e.choice === undefined);
}

// ---------------------------------------------------------------- fixtures

t.test('fixtures: identical events under every chunking (explicit dialect and auto)', (t) => {
  const names = fixtureNames('openai-chat', '.sse');
  t.ok(names.length >= 5);
  for (const f of names) {
    const buf = fixture(`openai-chat/${f}`);
    checkChunkings(t, f, buf, (b) => chunkings(b), CHAT);
    t.same(run(buf, {}), run(buf), `${f}: auto-detection gives the same events`);
  }
  t.end();
});

t.test('fixture text-usage: text, usage chunk, stop', (t) => {
  const evs = run(fixture('openai-chat/text-usage.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'chatcmpl-Fx7TextUsage0001', model: 'gpt-4o-mini-2024-07-18', dialect: 'openai-chat' },
    { type: 'raw' }, // role-only delta
    { type: 'text_delta', index: 0, text: 'Grüß' },
    { type: 'text_delta', index: 0, text: ' dich' },
    { type: 'text_delta', index: 0, text: '! ' },
    { type: 'text_delta', index: 0, text: '🌍' },
    { type: 'text_delta', index: 0, text: ' Ça va?' },
    { type: 'raw' }, // finish_reason only
    {
      type: 'usage',
      inputTokens: 1234,
      outputTokens: 9,
      totalTokens: 1243,
      reasoningTokens: 0,
      cachedInputTokens: 1024,
    },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  const usage = ofType(evs, 'usage')[0]!;
  t.match(usage.raw, { prompt_tokens: 1234, prompt_tokens_details: { cached_tokens: 1024 } }, 'usage.raw is the provider object');
  const raws = ofType(evs, 'raw');
  t.match(raws[0]!.event, { choices: [{ delta: { role: 'assistant' } }], obfuscation: 'Qk3' }, 'raw keeps the payload as received');
  t.end();
});

t.test('fixture refusal: refusal channel flagged, never empty', (t) => {
  const evs = run(fixture('openai-chat/refusal.sse'));
  const deltas = ofType(evs, 'text_delta');
  t.equal(deltas.length, 5);
  t.ok(deltas.every((d) => d.refusal === true && d.index === 0 && d.text !== ''));
  t.equal(deltas.map((d) => d.text).join(''), "I'm sorry, I can't help with that.");
  t.equal(textOf(evs), '', 'no visible text');
  t.same(view(mainDones(evs)), [{ type: 'done', stopReason: 'end', providerReason: 'stop' }]);
  t.end();
});

t.test('fixture parallel-tool-calls: start, one delta per fragment, done at finish_reason', (t) => {
  const evs = run(fixture('openai-chat/parallel-tool-calls.sse'));
  const tools = view(evs.filter((e) => e.type.startsWith('tool_call')));
  t.same(tools, [
    { type: 'tool_call_start', index: 0, id: 'call_weather_Paris01', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'call_weather_Paris01', argumentsDelta: '{"ci' },
    { type: 'tool_call_delta', index: 0, id: 'call_weather_Paris01', argumentsDelta: 'ty": "Pa' },
    { type: 'tool_call_delta', index: 0, id: 'call_weather_Paris01', argumentsDelta: 'ris", "unit' },
    { type: 'tool_call_delta', index: 0, id: 'call_weather_Paris01', argumentsDelta: '": "celsius"}' },
    { type: 'tool_call_start', index: 1, id: 'call_time_Paris02', name: 'get_time' },
    { type: 'tool_call_delta', index: 1, id: 'call_time_Paris02', argumentsDelta: '{"tz"' },
    { type: 'tool_call_delta', index: 1, id: 'call_time_Paris02', argumentsDelta: ': "Europe/' },
    { type: 'tool_call_delta', index: 1, id: 'call_time_Paris02', argumentsDelta: 'Paris"}' },
    {
      type: 'tool_call_done',
      index: 0,
      id: 'call_weather_Paris01',
      name: 'get_weather',
      arguments: '{"city": "Paris", "unit": "celsius"}',
    },
    { type: 'tool_call_done', index: 1, id: 'call_time_Paris02', name: 'get_time', arguments: '{"tz": "Europe/Paris"}' },
  ]);
  // The tool_call_done events come from the finish_reason chunk, before the usage chunk.
  const types = evs.map((e) => e.type);
  t.ok(types.lastIndexOf('tool_call_done') < types.indexOf('usage'));
  t.same(view(evs.slice(-2)), [
    { type: 'usage', inputTokens: 150, outputTokens: 52, totalTokens: 202, reasoningTokens: 0, cachedInputTokens: 0 },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ]);
  t.end();
});

t.test('fixture n2: per-choice events, ONE done listing every choice', (t) => {
  const evs = run(fixture('openai-chat/n2.sse'));
  t.equal(textOf(evs), 'Red roses.');
  t.equal(textOf(evs, 1), 'Blue violets are');
  t.notOk(evs.some((e) => e.choice === 0), 'choice 0 carries no choice field');
  t.equal(ofType(evs, 'done').length, 1, 'one done for the response');
  t.same(view(evs.slice(-2)), [
    { type: 'usage', inputTokens: 20, outputTokens: 6, totalTokens: 26, reasoningTokens: 0, cachedInputTokens: null },
    doneOf(['end', 'stop'], ['max_tokens', 'length']),
  ]);
  t.end();
});

t.test('fixture missing-done: open call closed, then incomplete_stream and done(error)', (t) => {
  const evs = run(fixture('openai-chat/missing-done.sse'));
  t.same(view(evs), [
    { type: 'start', id: 'chatcmpl-Fx7MissingDone05', model: 'gpt-4o-mini-2024-07-18', dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: 'Let me check.' },
    { type: 'tool_call_start', index: 0, id: 'call_lookup_0005', name: 'lookup' },
    { type: 'tool_call_delta', index: 0, id: 'call_lookup_0005', argumentsDelta: '{"q": "llm' },
    { type: 'tool_call_done', index: 0, id: 'call_lookup_0005', name: 'lookup', arguments: '{"q": "llm' },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('fixture no-done-after-finish (quirk 3): complete without [DONE], a missing_terminal warning', (t) => {
  const evs = run(fixture('openai-chat/no-done-after-finish.sse'));
  t.same(view(evs.slice(-3)), [
    { type: 'usage', inputTokens: 17, outputTokens: 8, totalTokens: 25, reasoningTokens: null, cachedInputTokens: null },
    { type: 'error', code: 'missing_terminal', message: MISSING, terminal: false },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  t.equal(textOf(evs), 'Paris is the capital of France.');
  t.match(evs[0], { type: 'start', id: null, model: 'meta-llama/Meta-Llama-3-8B-Instruct' }, 'the empty id is no id');
  t.notOk(evs.some((e) => e.type === 'error' && e.code === 'incomplete_stream'));
  t.end();
});

t.test('missing [DONE]: complete only when every choice has its finish_reason', (t) => {
  const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } };
  const tool = run(sse(chunk([delta({ tool_calls: [call] })]), chunk([delta({}, 'tool_calls')])));
  t.same(view(tool.slice(-3)), [
    { type: 'tool_call_done', index: 0, id: 'call_1', name: 'f', arguments: '{"a":1}' },
    { type: 'error', code: 'missing_terminal', message: MISSING, terminal: false },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ]);

  // n = 2, both finished: complete, one done listing both.
  const both = run(sse(chunk([delta({ content: 'a' }, 'stop', 0)]), chunk([delta({ content: 'b' }, 'length', 1)])));
  t.same(view(both.slice(-2)), [
    { type: 'error', code: 'missing_terminal', message: MISSING, terminal: false },
    doneOf(['end', 'stop'], ['max_tokens', 'length']),
  ]);

  // Cut before the finish_reason: incomplete_stream, as before.
  const cut = run(sse(chunk([delta({ content: 'a' })])));
  t.same(view(cut.slice(-2)), [
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  // No chunk at all with a choice: nothing to call complete.
  const empty = run(sse(chunk([])));
  t.match(empty.at(-2), { type: 'error', code: 'incomplete_stream' });
  t.end();
});

t.test('fixture mistral-thinking-parts (quirk 5): thinking parts are reasoning, text parts text', (t) => {
  const evs = run(fixture('openai-chat/mistral-thinking-parts.sse'));
  t.same(view(evs.slice(1)), [
    { type: 'raw' }, // role and empty content
    { type: 'reasoning_delta', index: 0, text: 'Half of 6' },
    { type: 'reasoning_delta', index: 0, text: ' is 6 divided' },
    { type: 'reasoning_delta', index: 0, text: ' by 2 is' },
    { type: 'reasoning_delta', index: 0, text: ' 3.' },
    { type: 'text_delta', index: 0, text: 'Half of 6' },
    { type: 'text_delta', index: 0, text: ' is **3**.' },
    { type: 'usage', inputTokens: 12, outputTokens: 28, totalTokens: 40, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  t.end();
});

t.test('content parts: unknown part types and shapes keep the whole chunk as raw too', (t) => {
  const parts = [
    { type: 'thinking', thinking: [{ type: 'text', text: 'hm' }, { type: 'reference', reference_ids: [1] }] },
    { type: 'image_url', image_url: 'https://example.com/a.png' },
    { type: 'text', text: 'ok' },
    { type: 'text' },
    { type: 'thinking', thinking: 'not a list' },
    null,
  ];
  const evs = run(sse(chunk([delta({ content: parts })]), chunk([delta({ content: 42 })]), chunk([delta({}, 'stop')]), '[DONE]'));
  t.same(view(evs.slice(1)), [
    { type: 'reasoning_delta', index: 0, text: 'hm' },
    { type: 'text_delta', index: 0, text: 'ok' },
    { type: 'raw' }, // the chunk, for the parts not understood
    { type: 'raw' }, // content 42
    { type: 'raw' }, // finish_reason only
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  t.match(evs[3], { event: { choices: [{ delta: { content: parts } }] } }, 'raw is the payload as received');
  t.end();
});

t.test('fixture search-annotations: url_citation annotations are citations on the text block, offsets as given', (t) => {
  const evs = run(fixture('openai-chat/search-annotations.sse'));
  const text = textOf(evs);
  const cites = ofType(evs, 'citation');
  t.same(
    cites.map((c) => ({ index: c.index, url: c.url, title: c.title, start: c.start, end: c.end })),
    [
      { index: 0, url: 'https://www.fetedeslumieres.lyon.fr/en?utm_source=openai', title: 'Fête des Lumières - Official site', start: 43, end: 128 },
      { index: 0, url: 'https://www.tcl.fr/en?utm_source=openai', title: 'TCL - Lyon public transport', start: 145, end: 196 },
    ],
  );
  t.equal(text.slice(cites[0]!.start, cites[0]!.end), '([fetedeslumieres.lyon.fr](https://www.fetedeslumieres.lyon.fr/en?utm_source=openai))');
  t.equal(text.slice(cites[1]!.start, cites[1]!.end), '([tcl.fr](https://www.tcl.fr/en?utm_source=openai))');
  t.match(cites[0]!.raw, { type: 'url_citation', url_citation: { start_index: 43 } }, 'raw is the annotation as received');
  t.match(evs[1], { type: 'raw' }, 'the first chunk (role, empty annotations) has nothing to say');
  t.end();
});

t.test('annotations: flat or nested, delta or message, each once per choice; others kept as raw', (t) => {
  const nested = { type: 'url_citation', url_citation: { url: 'https://a.example', title: 'A', start_index: 0, end_index: 3 } };
  const flat = { type: 'url_citation', url: 'https://b.example', start_index: 4, end_index: 1.5 };
  const evs = run(
    sse(
      chunk([delta({ content: 'abc def', annotations: [nested] })]),
      chunk([{ index: 0, delta: { annotations: [nested, flat] }, message: { annotations: [nested, flat] }, finish_reason: null }]),
      chunk([delta({ content: 'x', annotations: [{ type: 'file_citation', file_id: 'f1' }] }, null, 1)]),
      chunk([delta({ annotations: 'nope' })]),
      chunk([delta({}, 'stop', 0)]),
      '[DONE]',
    ),
  );
  t.same(
    ofType(evs, 'citation').map((c) => view([c])[0]),
    [
      { type: 'citation', index: 0, url: 'https://a.example', title: 'A', start: 0, end: 3 },
      { type: 'citation', index: 0, url: 'https://b.example', start: 4 }, // 1.5 is no offset
    ],
  );
  const raws = ofType(evs, 'raw').map((r) => r.event);
  t.match(raws, [{ choices: [{ delta: { annotations: [{ type: 'file_citation' }] } }] }, { choices: [{ delta: { annotations: 'nope' } }] }, {}]);
  t.end();
});

t.test('top-level citations and search_results: choice 0, each URL once, search results first', (t) => {
  const results = [{ title: 'Lyon', url: 'https://lyon.example', date: '2025-01-01', snippet: 's' }, { title: 'no url' }];
  const evs = run(
    sse(
      chunk([delta({ content: 'a' })], { citations: ['https://lyon.example', 'https://tcl.example'], search_results: results }),
      chunk([delta({ content: 'b' })], { citations: ['https://lyon.example', 'https://tcl.example', ''], search_results: results }),
      chunk([delta({}, 'stop')], { citations: { not: 'a list' } }),
      '[DONE]',
    ),
  );
  t.same(
    ofType(evs, 'citation').map((c) => view([c])[0]),
    [
      { type: 'citation', index: 0, url: 'https://lyon.example', title: 'Lyon' },
      { type: 'citation', index: 0, url: 'https://tcl.example' },
    ],
  );
  t.same(ofType(evs, 'citation')[0]!.raw, results[0], 'raw is the search result');
  t.equal(ofType(evs, 'raw').length, 3, 'chunks with an unreadable source are kept as raw (each of the three)');
  t.end();
});

// ---------------------------------------------------------------- corpus

t.test('corpus: every file is chunking-independent, valid, one done per response', (t) => {
  const files = corpusFiles(['openai-chat']).filter((f) => f.name.endsWith('.sse') || f.name.endsWith('.body'));
  t.equal(files.length, 20);
  for (const f of files) {
    const opts: EventsStageOptions = f.name.endsWith('.body') ? { dialect: 'openai-chat' } : CHAT;
    checkChunkings(t, f.name, f.bytes, quickChunkings, opts);
    const evs = run(f.bytes, opts);
    t.notOk(evs.some((e) => e.type === 'error' && e.code === 'invalid_json'), `${f.name}: no invalid_json`);
    t.equal(mainDones(evs).length, 1, `${f.name}: exactly one done`);
    t.equal(evs.filter((e) => e.type === 'start').length, f.name.endsWith('.body') ? 0 : 1, `${f.name}: one start`);
    t.notOk(
      evs.some((e) => (e.type === 'text_delta' || e.type === 'reasoning_delta') && e.text === ''),
      `${f.name}: no empty text`,
    );
    // Auto-detection agrees with the explicit dialect.
    t.same(run(f.bytes, {}), run(f.bytes, f.name.endsWith('.body') ? {} : { dialect: 'openai-chat' }), `${f.name}: auto`);
  }
  t.end();
});

t.test('corpus: what each file exercises', (t) => {
  const c = (name: string) => run(corpusFile(`openai-chat/${name}`));

  t.test('azure prompt filter: raw first, start from the next chunk', (t) => {
    const evs = c('crewai--compat-azure-prompt-filter.sse');
    t.equal(evs[0]!.type, 'raw');
    t.match(evs[0], { event: { prompt_filter_results: [{ prompt_index: 0 }], id: '', model: '' } });
    t.match(evs[1], { type: 'start', id: 'chatcmpl-D0xlcDvxBE8sfHG0Q8B84MZtlYbab', model: 'gpt-4o-mini-2024-07-18' });
    t.equal(textOf(evs), 'Hello! How can I assist you today?');
    t.match(ofType(evs, 'usage'), [{ inputTokens: 9, outputTokens: 10, totalTokens: 19, cachedInputTokens: 0 }]);
    t.match(evs.at(-1), { type: 'done', stopReason: 'end', providerReason: 'stop' });
    t.end();
  });

  t.test('openrouter repeated tool id: one call, done at [DONE], tool_use', (t) => {
    const evs = c('llm--compat-openrouter-repeated-tool-id.sse');
    t.equal(ofType(evs, 'tool_call_start').length, 1);
    t.same(view(ofType(evs, 'tool_call_done')), [
      { type: 'tool_call_done', index: 0, id: '0', name: 'llm_version', arguments: '{}' },
    ]);
    t.match(ofType(evs, 'usage'), [{ inputTokens: 57, outputTokens: 17, totalTokens: 74 }]);
    t.same(view(evs.slice(-2)), [
      { type: 'tool_call_done', index: 0, id: '0', name: 'llm_version', arguments: '{}' },
      { type: 'done', stopReason: 'tool_use', providerReason: null },
    ]);
    t.end();
  });

  t.test('tool args null: no crash, no delta, arguments ""', (t) => {
    const evs = c('llm--compat-tool-args-null.sse');
    t.equal(ofType(evs, 'tool_call_delta').length, 0);
    t.same(view(ofType(evs, 'tool_call_done')), [
      { type: 'tool_call_done', index: 0, id: '0', name: 'llm_version', arguments: '' },
    ]);
    t.match(evs.at(-1), { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' });
    t.end();
  });

  t.test('http 404 body: one error with the provider code, one done', (t) => {
    for (const opts of [{}, { dialect: 'openai-chat' as const }]) {
      const evs = run(corpusFile('openai-chat/mirascope--http404-error.body'), opts);
      t.same(view(evs), [
        {
          type: 'error',
          code: 'model_not_found',
          message: 'The model `this-model-does-not-exist-12345` does not exist or you do not have access to it.',
          terminal: true,
        },
        { type: 'done', stopReason: 'error', providerReason: null },
      ]);
    }
    t.end();
  });

  t.test('content logprobs: text only, logprobs ignored', (t) => {
    const evs = c('openai-python--content-logprobs.sse');
    t.equal(textOf(evs), 'Foo!');
    t.equal(ofType(evs, 'text_delta').length, 2);
    t.match(evs.at(-1), { type: 'done', stopReason: 'end' });
    t.end();
  });

  t.test('max tokens: length → max_tokens', (t) => {
    const evs = c('openai-python--max-tokens-length.sse');
    t.equal(textOf(evs), '{"');
    t.match(ofType(evs, 'usage'), [{ inputTokens: 79, outputTokens: 1, totalTokens: 80, reasoningTokens: 0 }]);
    t.same(view(mainDones(evs)), [{ type: 'done', stopReason: 'max_tokens', providerReason: 'length' }]);
    t.end();
  });

  t.test('multiple choices (n=3)', (t) => {
    const evs = c('openai-python--multiple-choices.sse');
    t.equal(textOf(evs), '{"city":"San Francisco","temperature":65,"units":"f"}');
    t.equal(textOf(evs, 1), '{"city":"San Francisco","temperature":61,"units":"f"}');
    t.equal(textOf(evs, 2), '{"city":"San Francisco","temperature":59,"units":"f"}');
    const stop = { stopReason: 'end', providerReason: 'stop' };
    t.same(view(ofType(evs, 'done')), [
      { type: 'done', ...stop, choices: [0, 1, 2].map((choice) => ({ choice, ...stop })) },
    ]);
    t.equal(evs.at(-1)!.type, 'done', 'the one done is last');
    t.equal(evs.at(-1)!.choice, undefined, 'and carries no choice field');
    t.match(ofType(evs, 'usage'), [{ inputTokens: 79, outputTokens: 42, totalTokens: 121 }]);
    t.end();
  });

  t.test('parallel tool calls', (t) => {
    const evs = c('openai-python--parallel-tool-calls.sse');
    t.same(
      ofType(evs, 'tool_call_done').map((e) => [e.index, e.id, e.name, JSON.parse(e.arguments)]),
      [
        [0, 'call_JMW1whyEaYG438VE1OIflxA2', 'GetWeatherArgs', { city: 'Edinburgh', country: 'GB', units: 'c' }],
        [1, 'call_DNYTawLBoN8fj3KN6qU9N1Ou', 'get_stock_price', { ticker: 'AAPL', exchange: 'NASDAQ' }],
      ],
    );
    for (const d of ofType(evs, 'tool_call_delta')) t.not(d.argumentsDelta, '', 'no empty argument delta');
    t.same(view(mainDones(evs)), [{ type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' }]);
    t.end();
  });

  t.test('refusals', (t) => {
    for (const f of ['openai-python--refusal.sse', 'openai-python--refusal-logprobs.sse']) {
      const evs = c(f);
      const r = ofType(evs, 'text_delta');
      t.ok(r.length > 3 && r.every((d) => d.refusal === true), `${f}: refusal channel`);
      t.match(r.map((d) => d.text).join(''), /^I'm (sorry|very sorry)/, `${f}: refusal text`);
      t.match(mainDones(evs), [{ stopReason: 'end', providerReason: 'stop' }]);
    }
    t.equal(
      ofType(c('openai-python--refusal.sse'), 'text_delta').map((d) => d.text).join(''),
      "I'm sorry, I can't assist with that request.",
    );
    t.end();
  });

  t.test('structured output long', (t) => {
    const evs = c('openai-python--structured-output-long.sse');
    const text = textOf(evs);
    t.doesNotThrow(() => JSON.parse(text), 'the concatenated text is the whole JSON document');
    t.match(ofType(evs, 'usage'), [{ inputTokens: 19, outputTokens: 177, totalTokens: 196 }]);
    t.match(mainDones(evs), [{ stopReason: 'end' }]);
    t.end();
  });

  t.test('text usage', (t) => {
    const evs = c('openai-python--text-usage.sse');
    t.match(textOf(evs), /^I'm unable/);
    t.same(view(evs.slice(-2)), [
      { type: 'usage', inputTokens: 14, outputTokens: 30, totalTokens: 44, reasoningTokens: 0, cachedInputTokens: null },
      { type: 'done', stopReason: 'end', providerReason: 'stop' },
    ]);
    t.end();
  });

  t.test('strict tool call', (t) => {
    const evs = c('openai-python--tool-call-strict.sse');
    t.equal(evs[1]!.type, 'tool_call_start', 'id and name on the role chunk');
    const done = ofType(evs, 'tool_call_done');
    t.equal(done.length, 1);
    t.match(done[0], { id: 'call_CTf1nWJLqSeRgDqaCG27xZ74', name: 'get_weather' });
    t.match(JSON.parse(done[0]!.arguments), { city: String });
    t.equal(done[0]!.arguments, ofType(evs, 'tool_call_delta').map((d) => d.argumentsDelta).join(''));
    t.match(mainDones(evs), [{ stopReason: 'tool_use' }]);
    t.end();
  });

  t.test('deepseek reasoning_content then content, usage on the last choice chunk', (t) => {
    const evs = c('pydantic-ai--compat-deepseek-reasoning-content.sse');
    const reasoning = ofType(evs, 'reasoning_delta').map((e) => e.text).join('');
    t.match(reasoning, /^Hmm,/);
    t.equal(textOf(evs).slice(0, 12), 'Hello there!');
    const types = evs.map((e) => e.type);
    t.ok(types.lastIndexOf('reasoning_delta') < types.indexOf('text_delta'), 'reasoning first');
    t.same(view(evs.slice(-2)), [
      { type: 'usage', inputTokens: 6, outputTokens: 212, totalTokens: 218, reasoningTokens: 198, cachedInputTokens: 0 },
      { type: 'done', stopReason: 'end', providerReason: 'stop' },
    ]);
    t.end();
  });

  t.test('groq event: error, no [DONE]: error + done(error)', (t) => {
    const evs = c('pydantic-ai--compat-groq-error-event.sse');
    t.ok(ofType(evs, 'reasoning_delta').length > 50, 'delta.reasoning → reasoning_delta');
    t.same(view(evs.slice(-2)), [
      {
        type: 'error',
        code: 'tool_use_failed',
        message:
          "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]",
        terminal: true,
      },
      { type: 'done', stopReason: 'error', providerReason: null },
    ]);
    t.notOk(evs.some((e) => e.type === 'error' && e.code === 'incomplete_stream'));
    t.end();
  });

  t.test('openrouter error chunk after length: usage, error, done(error); [DONE] after it is raw', (t) => {
    const evs = c('pydantic-ai--compat-openrouter-error-chunk.sse');
    t.equal(ofType(evs, 'reasoning_delta').map((e) => e.text).join(''), 'We need to respond to a greeting. The user');
    t.same(view(evs.slice(-4)), [
      { type: 'usage', inputTokens: 43, outputTokens: 10, totalTokens: 53, reasoningTokens: 11, cachedInputTokens: 0 },
      { type: 'error', code: '400', message: 'Token limit reached', terminal: true },
      { type: 'done', stopReason: 'error', providerReason: 'length' },
      { type: 'raw' },
    ]);
    t.equal((evs.at(-1) as { event: unknown }).event, '[DONE]');
    t.match(ofType(evs, 'error')[0]!.raw, { error: { code: 400 } }, 'error.raw is the chunk');
    t.end();
  });

  t.test('long tool arguments with obfuscation', (t) => {
    const evs = c('pydantic-ai--long-tool-arguments-obfuscation.sse');
    const deltas = ofType(evs, 'tool_call_delta');
    t.ok(deltas.length > 40);
    const done = ofType(evs, 'tool_call_done');
    t.equal(done.length, 1);
    t.equal(done[0]!.name, 'final_result');
    t.equal(done[0]!.arguments, deltas.map((d) => d.argumentsDelta).join(''));
    t.same(JSON.parse(done[0]!.arguments), {
      answers: [
        { label: 'Capital', answer: 'The capital of Mexico is Mexico City.' },
        { label: 'Weather', answer: 'The weather in Mexico City is currently sunny.' },
        { label: 'Product Name', answer: 'The product name is Pydantic AI.' },
      ],
    });
    t.match(ofType(evs, 'usage'), [{ inputTokens: 448, outputTokens: 62, totalTokens: 510 }]);
    t.match(mainDones(evs), [{ stopReason: 'tool_use', providerReason: 'tool_calls' }]);
    t.end();
  });

  t.test('moderation chunk after usage: raw', (t) => {
    const evs = c('pydantic-ai--moderation-field.sse');
    t.equal(textOf(evs), 'Paris.');
    t.same(
      evs.slice(-3).map((e) => e.type),
      ['usage', 'raw', 'done'],
    );
    t.match(evs.at(-2), { event: { choices: [], moderation: { input: { type: 'moderation_results' } } } });
    t.equal(ofType(evs, 'usage').length, 1, '"usage": null chunks give no usage');
    t.end();
  });

  t.test('perplexity: citations repeated on every chunk are emitted once, on the first', (t) => {
    const evs = c('vercel-ai--compat-perplexity-citations.sse');
    const cites = ofType(evs, 'citation');
    t.equal(cites.length, 7, 'seven URLs, each once (the chunks repeat them eight times)');
    t.ok(cites.every((e) => e.index === 0 && e.choice === undefined && e.raw === e.url && e.title === undefined));
    t.equal(cites[1]!.url, 'https://en.wikipedia.org/wiki/San_Francisco');
    const first = evs.findIndex((e) => e.type === 'citation');
    t.ok(first < evs.findIndex((e) => e.type === 'text_delta' && e.text === ' current'), 'they come with the first chunk');
    t.equal(textOf(evs), 'The current population of **[2][3]');
    t.match(ofType(evs, 'usage').at(-1), { inputTokens: 10, outputTokens: 336, totalTokens: 346 });
    t.same(view(mainDones(evs)), [{ type: 'done', stopReason: 'end', providerReason: 'stop' }], 'object chat.completion.done is one more chunk');
    t.end();
  });

  t.test('parallel tool calls with obfuscation', (t) => {
    const evs = c('pydantic-ai--parallel-tool-calls-obfuscation.sse');
    t.same(
      ofType(evs, 'tool_call_done').map((e) => [e.index, e.name, e.arguments]),
      [
        [0, 'get_country', '{}'],
        [1, 'get_product_name', '{}'],
      ],
    );
    t.match(ofType(evs, 'usage'), [{ inputTokens: 364, outputTokens: 40, totalTokens: 404 }]);
    t.end();
  });

  t.end();
});

// ---------------------------------------------------------------- edge cases

t.test('start {null, null} before the first non-raw event when no chunk has an id or model', (t) => {
  const anon = (choices: object[]) => ({ id: '', object: '', created: 0, model: '', choices });
  const evs = run(sse(anon([]), anon([delta({ content: 'Hi' })]), anon([delta({}, 'stop')]), '[DONE]'));
  t.same(view(evs), [
    { type: 'raw' },
    { type: 'start', id: null, model: null, dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'raw' },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ]);
  const onlyDone = run(sse(anon([]), '[DONE]'));
  t.same(view(onlyDone), [
    { type: 'raw' },
    { type: 'start', id: null, model: null, dialect: 'openai-chat' },
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  const cut = run(sse(anon([])));
  t.same(
    cut.map((e) => e.type),
    ['raw', 'start', 'error', 'done'],
    'cut after a raw-only chunk: start still precedes the incomplete_stream error',
  );
  t.end();
});

t.test('finish_reason mapping', (t) => {
  const cases: [string | null, boolean, string, string | null][] = [
    ['stop', false, 'end', 'stop'],
    ['length', false, 'max_tokens', 'length'],
    ['tool_calls', true, 'tool_use', 'tool_calls'],
    ['function_call', true, 'tool_use', 'function_call'],
    ['content_filter', false, 'refusal', 'content_filter'],
    ['eos', false, 'other', 'eos'],
    [null, false, 'end', null],
    [null, true, 'tool_use', null],
    ['stop', true, 'tool_use', 'stop'],
  ];
  for (const [reason, withTool, stop, provider] of cases) {
    const first = withTool
      ? delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] })
      : delta({ content: 'x' });
    const evs = run(sse(chunk([first]), chunk([delta({}, reason)]), '[DONE]'));
    t.same(view(mainDones(evs)), [{ type: 'done', stopReason: stop, providerReason: provider }], `${reason} tools=${withTool}`);
    if (withTool) t.equal(ofType(evs, 'tool_call_done').length, 1, 'call closed once');
  }
  t.end();
});

t.test('reasoning: reasoning_content and reasoning, never both, never empty', (t) => {
  const evs = run(
    sse(
      chunk([delta({ role: 'assistant', reasoning_content: '' })]),
      chunk([delta({ reasoning_content: 'a', reasoning: 'a' })]),
      chunk([delta({ reasoning: 'b', reasoning_content: null })]),
      chunk([delta({ reasoning: '' , content: 'c' })]),
      chunk([delta({}, 'stop')]),
      '[DONE]',
    ),
  );
  t.same(
    evs.filter((e) => e.type === 'reasoning_delta' || e.type === 'text_delta').map((e) => [e.type, (e as { text: string }).text]),
    [
      ['reasoning_delta', 'a'],
      ['reasoning_delta', 'b'],
      ['text_delta', 'c'],
    ],
  );
  t.end();
});

t.test('tool calls: same id repeated is one call, a new id at the same index is a new call', (t) => {
  const tc = (id: string | undefined, name: string | undefined, args: string | null) => ({
    index: 0,
    ...(id === undefined ? {} : { id }),
    type: 'function',
    function: { ...(name === undefined ? {} : { name }), arguments: args },
  });
  const evs = run(
    sse(
      chunk([delta({ tool_calls: [tc('A', 'one', '')] })]),
      chunk([delta({ tool_calls: [tc('A', 'one', '{"x":')] })]),
      chunk([delta({ tool_calls: [tc(undefined, undefined, '1}')] })]),
      chunk([delta({ tool_calls: [tc('B', 'two', '{}')] })]),
      chunk([delta({}, 'tool_calls')]),
      chunk([delta({ tool_calls: [tc(undefined, undefined, 'late')] })]),
      '[DONE]',
    ),
  );
  t.same(view(evs.slice(1)), [
    { type: 'tool_call_start', index: 0, id: 'A', name: 'one' },
    { type: 'tool_call_delta', index: 0, id: 'A', argumentsDelta: '{"x":' },
    { type: 'tool_call_delta', index: 0, id: 'A', argumentsDelta: '1}' },
    { type: 'tool_call_done', index: 0, id: 'A', name: 'one', arguments: '{"x":1}' },
    { type: 'tool_call_start', index: 0, id: 'B', name: 'two' },
    { type: 'tool_call_delta', index: 0, id: 'B', argumentsDelta: '{}' },
    { type: 'tool_call_done', index: 0, id: 'B', name: 'two', arguments: '{}' },
    { type: 'raw' }, // a fragment after finish_reason has no open call: kept as raw
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ]);
  t.end();
});

t.test('tool calls: missing id is synthesized; legacy function_call', (t) => {
  const evs = run(
    sse(
      chunk([delta({ tool_calls: [{ index: 2, function: { name: 'f', arguments: '{"a":' } }] })]),
      chunk([delta({ tool_calls: [{ index: 2, id: 'late_id', function: { arguments: '2}' } }] })]),
      chunk([delta({}, 'tool_calls')]),
      '[DONE]',
    ),
  );
  t.same(view(ofType(evs, 'tool_call_done')), [
    { type: 'tool_call_done', index: 2, id: 'call_2', name: 'f', arguments: '{"a":2}' },
  ]);
  const legacy = run(
    sse(
      chunk([delta({ role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '' } })]),
      chunk([delta({ function_call: { arguments: '{"q":"x"}' } })]),
      chunk([delta({}, 'function_call')]),
      '[DONE]',
    ),
  );
  t.same(view(legacy.slice(1)), [
    { type: 'tool_call_start', index: 0, id: 'call_0', name: 'lookup' },
    { type: 'tool_call_delta', index: 0, id: 'call_0', argumentsDelta: '{"q":"x"}' },
    { type: 'tool_call_done', index: 0, id: 'call_0', name: 'lookup', arguments: '{"q":"x"}' },
    { type: 'done', stopReason: 'tool_use', providerReason: 'function_call' },
  ]);
  t.end();
});

t.test('n>1 tool calls carry choice; error and cut-off give every choice its stop in the one done', (t) => {
  const call = { index: 0, id: 'call_k1', type: 'function', function: { name: 'f', arguments: '{}' } };
  const evs = run(
    sse(
      chunk([delta({ content: 'zero' }, null, 0)]),
      chunk([delta({ tool_calls: [call] }, null, 1)]),
      chunk([delta({}, 'tool_calls', 1)]),
      chunk([delta({}, 'stop', 0)]),
      '[DONE]',
    ),
  );
  t.same(view(evs.slice(1)), [
    { type: 'text_delta', index: 0, text: 'zero' },
    { type: 'tool_call_start', index: 0, id: 'call_k1', name: 'f', choice: 1 },
    { type: 'tool_call_delta', index: 0, id: 'call_k1', argumentsDelta: '{}', choice: 1 },
    { type: 'tool_call_done', index: 0, id: 'call_k1', name: 'f', arguments: '{}', choice: 1 },
    { type: 'raw' },
    doneOf(['end', 'stop'], ['tool_use', 'tool_calls']),
  ]);

  // Cut before choice 0's finish_reason: incomplete, every choice stops in error (keeping the reason seen).
  const cut = run(sse(chunk([delta({ content: 'a' }, null, 0)]), chunk([delta({ content: 'b' }, 'stop', 1)])));
  t.same(view(cut.slice(1)), [
    { type: 'text_delta', index: 0, text: 'a' },
    { type: 'text_delta', index: 0, text: 'b', choice: 1 },
    { type: 'error', code: 'incomplete_stream', message: "input ended before the response's terminal event", terminal: true },
    doneOf(['error', null], ['error', 'stop']),
  ]);

  const failed = run(
    sse(
      chunk([delta({ content: 'a' }, null, 0)]),
      chunk([delta({ content: 'b' }, null, 1)]),
      { error: { message: 'overloaded', type: 'server_error', code: null } },
    ),
  );
  t.same(view(failed.slice(-2)), [
    { type: 'error', code: 'server_error', message: 'overloaded', terminal: true },
    doneOf(['error', null], ['error', null]),
  ]);
  t.end();
});

t.test('error chunk closes open calls first; a string error is understood', (t) => {
  const evs = run(
    sse(
      chunk([delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a"' } }] })]),
      chunk([delta({}, 'error')], { error: 'upstream disconnected' }),
      '[DONE]',
    ),
  );
  t.same(view(evs.slice(1)), [
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'f' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '{"a"' },
    { type: 'tool_call_done', index: 0, id: 'c1', name: 'f', arguments: '{"a"' },
    { type: 'error', code: 'provider_error', message: 'upstream disconnected', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: 'error' },
    { type: 'raw' },
  ]);
  t.end();
});

t.test('an error as the first payload under an explicit dialect: error + done, no start', (t) => {
  const evs = run(sse({ error: { message: 'Rate limit', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }));
  t.same(view(evs), [
    { type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ]);
  t.end();
});

t.test('two responses back to back: each gets start … done', (t) => {
  const one = sse(chunk([delta({ content: 'one' }, 'stop')]), '[DONE]');
  const two = sse({ ...chunk([delta({ content: 'two' }, 'length')]), id: 'chatcmpl-t2' }, '[DONE]');
  const evs = run(one + two);
  t.same(view(evs), [
    { type: 'start', id: 'chatcmpl-t1', model: 'gpt-4o', dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: 'one' },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
    { type: 'start', id: 'chatcmpl-t2', model: 'gpt-4o', dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: 'two' },
    { type: 'done', stopReason: 'max_tokens', providerReason: 'length' },
  ]);
  t.end();
});

t.test('usage: cached tokens, DeepSeek fallback, total from input+output', (t) => {
  const u = (usage: object) => ofType(run(sse(chunk([], { usage }), '[DONE]')), 'usage')[0]!;
  t.match(u({ prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 64 } }), {
    inputTokens: 100,
    outputTokens: 20,
    totalTokens: 120,
    cachedInputTokens: 64,
    reasoningTokens: null,
  });
  t.match(u({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_cache_hit_tokens: 8 }), {
    cachedInputTokens: 8,
  });
  // OpenAI semantics: completion already includes reasoning.
  t.match(u({ prompt_tokens: 10, completion_tokens: 50, completion_tokens_details: { reasoning_tokens: 40 } }), {
    outputTokens: 50,
    reasoningTokens: 40,
    totalTokens: 60,
  });
  // …unless total_tokens proves the reasoning tokens were left out.
  t.match(
    u({ prompt_tokens: 10, completion_tokens: 10, total_tokens: 60, completion_tokens_details: { reasoning_tokens: 40 } }),
    { outputTokens: 50, totalTokens: 60 },
  );
  t.match(u({}), { inputTokens: null, outputTokens: null, totalTokens: null });
  const groq = run(
    sse(
      chunk([delta({}, 'stop')], {
        x_groq: { id: 'req_1', usage: { queue_time: 0.01, prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 } },
      }),
      '[DONE]',
    ),
  );
  t.same(view(groq.slice(1)), [
    { type: 'usage', inputTokens: 30, outputTokens: 7, totalTokens: 37, reasoningTokens: null, cachedInputTokens: null },
    { type: 'done', stopReason: 'end', providerReason: 'stop' },
  ], 'Groq x_groq.usage');
  t.end();
});

t.test('bad provider data never throws', (t) => {
  const evs = run(
    sse(
      chunk([null, 3, { index: 'x', delta: 'nope' }, { index: 0, delta: { tool_calls: [null, { function: 7 }] } }] as object[]),
      chunk('not-an-array' as unknown as object[], { usage: [] }),
      [1, 2],
      '[DONE]',
    ),
  );
  t.equal(mainDones(evs).length, 1);
  t.match(mainDones(evs), [{ stopReason: 'tool_use' }], 'the id-less, name-less fragment still made a call');
  t.match(ofType(evs, 'tool_call_start'), [{ index: 1, id: 'call_1', name: '' }]);
  t.end();
});
