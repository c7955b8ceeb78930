/**
 * Anthropic Messages hosted tools (issue 28): server_tool_use / mcp_tool_use
 * are provider-executed calls, `*_tool_result` blocks their tool_result,
 * citations, content at message_start (programmatic tool calling), and the
 * stop reason when no client call is pending. Expected values come from
 * reading the captures (fixtures/corpus/anthropic-messages/), not from
 * running this code.
 */
import t, { type Test } from 'tap';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { ContentBlock, FinalResult } from '../../lib/accumulate/types.js';
import type { DialectOption, Json, UnifiedEvent } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents, type Input } from '../helpers/decode.js';
import { typedSse as sse } from '../helpers/sse.js';

const DIALECT = 'anthropic-messages';

const decode = (input: Input, dialect: DialectOption = DIALECT): UnifiedEvent[] => decodeEvents(input, { dialect });

function finalOf(events: UnifiedEvent[]): FinalResult {
  const finals = runStage(createFinalAccumulator(), events);
  if (finals.length !== 1) throw new Error(`${finals.length} finals`);
  return finals[0]!;
}

const corpus = new Map(corpusFiles([DIALECT]).map((f) => [f.name.slice(DIALECT.length + 1), f.bytes]));

function capture(name: string): { events: UnifiedEvent[]; final: FinalResult } {
  const bytes = corpus.get(name);
  if (bytes === undefined) throw new Error(`no capture ${name}`);
  const events = decode(bytes);
  return { events, final: finalOf(events) };
}

/** A capture whose calls Anthropic ran all by itself: nothing for the client, and the response ended. */
function providerOnly(t: Test, name: string): { events: UnifiedEvent[]; final: FinalResult } {
  const r = capture(name);
  t.strictSame(r.final.toolCalls, [], 'no call for the client');
  t.equal(r.final.stopReason, 'end', 'stop end');
  t.equal(r.final.providerReason, 'end_turn');
  return r;
}

/** One line per content block: `text`, `reasoning`, `call <id> <name> <arguments> [provider]`, `result <id> <name> [error]`. */
function outline(content: ContentBlock[]): string[] {
  return content.map((b) => {
    switch (b.type) {
      case 'text':
      case 'reasoning':
      case 'refusal':
        return b.type;
      case 'tool_call':
        return `call ${b.id} ${b.name} ${JSON.stringify(b.arguments)}${b.providerExecuted ? ' provider' : ''}`;
      case 'tool_result':
        return `result ${b.id} ${b.name}${b.isError ? ' error' : ''}`;
      case 'file':
        return `file ${b.mimeType}`;
    }
  });
}

const repeat = (n: number, line: string): string[] => Array.from({ length: n }, () => line);

function results(final: FinalResult): Json[] {
  return final.content.flatMap((b) => (b.type === 'tool_result' ? [b.result] : []));
}

function texts(final: FinalResult): string[] {
  return final.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
}

/** The provider-executed flag on every tool-call event of a call, by id. */
function flags(events: UnifiedEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    if (e.type === 'tool_call_start' || e.type === 'tool_call_delta' || e.type === 'tool_call_done') {
      out[e.id] = (out[e.id] ?? '') + (e.providerExecuted === true ? 'P' : 'c');
    }
  }
  return out;
}

// ------------------------------------------------------------------ corpus

t.test('web search with thinking and citations: two provider calls, their results, seven citations', (t) => {
  const { events, final } = providerOnly(t, 'pydantic-ai--web-search-thinking-citations.sse');
  t.strictSame(outline(final.content), [
    'reasoning',
    'call srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h web_search {"query":"San Francisco weather today"} provider',
    'result srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h web_search',
    'text',
    'call srvtoolu_01FDqc7ruGpVRoNuD5G6jkUx web_search {"query":"San Francisco weather September 16 2025"} provider',
    'result srvtoolu_01FDqc7ruGpVRoNuD5G6jkUx web_search',
    ...repeat(11, 'text'),
  ]);
  const [first, second] = results(final) as { type: string; url: string; title: string }[][];
  t.equal(first?.length, 10, 'ten search results');
  t.equal(second?.length, 10, 'ten search results');
  t.ok([...first!, ...second!].every((r) => r.type === 'web_search_result'), 'as received: web_search_result entries');
  t.match(first![0], { url: 'https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629', title: 'San Francisco, CA Weather Forecast | AccuWeather' });
  t.match(second![0], { url: 'https://www.weather25.com/north-america/usa/california/san-francisco?page=month&month=September', title: 'San Francisco weather in September 2025 | Weather25.com' });
  t.equal(texts(final)[2], 'today (September 16) shows a high of 76°F and low of 59°F', 'the text of block 7');
  const sfc = {
    url: 'https://www.sfchronicle.com/weather-forecast/article/weather-forecast-san-francisco-21043269.php',
    title: 'Here’s when S.F. weather could hit 90 degrees next week',
    citedText: 'Average mid-September highs in San Francisco are around 70 degrees. ',
  };
  const w2t = {
    url: 'https://www.weather2travel.com/california/san-francisco/september/',
    title: 'San Francisco weather in September 2025 | California',
  };
  t.strictSame(final.citations, [
    {
      index: 7,
      url: 'https://www.accuweather.com/en/us/san-francisco/94103/september-weather/347629',
      title: 'San Francisco, CA Monthly Weather | AccuWeather',
      citedText:
        'San Francisco, CA Weather Today WinterCast Local {stormName} Tracker Hourly Daily Radar MinuteCast® Monthly Air Quality Health & Activities · News · F...',
    },
    { index: 9, ...sfc },
    { index: 9, ...sfc },
    { index: 11, ...w2t, citedText: '... Daytime temperatures usually reach 22°C in San Francisco in September, falling to 13°C at night. ' },
    { index: 11, ...w2t, citedText: '... Daytime temperatures usually reach 22°C in San Francisco in September, falling to 13°C at night. ' },
    { index: 13, ...w2t, citedText: "There are normally 9 hours of bright sunshine each day in San Francisco in September - that's 73% of daylight hours. " },
    {
      index: 15,
      url: 'https://en.climate-data.org/north-america/united-states-of-america/california/san-francisco-385/t/september-9/',
      title: 'Weather San Francisco in September 2025: Temperature & Climate',
      citedText:
        'San Francisco experiences minimal rainfall in September, with an average precipitation of just 3mm. Typically, there are no rainy days during this mon...',
    },
  ]);
  const citation = events.find((e) => e.type === 'citation');
  t.match(citation, { raw: { type: 'web_search_result_location', encrypted_index: String } }, 'the provider citation object is the raw');
  t.notOk(events.some((e) => e.type === 'citation' && (e.start !== undefined || e.end !== undefined)), 'no offsets: a citation covers its text block');
  // start + 8 (of 9: one is empty) or 11 (of 12) fragments + done
  t.strictSame(flags(events), { srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h: 'P'.repeat(10), srvtoolu_01FDqc7ruGpVRoNuD5G6jkUx: 'P'.repeat(13) }, 'start, every delta and done flagged');
  t.end();
});

t.test('web search without ping: nine citations, two of them quoting nothing', (t) => {
  const { final } = providerOnly(t, 'pydantic-ai--web-search-no-ping.sse');
  t.strictSame(outline(final.content), [
    'call srvtoolu_01NcU4XNwyxWK6a9tcJZ8wGY web_search {"query":"top world news today"} provider',
    'result srvtoolu_01NcU4XNwyxWK6a9tcJZ8wGY web_search',
    'text',
    'call srvtoolu_01WiP3ZfXZXSykVQEL78XJ4T web_search {"query":"breaking news headlines August 14 2025"} provider',
    'result srvtoolu_01WiP3ZfXZXSykVQEL78XJ4T web_search',
    ...repeat(17, 'text'),
  ]);
  t.strictSame(
    results(final).map((r) => (r as Json[]).length),
    [10, 10],
  );
  t.strictSame(
    final.citations.map((c) => [c.index, c.url]),
    [
      [6, 'https://www.npr.org/sections/news/'],
      [6, 'https://abcnews.go.com/'],
      [8, 'https://abcnews.go.com/'],
      [10, 'https://www.cnn.com/2025/07/14/us/5-things-to-know-for-july-14-immigration-gaza-epstein-files-kentucky-shooting-texas-flooding'],
      [12, 'https://www.cnn.com/'],
      [14, 'https://www.cbsnews.com/world/'],
      [16, 'https://edition.cnn.com/'],
      [18, 'https://www.npr.org/sections/news/'],
      [20, 'https://abcnews.go.com/International'],
    ],
  );
  // `cited_text: ""` is no quote.
  t.strictSame(final.citations[1], { index: 6, url: 'https://abcnews.go.com/', title: 'ABC News – Breaking News, Latest News and Videos' });
  t.strictSame(final.citations[6], {
    index: 16,
    url: 'https://edition.cnn.com/',
    title: 'Breaking News, Latest News and Videos | CNN',
    citedText: 'Now, he could be fined for it · Aug 13, 2025 · Pinkfong! ',
  });
  t.end();
});

t.test('web fetch: the fetched document is the result, as received', (t) => {
  const { final } = providerOnly(t, 'pydantic-ai--web-fetch.sse');
  t.strictSame(outline(final.content), [
    'reasoning',
    'call srvtoolu_018ADaxdJjyZ8HXtF3sTBPNk web_fetch {"url":"https://ai.pydantic.dev"} provider',
    'result srvtoolu_018ADaxdJjyZ8HXtF3sTBPNk web_fetch',
    'text',
  ]);
  t.match(results(final)[0], {
    type: 'web_fetch_result',
    url: 'https://ai.pydantic.dev',
    retrieved_at: '2025-11-14T23:34:21.151000+00:00',
    content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: /^Pydantic AI\nGenAI Agent Framework, the Pydantic way\n/ } },
  });
  t.strictSame(final.citations, []);
  t.end();
});

t.test('bash code execution: the command and its output', (t) => {
  const { final } = providerOnly(t, 'pydantic-ai--code-execution-bash.sse');
  t.strictSame(outline(final.content), [
    'reasoning',
    'text',
    'call srvtoolu_01MwXaweAHve88x6s3Fc8x6Q bash_code_execution {"command":"echo \\"65465-6544 * 65464-6+1.02255\\" | bc -l"} provider',
    'result srvtoolu_01MwXaweAHve88x6s3Fc8x6Q bash_code_execution',
    'text',
  ]);
  t.strictSame(results(final), [{ type: 'bash_code_execution_result', stdout: '-428330955.97745\n', stderr: '', return_code: 0, content: [] }]);
  t.equal(final.reasoning, 'Let me calculate this mathematical expression.');
  t.end();
});

t.test('code execution 20250825 (text editor, then bash)', (t) => {
  const { final } = providerOnly(t, 'vercel-ai--code-execution-20250825.sse');
  const lines = outline(final.content);
  t.equal(lines.length, 7);
  t.match(lines[1], /^call srvtoolu_0112cP8RpnKv67t2cscmN4ia text_editor_code_execution \{"command":"create","path":"\/tmp\/fibonacci\.py","file_text":"def fibonacci\(n\):.* provider$/);
  t.strictSame(
    [lines[0], ...lines.slice(2)],
    [
      'text',
      'result srvtoolu_0112cP8RpnKv67t2cscmN4ia text_editor_code_execution',
      'text',
      'call srvtoolu_01K2E2j5mkxbtLqNBc6RJHds bash_code_execution {"command":"python /tmp/fibonacci.py"} provider',
      'result srvtoolu_01K2E2j5mkxbtLqNBc6RJHds bash_code_execution',
      'text',
    ],
  );
  t.strictSame(results(final), [
    { type: 'text_editor_code_execution_create_result', is_file_update: false },
    {
      type: 'bash_code_execution_result',
      stdout:
        'The 10th Fibonacci number is: 34\n\nFirst 10 Fibonacci numbers:\nF(1) = 0\nF(2) = 1\nF(3) = 1\nF(4) = 2\nF(5) = 3\nF(6) = 5\nF(7) = 8\nF(8) = 13\nF(9) = 21\nF(10) = 34\n',
      stderr: '',
      return_code: 0,
      content: [],
    },
  ]);
  t.end();
});

t.test('text editor code execution: an error result is isError', (t) => {
  const { final } = providerOnly(t, 'pydantic-ai--text-editor-code-execution.sse');
  t.strictSame(outline(final.content), [
    'text',
    'call srvtoolu_01Xd8YZU6yAcvd5JbLCTRfFi text_editor_code_execution {"command":"create","path":"/tmp/hello.txt","file_text":"Hello, world!"} provider',
    'call srvtoolu_01F3VxYFjEyogm8Ynuc75zfs text_editor_code_execution {"command":"view","path":"/tmp/hello.txt"} provider',
    'result srvtoolu_01Xd8YZU6yAcvd5JbLCTRfFi text_editor_code_execution',
    'result srvtoolu_01F3VxYFjEyogm8Ynuc75zfs text_editor_code_execution error',
    'text',
    'call srvtoolu_01UZ1EtACaBJ87pPA9guaxHU text_editor_code_execution {"command":"view","path":"/tmp/hello.txt"} provider',
    'result srvtoolu_01UZ1EtACaBJ87pPA9guaxHU text_editor_code_execution',
    'text',
  ]);
  t.strictSame(results(final), [
    { type: 'text_editor_code_execution_create_result', is_file_update: false },
    {
      type: 'text_editor_code_execution_tool_result_error',
      error_code: 'unavailable',
      error_message: 'Tool response parsing error for view: Failed to parse tool response as JSON: unexpected character: line 1 column 1 (char 0)',
    },
    { type: 'text_editor_code_execution_view_result', file_type: 'text', content: 'Hello, world!', num_lines: 1, start_line: 1, total_lines: 1 },
  ]);
  t.end();
});

t.test('MCP connector: the call under its own name, server_name in the raw start, the result', (t) => {
  const { events, final } = providerOnly(t, 'pydantic-ai--mcp-tool-use.sse');
  t.strictSame(outline(final.content), [
    'reasoning',
    'call mcptoolu_01FZmJ5UspaX5BB9uU339UT1 ask_question {"repoName":"pydantic/pydantic-ai","question":"What is this repository about? What are its main features and purpose?"} provider',
    'result mcptoolu_01FZmJ5UspaX5BB9uU339UT1 ask_question',
    'text',
  ]);
  const result = results(final)[0] as { type: string; text: string }[];
  t.equal(result.length, 1);
  t.equal(result[0]?.type, 'text');
  t.match(result[0]?.text, /^This repository, `pydantic\/pydantic-ai`, is a GenAI Agent Framework/);
  const i = events.findIndex((e) => e.type === 'tool_call_start');
  t.strictSame(events[i], { type: 'tool_call_start', index: 1, id: 'mcptoolu_01FZmJ5UspaX5BB9uU339UT1', name: 'ask_question', providerExecuted: true });
  t.match(events[i + 1], { type: 'raw', event: { type: 'content_block_start', index: 1, content_block: { type: 'mcp_tool_use', server_name: 'deepwiki' } } }, 'server_name stays reachable');
  t.end();
});

t.test('tool search, then a client call: only that one is in toolCalls, and the stop is tool_use', (t) => {
  const { events, final } = capture('pydantic-ai--tool-search-then-tool-use.sse');
  t.strictSame(final.toolCalls, [{ id: 'toolu_01EFn5wTNBYA8Reni8rbmnHT', name: 'get_exchange_rate', arguments: { from_currency: 'USD', to_currency: 'EUR' } }]);
  t.equal(final.stopReason, 'tool_use');
  t.equal(final.providerReason, 'tool_use');
  t.strictSame(outline(final.content), [
    'text',
    'call srvtoolu_01S5swZdBmTzLDVzwcT5LbHp tool_search_tool_bm25 {"query":"USD EUR exchange rate currency conversion"} provider',
    'result srvtoolu_01S5swZdBmTzLDVzwcT5LbHp tool_search_tool_bm25',
    'text',
    'call toolu_01EFn5wTNBYA8Reni8rbmnHT get_exchange_rate {"from_currency":"USD","to_currency":"EUR"}',
  ]);
  t.strictSame(results(final), [{ type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'get_exchange_rate' }] }]);
  // start + 8 non-empty fragments (of 9) + done, each
  t.strictSame(flags(events), { srvtoolu_01S5swZdBmTzLDVzwcT5LbHp: 'P'.repeat(10), toolu_01EFn5wTNBYA8Reni8rbmnHT: 'c'.repeat(10) });
  t.end();
});

t.test('advisor: a call with no arguments and its advice', (t) => {
  const { final } = providerOnly(t, 'pydantic-ai--advisor-tool.sse');
  t.strictSame(outline(final.content), [
    'reasoning',
    'text',
    'call srvtoolu_01DgsKYsJWQfJxubLmaKLEj6 advisor {} provider',
    'result srvtoolu_01DgsKYsJWQfJxubLmaKLEj6 advisor',
    'text',
  ]);
  t.strictSame(results(final), [{ type: 'advisor_result', text: '4.\n\nShip it — this needs no further calls.', stop_reason: 'end_turn' }]);
  t.equal(texts(final)[1], 'The answer is **4**.');
  t.end();
});

t.test('pause_turn: eleven searches, ten results, stop other; the continuation brings the last result', (t) => {
  const paused = capture('pydantic-ai--pause-turn.sse').final;
  t.strictSame(paused.toolCalls, []);
  t.equal(paused.stopReason, 'other');
  t.equal(paused.providerReason, 'pause_turn');
  const pairs = (ids: string[]): string[] => ids.flatMap((id) => [`${id} web_search`, `${id} web_search`]);
  const lines = outline(paused.content).map((l) => l.replace(/^(call|result) (\S+) (\S+).*$/, '$2 $3'));
  t.strictSame(lines, [
    'reasoning',
    'text',
    ...pairs([
      'srvtoolu_01FGPZ2P6yPXWdiD1Cxjpix3',
      'srvtoolu_01FFhqUX7uk2uakLEqo1v9D2',
      'srvtoolu_01Qu6xumZrwPeBQYGdawQUMS',
      'srvtoolu_01JjHpcj7RERHyZgH3QmUv4i',
      'srvtoolu_01MWxzBCgoNxNjk5DiMqLv9u',
      'srvtoolu_01Uu9K4fi2aJbym3jd797DPa',
      'srvtoolu_01BTRCcGdMQbeAviLraoxoXq',
      'srvtoolu_01NV7iQ8LzvPYQpa5Kwy8HB5',
    ]),
    'text',
    ...pairs(['srvtoolu_01Ewz8JuxwuYL5wDNADGeEFL', 'srvtoolu_012kdkr4fhMUVKKXVWqaunrP']),
    'text',
    'srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA web_search',
  ]);
  t.equal(paused.content.filter((b) => b.type === 'tool_call' && b.providerExecuted === true).length, 11);
  t.strictSame(
    results(paused).map((r) => (r as Json[]).length),
    [9, 10, 9, 10, 10, 10, 10, 10, 8, 9],
  );
  t.strictSame(paused.content.at(-1), {
    type: 'tool_call',
    id: 'srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA',
    name: 'web_search',
    arguments: { query: 'latest news on the air quality in San Francisco today' },
    providerExecuted: true,
  });

  const cont = capture('pydantic-ai--pause-turn-continuation.sse').final;
  t.strictSame(cont.toolCalls, []);
  t.equal(cont.stopReason, 'end');
  const first = cont.content[0];
  // The call was in the paused response: its name is not known here.
  t.match(first, { type: 'tool_result', id: 'srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA', name: '' });
  t.equal((first as { result: Json[] }).result.length, 9);
  t.strictSame(
    outline(cont.content).filter((l) => !l.startsWith('text')),
    [
      'result srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA ',
      'call srvtoolu_01H8ajWSUxCqcsKGC19c58SX web_search {"query":"latest news on the events in San Francisco this week"} provider',
      'result srvtoolu_01H8ajWSUxCqcsKGC19c58SX web_search',
      'call srvtoolu_01S8ZCaHykx2SoyXpa7bLanr web_search {"query":"latest news on the ferry schedule in San Francisco today"} provider',
      'result srvtoolu_01S8ZCaHykx2SoyXpa7bLanr web_search',
      'call srvtoolu_01WedLhqEp9m4chQBrT8ZeW8 web_search {"query":"latest news on quantum computing in San Francisco today"} provider',
      'result srvtoolu_01WedLhqEp9m4chQBrT8ZeW8 web_search',
      'call srvtoolu_01Hj4Q34WzvFUUHiCgg8t2Zx web_search {"query":"latest news on the stock market in San Francisco today"} provider',
      'result srvtoolu_01Hj4Q34WzvFUUHiCgg8t2Zx web_search',
    ],
  );
  t.strictSame(
    cont.citations.map((c) => c.index),
    [14, 14, 16, 18, 18, 20, 22, 24, 26, 28, 28, 30, 30, 32, 34, 36, 38, 40, 42],
  );
  t.strictSame(cont.citations[2], {
    index: 16,
    url: 'https://time.now/san-francisco/sun/',
    title: 'Sunrise & Sunset Times Today for San Francisco, United States',
    citedText: 'Sunrise in San Francisco today is at 05:50 local time. ... Sunset in San Francisco today is at 20:35 local time. ',
  });
  t.strictSame(cont.citations.at(-1), {
    index: 42,
    url: 'https://www.weather.gov/mtr/',
    title: 'San Francisco Bay Area, CA',
    citedText:
      'Dangerous, record-breaking heat will intensify across most of the central and eastern U.S this week. Heat indices will likely exceed 100 degrees. Heat...',
  });
  t.end();
});

t.test('a refusal after a web search: the search stays provider-executed', (t) => {
  const { final } = capture('anthropic-sdk-python--tool-refusal.sse');
  t.strictSame(final.toolCalls, []);
  t.equal(final.stopReason, 'refusal');
  t.strictSame(outline(final.content), [
    'call srvtoolu_fixture_a_0001 web_search {"query":"solar eclipse viewing safety news 2026"} provider',
    'result srvtoolu_fixture_a_0001 web_search',
    'text',
  ]);
  t.end();
});

// ------------------------------------------- programmatic tool calling (quirk 2)

const PTC = `${DIALECT}/programmatic-tool-call-at-message-start.sse`;

t.test('programmatic tool calling: a tool_use block already in message_start is the client call', (t) => {
  const bytes = fixture(PTC);
  const events = decode(bytes);
  const messageStart = JSON.parse(/^data: (.*"message_start".*)$/m.exec(bytes.toString())![1]!) as Json;
  t.strictSame(events, [
    { type: 'start', id: 'msg_01PtcHandWritten00000001', model: 'claude-opus-4-6', dialect: DIALECT },
    { type: 'tool_call_start', index: 0, id: 'toolu_01PtcHandWritten0000002', name: 'query_database' },
    {
      type: 'tool_call_delta',
      index: 0,
      id: 'toolu_01PtcHandWritten0000002',
      argumentsDelta: `{"sql":"SELECT region, SUM(revenue) AS revenue FROM sales WHERE region = 'East' GROUP BY region"}`,
    },
    {
      type: 'tool_call_done',
      index: 0,
      id: 'toolu_01PtcHandWritten0000002',
      name: 'query_database',
      arguments: `{"sql":"SELECT region, SUM(revenue) AS revenue FROM sales WHERE region = 'East' GROUP BY region"}`,
    },
    // The block's caller and the message's container have no unified place.
    { type: 'raw', event: messageStart },
    {
      type: 'usage',
      inputTokens: 1432,
      outputTokens: 0,
      totalTokens: 1432,
      reasoningTokens: null,
      cachedInputTokens: 0,
      raw: { input_tokens: 1432, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    },
    // message_start's stop_reason: no message_delta came.
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
  ]);
  const final = finalOf(events);
  t.strictSame(final.toolCalls, [
    { id: 'toolu_01PtcHandWritten0000002', name: 'query_database', arguments: { sql: "SELECT region, SUM(revenue) AS revenue FROM sales WHERE region = 'East' GROUP BY region" } },
  ]);
  t.equal(final.stopReason, 'tool_use');
  t.strictSame(decode(bytes, 'auto'), events, 'auto-detection (the file opens with SSE comments)');
  t.end();
});

t.test('programmatic tool calling, recorded (vercel-ai--programmatic-tool-calling.ndjson): 15 responses, 13 of them whole in message_start', (t) => {
  const bytes = corpus.get('vercel-ai--programmatic-tool-calling.ndjson')!;
  const finals = runStage(createFinalAccumulator(), decode(bytes));
  t.equal(finals.length, 15, 'fifteen responses');
  const [first, last] = [finals[0]!, finals[14]!];
  t.equal(first.id, 'msg_01ERcBqAvLTHWQDk9c9qJLWC');
  t.strictSame(
    outline(first.content).map((l) => l.replace(/^(call \S+ code_execution) \{"code":".*"\}( provider)$/s, '$1 …$2')),
    ['text', 'call srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK code_execution … provider', 'call toolu_019jKkXz4jAdwHweHBw92CVY rollDie {"player":"player1"}'],
  );
  t.strictSame(first.toolCalls, [{ id: 'toolu_019jKkXz4jAdwHweHBw92CVY', name: 'rollDie', arguments: { player: 'player1' } }], 'the code calls the client tool');
  t.equal(first.stopReason, 'tool_use');
  // Responses 1-13: message_start holds the next rollDie call and stop_reason tool_use; message_stop follows.
  const calls = [
    ['toolu_015dGLMbwBKv1ZRQr6KdJzeH', 'player2'],
    ['toolu_01YYqBNq5mk1wMtv3PAqY44m', 'player1'],
    ['toolu_018WxjDkQG8h7i63poySGT2x', 'player2'],
    ['toolu_014ch4D3vbx928ddwxMvMvF1', 'player1'],
    ['toolu_01QtZ46GWS93Z5ZaSifgGNnq', 'player2'],
    ['toolu_012Zvp8FdgvjVGkmbHSU4EZk', 'player1'],
    ['toolu_01CMz8Jhv6EfnzHQzEMdpHut', 'player2'],
    ['toolu_01PfH6ADzq8Yct5jeRY9QkS2', 'player1'],
    ['toolu_013DE3qaKvBMheZXUhwkvpdF', 'player2'],
    ['toolu_01MTRMy9BEvFHWR7hpCWc4nJ', 'player1'],
    ['toolu_01CXqv27ozPihE5nj6eA3Joc', 'player2'],
    ['toolu_01K6ST6orjmPHHwM8rwLj1n9', 'player1'],
    ['toolu_01QcWWQcQ1pd7nx9xohX4zAr', 'player2'],
  ];
  t.strictSame(
    finals.slice(1, 14).map((f) => ({ toolCalls: f.toolCalls, content: f.content.length, stop: [f.stopReason, f.providerReason], output: f.usage.outputTokens })),
    calls.map(([id, player]) => ({
      toolCalls: [{ id: id!, name: 'rollDie', arguments: { player: player! } }],
      content: 1,
      stop: ['tool_use', 'tool_use'],
      output: 0,
    })),
  );
  t.equal(finals[1]!.id, 'msg_01KSVw3xmXbMNJPNMt46BC5W');
  // The container the client must send back is only in those message_starts: kept as their raw events.
  const events = decode(bytes);
  const containers = events.flatMap((e) =>
    e.type === 'raw' && (e.event as { type?: string }).type === 'message_start' ? [(e.event as { message: { container: { id: string } } }).message.container.id] : [],
  );
  t.strictSame(containers, Array.from({ length: 13 }, () => 'container_011CWHPPTDTn1XufeRB9uHeH'));
  const firstResponse = events.slice(0, events.findIndex((e) => e.type === 'done'));
  const starts = firstResponse.flatMap((e) => (e.type === 'raw' && (e.event as { type?: string }).type === 'content_block_start' ? [e.event as { index: number }] : []));
  // First response: the empty text block's start (0) and the call made by the code (2); not the code_execution call (1, caller direct).
  t.strictSame(
    starts.map((e) => e.index),
    [0, 2],
  );
  t.match(starts[1], { content_block: { type: 'tool_use', caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK' } } });
  t.equal(last.id, 'msg_01CfmDducyrt61n4Q7QS8VFK');
  t.strictSame(outline(last.content), ['result srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK ', 'text'], "the code's result, its call in the first response");
  t.match(results(last)[0], { type: 'code_execution_result', stdout: /^=== DICE GAME: First to 3 Wins ===\n/, stderr: '', return_code: 0 });
  t.strictSame([last.stopReason, last.providerReason, last.usage.inputTokens, last.usage.outputTokens], ['end', 'end_turn', 4551, 197]);
  t.end();
});

const STOP = { type: 'message_stop' };

t.test('message_start content: every block kind, in unified index order, then streamed blocks after them', (t) => {
  const events = decode(
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          model: 'claude-x',
          content: [
            { type: 'thinking', thinking: 'Plan.', signature: 'sig' },
            { type: 'text', text: 'Per the docs.', citations: [{ type: 'char_location', cited_text: 'x', document_index: 0, document_title: 'Doc', start_char_index: 0, end_char_index: 1 }] },
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'code_execution', input: { code: 'print(1)' } },
            { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'code_execution_result', stdout: '1\n', stderr: '', return_code: 0 } },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 1 }, caller: { type: 'code_execution_20260120', tool_id: 'srvtoolu_1' } },
          ],
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 5, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 5, delta: { type: 'text_delta', text: 'More.' } },
      { type: 'content_block_stop', index: 5 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      STOP,
    ),
  );
  t.strictSame(
    events.filter((e) => e.type !== 'raw' && e.type !== 'usage'),
    [
      { type: 'start', id: 'msg_1', model: 'claude-x', dialect: DIALECT },
      { type: 'reasoning_delta', index: 0, text: 'Plan.' },
      { type: 'signature', index: 0, signature: 'sig', kind: 'signature_delta' },
      {
        type: 'citation',
        index: 1,
        title: 'Doc',
        source: 'document 0',
        citedText: 'x',
        raw: { type: 'char_location', cited_text: 'x', document_index: 0, document_title: 'Doc', start_char_index: 0, end_char_index: 1 },
      },
      { type: 'text_delta', index: 1, text: 'Per the docs.' },
      { type: 'tool_call_start', index: 2, id: 'srvtoolu_1', name: 'code_execution', providerExecuted: true },
      { type: 'tool_call_delta', index: 2, id: 'srvtoolu_1', argumentsDelta: '{"code":"print(1)"}', providerExecuted: true },
      { type: 'tool_call_done', index: 2, id: 'srvtoolu_1', name: 'code_execution', arguments: '{"code":"print(1)"}', providerExecuted: true },
      { type: 'tool_result', index: 3, id: 'srvtoolu_1', name: 'code_execution', result: { type: 'code_execution_result', stdout: '1\n', stderr: '', return_code: 0 } },
      { type: 'tool_call_start', index: 4, id: 'toolu_1', name: 'lookup' },
      { type: 'tool_call_delta', index: 4, id: 'toolu_1', argumentsDelta: '{"q":1}' },
      { type: 'tool_call_done', index: 4, id: 'toolu_1', name: 'lookup', arguments: '{"q":1}' },
      { type: 'text_delta', index: 5, text: 'More.' },
      { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
    ],
  );
  // The whole message_start also passes as raw (the tool_use's caller), after its blocks' events.
  const raws = events.flatMap((e, i) => (e.type === 'raw' && (e.event as { type?: string }).type === 'message_start' ? [i] : []));
  t.strictSame(raws, [events.findIndex((e) => e.type === 'tool_call_done' && e.id === 'toolu_1') + 1]);
  const final = finalOf(events);
  t.strictSame(final.toolCalls, [{ id: 'toolu_1', name: 'lookup', arguments: { q: 1 } }]);
  t.strictSame(outline(final.content), ['reasoning', 'text', 'call srvtoolu_1 code_execution {"code":"print(1)"} provider', 'result srvtoolu_1 code_execution', 'call toolu_1 lookup {"q":1}', 'text']);
  t.end();
});

t.test('message_start content without a unified meaning keeps the whole message_start as raw', (t) => {
  const start = {
    type: 'message_start',
    message: { id: 'msg_1', model: 'claude-x', content: [{ type: 'compaction', content: 'summary' }, { type: 'text', text: 'Hi' }], usage: { input_tokens: 1, output_tokens: 1 } },
  };
  const events = decode(sse(start, { type: 'message_delta', delta: { stop_reason: 'end_turn' } }, STOP));
  t.strictSame(events.slice(0, 3), [
    { type: 'start', id: 'msg_1', model: 'claude-x', dialect: DIALECT },
    { type: 'text_delta', index: 1, text: 'Hi' },
    { type: 'raw', event: start },
  ]);
  t.equal(events.at(-1)?.type, 'done');
  t.end();
});

// --------------------------------------------------------------- stop reasons

t.test('tool_use means a pending client call', (t) => {
  const server = [
    { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'q' } } },
    { type: 'content_block_stop', index: 0 },
  ];
  const client = [
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } },
    { type: 'content_block_stop', index: 1 },
  ];
  const MSG = { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 1, output_tokens: 1 } } };
  const stop = (reason: string, ...blocks: object[]): unknown => decode(sse(MSG, ...blocks, { type: 'message_delta', delta: { stop_reason: reason } }, STOP)).at(-1);
  t.strictSame(stop('tool_use', ...server, ...client), { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' }, 'a client call is pending');
  t.strictSame(stop('tool_use', ...server), { type: 'done', stopReason: 'end', providerReason: 'tool_use' }, 'only provider-executed calls: end');
  t.strictSame(stop('tool_use'), { type: 'done', stopReason: 'other', providerReason: 'tool_use' }, 'no call at all: other');
  t.strictSame(stop('pause_turn', ...server), { type: 'done', stopReason: 'other', providerReason: 'pause_turn' }, 'pause_turn stays other');
  t.strictSame(stop('end_turn', ...server), { type: 'done', stopReason: 'end', providerReason: 'end_turn' });
  t.end();
});

// ----------------------------------------------------------------- citations

t.test('citation kinds: url, document, page, content block and search result locations', (t) => {
  const citations = [
    { type: 'web_search_result_location', url: 'https://a.example/', title: 'A', cited_text: 'a', encrypted_index: 'E' },
    { type: 'char_location', cited_text: 'b', document_index: 1, document_title: 'Report', start_char_index: 10, end_char_index: 20 },
    { type: 'page_location', cited_text: 'c', document_index: 0, document_title: null, start_page_number: 2, end_page_number: 3, file_id: 'file_011' },
    { type: 'content_block_location', cited_text: 'd', document_index: 2, document_title: 'Blocks', start_block_index: 0, end_block_index: 1 },
    { type: 'search_result_location', cited_text: 'e', source: 'https://kb.example/page', title: 'KB', search_result_index: 0, start_block_index: 0, end_block_index: 0 },
  ];
  const events = decode(
    sse(
      { type: 'message_start', message: { id: 'msg_1', model: 'claude-x' } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: [] } },
      ...citations.map((citation) => ({ type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation } })),
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: 'not an object' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Cited.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
      STOP,
    ),
  );
  t.strictSame(
    events.filter((e) => e.type === 'citation'),
    [
      { type: 'citation', index: 0, url: 'https://a.example/', title: 'A', citedText: 'a', raw: citations[0]! },
      { type: 'citation', index: 0, title: 'Report', source: 'document 1', citedText: 'b', raw: citations[1]! },
      { type: 'citation', index: 0, source: 'file_011', citedText: 'c', raw: citations[2]! },
      { type: 'citation', index: 0, title: 'Blocks', source: 'document 2', citedText: 'd', raw: citations[3]! },
      { type: 'citation', index: 0, title: 'KB', source: 'https://kb.example/page', citedText: 'e', raw: citations[4]! },
    ],
  );
  t.ok(
    events.some((e) => e.type === 'raw' && (e.event as { delta?: { citation?: unknown } }).delta?.citation === 'not an object'),
    'a citation that is no object is raw',
  );
  t.strictSame(finalOf(events).citations, [
    { index: 0, url: 'https://a.example/', title: 'A', citedText: 'a' },
    { index: 0, title: 'Report', source: 'document 1', citedText: 'b' },
    { index: 0, source: 'file_011', citedText: 'c' },
    { index: 0, title: 'Blocks', source: 'document 2', citedText: 'd' },
    { index: 0, title: 'KB', source: 'https://kb.example/page', citedText: 'e' },
  ]);
  t.end();
});

t.test('citations on a text block as it starts, and an index-less citations_delta (xAI style)', (t) => {
  const c1 = { type: 'web_search_result_location', url: 'https://a.example/', title: 'A', cited_text: 'a' };
  const c2 = { type: 'web_search_result_location', url: 'https://b.example/', title: 'B', cited_text: 'b' };
  const events = decode(
    sse(
      { type: 'message_start', message: { id: 'msg_1', model: 'claude-x' } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: [c1, 'junk'] } },
      { type: 'content_block_delta', delta: { type: 'citations_delta', citation: c2 } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'X' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
      STOP,
    ),
  );
  t.strictSame(
    events.filter((e) => e.type === 'citation').map((e) => [e.index, (e as { url?: string }).url]),
    [
      [0, 'https://a.example/'],
      [0, 'https://b.example/'],
    ],
  );
  t.notOk(events.some((e) => e.type === 'raw' && (e.event as { type?: string }).type === 'content_block_start'), 'the start with a citation is not raw');
  t.end();
});

// ------------------------------------------------------------------- results

t.test('result blocks: errors, unknown calls, no call id, deltas', (t) => {
  const searchError = { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' };
  const mcpError = [{ type: 'text', text: 'boom' }];
  const payloads = [
    { type: 'message_start', message: { id: 'msg_1', model: 'claude-x' } },
    { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"q"}' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: searchError } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'some_future_delta', x: 1 } },
    { type: 'content_block_stop', index: 1 },
    { type: 'content_block_start', index: 2, content_block: { type: 'mcp_tool_result', tool_use_id: 'mcp_9', is_error: true, content: mcpError } },
    { type: 'content_block_stop', index: 2 },
    { type: 'content_block_start', index: 3, content_block: { type: 'web_fetch_tool_result', content: { type: 'web_fetch_result' } } },
    { type: 'content_block_stop', index: 3 },
    { type: 'content_block_start', index: 4, content_block: { type: 'code_execution_tool_result', tool_use_id: 'srv_2' } },
    { type: 'content_block_stop', index: 4 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
    STOP,
  ];
  const events = decode(sse(...payloads));
  t.strictSame(
    events.filter((e) => e.type === 'tool_result'),
    [
      { type: 'tool_result', index: 1, id: 'srv_1', name: 'web_search', result: searchError, isError: true },
      // A call of an earlier response (pause_turn): its name is not known here.
      { type: 'tool_result', index: 2, id: 'mcp_9', name: '', result: mcpError, isError: true },
      { type: 'tool_result', index: 4, id: 'srv_2', name: '', result: null },
    ],
  );
  const raws = events.filter((e) => e.type === 'raw').map((e) => JSON.stringify((e as { event: unknown }).event));
  // Deltas on a result block (it came whole in its start) and a result naming no call: raw.
  for (const i of [5, 6, 10]) t.ok(raws.includes(JSON.stringify(payloads[i])), `raw: ${JSON.stringify(payloads[i]).slice(0, 80)}`);
  t.notOk(raws.includes(JSON.stringify(payloads[4])), 'a mapped result start is not also raw');
  t.strictSame(flags(events), { srv_1: 'PPP' });
  t.end();
});
