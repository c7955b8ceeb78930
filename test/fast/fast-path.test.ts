/**
 * The raw-text fast path (lib/fast/) must be invisible: every input
 * decodes to the same events (positions on and off) and the same finals with
 * it on and off, at several chunkings. Plus the texts that must not be taken
 * by a template, and a check that the fast path is really taken.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { DialectOption, UnifiedEvent } from '../../lib/events.js';
import { FIXTURE_DIALECTS, FIXTURE_SHAPES, generateToBuffer, wirefoldOptions } from '../../benchmarks/generate.js';
import { corpusFiles, repoRoot } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';
import { parsedTexts, run, watchingJsonParse, type Config } from '../helpers/fast-path.js';

/** Asserts fast on = fast off for events (positions on and off), finals and text output, whole and at two random chunkings. */
function same(t: Test, name: string, bytes: Buffer, config: Config): void {
  const chunkings: [string, Buffer[]][] = [
    ['whole', [bytes]],
    ['random#1', randomChunks(bytes, 1, 97)],
    ['random#2', randomChunks(bytes, 2, 4096)],
  ];
  for (const [cname, chunks] of chunkings) {
    for (const positions of [false, true]) {
      t.strictSame(run(chunks, config, 'events', positions, true), run(chunks, config, 'events', positions, false), `${name} ${JSON.stringify(config)} @${cname} positions=${positions}: events`);
    }
    t.strictSame(run(chunks, config, 'final', false, true), run(chunks, config, 'final', false, false), `${name} ${JSON.stringify(config)} @${cname}: finals`);
    t.strictSame(run(chunks, config, 'text', false, true), run(chunks, config, 'text', false, false), `${name} ${JSON.stringify(config)} @${cname}: text`);
  }
}

const DIR_DIALECT: Record<string, DialectOption> = {
  'anthropic-messages': 'anthropic-messages',
  'openai-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
  'xai-chat': 'xai-chat',
  'xai-responses': 'xai-responses',
  'xai-messages': 'xai-messages',
  'gemini-sse': 'gemini',
  'gemini-json-array': 'gemini',
  gemini: 'gemini',
  'gemini-interactions': 'gemini-interactions',
  'gemini-live': 'gemini-live',
  'openai-realtime': 'openai-realtime',
  'xai-realtime': 'xai-realtime',
};

function fixtureFiles(): { name: string; dir: string; bytes: Buffer }[] {
  const root = join(repoRoot, 'fixtures');
  const out: { name: string; dir: string; bytes: Buffer }[] = [];
  for (const dir of readdirSync(root).sort()) {
    const full = join(root, dir);
    // fixtures/corpus/ is the corpus (its own tests above; README.md, LICENSES/ are no input)
    if (dir === 'corpus' || !statSync(full).isDirectory()) continue;
    for (const f of readdirSync(full).sort()) out.push({ name: `fixtures/${dir}/${f}`, dir, bytes: readFileSync(join(full, f)) });
  }
  return out;
}

t.test('corpus: fast path on = off', (t) => {
  for (const file of corpusFiles()) {
    same(t, file.name, file.bytes, {});
    const dialect = DIR_DIALECT[file.dir];
    if (dialect !== undefined) same(t, file.name, file.bytes, { dialect });
  }
  t.end();
});

t.test('corpus directories concatenated into one log (auto): fast path on = off', (t) => {
  const sse = corpusFiles().filter((f) => f.name.endsWith('.sse'));
  const dirs = [...new Set(sse.map((f) => f.dir))];
  for (const dir of dirs) {
    const log = Buffer.concat(sse.filter((f) => f.dir === dir).flatMap((f) => [f.bytes, Buffer.from('\n\n')]));
    same(t, `${dir}/*`, log, {});
  }
  // every SSE file of every dialect back to back: templates must not leak across a dialect switch
  same(t, 'all SSE files', Buffer.concat(sse.flatMap((f) => [f.bytes, Buffer.from('\n\n')])), {});
  t.end();
});

t.test('fixtures: fast path on = off', (t) => {
  for (const file of fixtureFiles()) {
    same(t, file.name, file.bytes, {});
    const dialect = DIR_DIALECT[file.dir];
    if (dialect !== undefined) same(t, file.name, file.bytes, { dialect });
  }
  t.end();
});

t.test('generated benchmark fixtures: fast path on = off', (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      for (const seed of [1, 2, 3]) {
        const { data } = generateToBuffer({ dialect, shape, size: 40_000, seed });
        same(t, `${dialect}.${shape}#${seed}`, data, wirefoldOptions(dialect));
      }
    }
  }
  t.end();
});

t.test('limits that trip on a text delta: fast path on = off (the final accumulator takes template text deltas directly)', (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const { data, stats } = generateToBuffer({ dialect, shape: 'single', size: 40_000, seed: 4 });
    const config = wirefoldOptions(dialect);
    // text + reasoning is at least this many UTF-8 bytes: every one of these limits trips
    const chars = stats.textChars + stats.reasoningChars;
    for (const maxTextBytes of [1, Math.floor(chars / 3), Math.floor(chars / 2)]) {
      const on = run([data], { ...config, maxTextBytes }, 'final', false, true);
      t.strictSame(on, run([data], { ...config, maxTextBytes }, 'final', false, false), `${dialect}: maxTextBytes ${maxTextBytes}`);
      t.match(on.at(-1), { thrown: 'LimitExceededError' }, `${dialect}: maxTextBytes ${maxTextBytes} tripped`);
    }
    const chunks = randomChunks(data, 5, 300);
    const limited = { ...config, maxTextBytes: Math.floor(chars / 2) };
    t.strictSame(run(chunks, limited, 'final', false, true), run(chunks, limited, 'final', false, false), `${dialect}: maxTextBytes at random chunks`);
  }
  t.end();
});

t.test('the normalizer hands template text deltas to a text sink, and emits them as events without one', async (t) => {
  const { resolveNormalizerOptions } = await import('../../lib/dialects/normalizer.js');
  const { makeTextNormalizer } = await import('../../lib/fast/text-normalizer.js');
  const { createFrameDecoder } = await import('../../lib/dialects/decoder.js');
  const payloads = [
    '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"two"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"th\\"ree"}}',
  ];
  for (const withSink of [true, false]) {
    const normalizer = makeTextNormalizer(resolveNormalizerOptions({ dialect: 'anthropic-messages' }));
    const decoder = createFrameDecoder();
    const taken: unknown[][] = [];
    if (withSink)
      normalizer.setTextSink((...args) => {
        taken.push(args);
        return true;
      });
    const events: UnifiedEvent[] = [];
    const emit = (ev: UnifiedEvent): void => {
      events.push(ev);
    };
    for (const data of payloads) {
      const frame = { event: 'message', data, id: '' };
      const n = decoder.number(frame);
      if (!normalizer.pushText(data, n, undefined, emit)) decoder.decode(frame, n, (pe) => normalizer.push(pe, emit));
    }
    const texts = events.filter((ev) => ev.type === 'text_delta').map((ev) => (ev as { text: string }).text);
    if (withSink) {
      // the first delta is parsed (it teaches the template) and goes out as an event; the next two match
      t.strictSame(texts, ['one'], 'only the parsed delta is an event');
      // each with its JSON string body as the payload had it (escapes undecoded), after its text
      t.strictSame(taken, [
        [false, 0, -1, 'two', 'two'],
        [false, 0, -1, 'th"ree', 'th\\"ree'],
      ]);
    } else t.strictSame(texts, ['one', 'two', 'th"ree'], 'without a sink every delta is an event');
  }
});

/** JSON.parse calls on whole payloads (`{…}`) during one run. */
function payloadParses(bytes: Buffer, config: Config, fastPath: boolean): number {
  let n = 0;
  watchingJsonParse(
    (text) => {
      if (text.trimStart().startsWith('{')) n++;
    },
    () => run([bytes], config, 'final', false, fastPath),
  );
  return n;
}

/** Dialects with a fast path so far. */
const FAST = FIXTURE_DIALECTS;

t.test('the fast path is taken: most payloads of generated fixtures are never JSON-parsed', (t) => {
  for (const dialect of FAST) {
    for (const shape of FIXTURE_SHAPES) {
      const { data } = generateToBuffer({ dialect, shape, size: 200_000, seed: 7 });
      const off = payloadParses(data, wirefoldOptions(dialect), false);
      const on = payloadParses(data, wirefoldOptions(dialect), true);
      t.ok(on < off * 0.5, `${dialect}.${shape}: ${on} payload parses with the fast path, ${off} without`);
    }
  }
  t.end();
});

// ---------------------------------------------------------------------------
// Texts a template must not take, and texts it takes only with the same result

interface Variant {
  /** What the variant is. */
  name: string;
  /** The payload text (one SSE data line). */
  data: string;
  /** True when the template must not take it (the parse path sees it). */
  parsed: boolean;
}

/**
 * Runs `head` (which teaches the templates), then each variant on its own in
 * the same position, then `tail`; asserts fast on = off, and whether the
 * variant reached JSON.parse. Twice: as is, and with head[teach] repeated, so
 * that an SSE event template has been learned from it (lib/fast/event-template.ts)
 * and the variant is first offered whole, as bytes.
 */
function variants(t: Test, config: Config, head: string[], variantList: Variant[], tail: string[], event = '', teach = head.length - 1): void {
  const sse = (data: string): string => `${event === '' ? '' : `event: ${event}\n`}data: ${data}\n\n`;
  const taught = [...head.slice(0, teach + 1), head[teach]!, ...head.slice(teach + 1)];
  for (const [v, h] of variantList.flatMap((v) => [[v, head], [{ ...v, name: `${v.name} (event template learned)` }, taught]] as [Variant, string[]][])) {
    const bytes = Buffer.from([...h, v.data, ...tail].map(sse).join(''));
    for (const positions of [false, true]) {
      t.strictSame(run([bytes], config, 'events', positions, true), run([bytes], config, 'events', positions, false), `${v.name}: same events (positions=${positions})`);
    }
    t.strictSame(run([bytes], config, 'final', false, true), run([bytes], config, 'final', false, false), `${v.name}: same final`);
    t.equal(parsedTexts(bytes, config).has(v.data), v.parsed, `${v.name}: ${v.parsed ? 'parsed' : 'taken by the template'}`);
  }
}

t.test('Anthropic: variants of a content_block_delta', (t) => {
  const head = [
    '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"first"}}',
  ];
  const tail = ['{"type":"content_block_stop","index":0}', '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}', '{"type":"message_stop"}'];
  const d = (text: string, pad = ''): string => `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${text}}${pad}}`;
  variants(t, { dialect: 'anthropic-messages' }, head, [
    { name: 'same shape', data: d('"plain text"'), parsed: false },
    { name: 'padding spaces', data: d('"padded"', '      '), parsed: false },
    { name: 'whitespace between tokens', data: '{ "type" : "content_block_delta" , "index":0,"delta":{"type":"text_delta","text":"ws"} }', parsed: false },
    { name: 'tab padding', data: d('"tab"', '\t'), parsed: false },
    { name: 'escapes', data: d('"a\\nb\\"c\\\\d\\/e\\u00e9\\ud83d\\ude00\\t\\b\\f\\r\\u0000"'), parsed: false },
    { name: 'lone surrogate escape', data: d('"x\\ud800y"'), parsed: false },
    { name: 'non-ASCII and U+2028', data: d('"caf\u00e9 \u2028 \ud83d\ude00"'), parsed: false },
    { name: 'empty text (raw)', data: d('""'), parsed: true },
    { name: 'extra key in delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}', parsed: true },
    { name: 'extra top-level key', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"extra":null}', parsed: true },
    { name: 'different key order', data: '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}', parsed: true },
    { name: 'delta keys swapped', data: '{"type":"content_block_delta","index":0,"delta":{"text":"x","type":"text_delta"}}', parsed: true },
    { name: 'duplicate key', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"index":1}', parsed: true },
    { name: 'duplicate text', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}', parsed: true },
    { name: 'index with leading zero (invalid JSON)', data: d('"x"').replace('"index":0', '"index":00'), parsed: true },
    { name: 'negative index', data: d('"x"').replace('"index":0', '"index":-1'), parsed: true },
    { name: 'fractional index', data: d('"x"').replace('"index":0', '"index":0.5'), parsed: true },
    { name: 'index 1e0', data: d('"x"').replace('"index":0', '"index":1e0'), parsed: true },
    { name: 'another index', data: d('"x"').replace('"index":0', '"index":7'), parsed: false },
    { name: 'invalid escape', data: d('"a\\x"'), parsed: true },
    { name: 'short unicode escape', data: d('"a\\u12"'), parsed: true },
    { name: 'raw control character', data: d('"a\tb"'), parsed: true },
    { name: 'missing brace', data: d('"x"').slice(0, -1), parsed: true },
    { name: 'text not a string', data: d('5'), parsed: true },
    { name: 'thinking delta in a text block', data: '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}', parsed: true },
    { name: 'input_json_delta outside a tool block', data: '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}', parsed: true },
    { name: 'trailing garbage', data: d('"x"') + 'x', parsed: true },
    { name: 'trailing whitespace', data: d('"x"') + '  ', parsed: false },
  ], tail, 'content_block_delta');
  t.end();
});

t.test('Anthropic: input_json_delta after the tool block stopped stays raw', (t) => {
  const head = [
    '{"type":"message_start","message":{"id":"msg_1","model":"claude"}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":":1"}}',
    '{"type":"content_block_stop","index":0}',
  ];
  variants(t, { dialect: 'anthropic-messages' }, head, [
    { name: 'late fragment', data: '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"}"}}', parsed: true },
  ], ['{"type":"message_stop"}']);
  t.end();
});

t.test('OpenAI Responses: variants of a text delta', (t) => {
  const created = (seq: number): string => `{"type":"response.created","response":{"id":"resp_1","model":"gpt"},"sequence_number":${seq}}`;
  const head = [
    created(0),
    '{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":""},"output_index":0,"sequence_number":1}',
    '{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{","sequence_number":2}',
    '{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"abc"}',
  ];
  const tail = ['{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[]},"sequence_number":5}'];
  const text = (seq: string, delta = '"more"', obf = '"xyz"'): string =>
    `{"type":"response.output_text.delta","sequence_number":${seq},"item_id":"msg_1","output_index":1,"content_index":0,"delta":${delta},"logprobs":[],"obfuscation":${obf}}`;
  variants(t, { dialect: 'openai-responses' }, head, [
    { name: 'next sequence number', data: text('4'), parsed: false },
    { name: 'sequence gap (error event, same from both paths)', data: text('9'), parsed: false },
    { name: 'repeated sequence number', data: text('3'), parsed: false },
    { name: 'another obfuscation', data: text('4', '"more"', '"qqqqqqqqqqqqqqqqqq"'), parsed: false },
    { name: 'obfuscation not a string', data: text('4', '"more"', '5'), parsed: true },
    { name: 'empty delta (raw)', data: text('4', '""'), parsed: true },
    { name: 'logprobs not empty', data: text('4').replace('"logprobs":[]', '"logprobs":[{"token":"x"}]'), parsed: true },
    { name: 'no sequence number', data: '{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"x","logprobs":[],"obfuscation":"a"}', parsed: true },
    { name: 'refusal delta', data: '{"type":"response.refusal.delta","sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"no"}', parsed: true },
    { name: 'tool delta of a known call', data: '{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"}","sequence_number":4}', parsed: false },
    { name: 'tool delta of an unknown call (orphan)', data: '{"type":"response.function_call_arguments.delta","item_id":"fc_9","output_index":7,"delta":"{}","sequence_number":4}', parsed: true },
    { name: 'sequence number with leading zero', data: text('04'), parsed: true },
    { name: 'huge sequence number', data: text('12345678901234567'), parsed: true },
  ], tail, 'response.output_text.delta');
  t.end();
});

t.test('OpenAI Chat: variants of a content chunk', (t) => {
  const chunk = (delta: string, finish = 'null', extra = ''): string =>
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","system_fingerprint":"fp_1","usage":null,"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]${extra}}`;
  const head = [chunk('{"role":"assistant","content":"","refusal":null}'), chunk('{"content":"Hello"}')];
  const tail = [chunk('{}', '"stop"'), '[DONE]'];
  variants(t, { dialect: 'openai-chat' }, head, [
    { name: 'same shape', data: chunk('{"content":" world"}'), parsed: false },
    { name: 'another id and created', data: chunk('{"content":"x"}').replace('chatcmpl-1', 'chatcmpl-2').replace('"created":1', '"created":2.5e3'), parsed: false },
    { name: 'finish_reason set', data: chunk('{"content":"x"}', '"length"'), parsed: true },
    { name: 'usage object', data: chunk('{"content":"x"}').replace('"usage":null', '"usage":{"prompt_tokens":1}'), parsed: true },
    { name: 'two choices', data: chunk('{"content":"x"}').replace('"choices":[{', '"choices":[{"index":1,"delta":{"content":"y"}},{'), parsed: true },
    { name: 'choice index 1', data: chunk('{"content":"x"}').replace('"index":0', '"index":1'), parsed: false },
    { name: 'empty content', data: chunk('{"content":""}'), parsed: true },
    { name: 'refusal', data: chunk('{"refusal":"no"}'), parsed: true },
    { name: 'tool call', data: chunk('{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}'), parsed: true },
    { name: 'error key', data: chunk('{"content":"x"}', 'null', ',"error":{"message":"boom"}'), parsed: true },
    { name: 'extra top-level key', data: chunk('{"content":"x"}', 'null', ',"citations":["a"]'), parsed: true },
  ], tail);
  t.end();
});

t.test('OpenAI Chat: variants of a tool-call argument fragment', (t) => {
  const chunk = (delta: string, finish = 'null'): string =>
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","usage":null,"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}],"obfuscation":"ab"}`;
  const frag = (args: string, extra = ''): string => chunk(`{"tool_calls":[{"index":0${extra},"function":{"arguments":${args}}}]}`);
  const head = [
    chunk('{"role":"assistant","content":null}'),
    chunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}'),
    frag('"{\\"a"'),
  ];
  const tail = [frag('"\\":1}"'), chunk('{}', '"tool_calls"'), '[DONE]'];
  variants(t, { dialect: 'openai-chat' }, head, [
    { name: 'fragment of the open call', data: frag('"x"'), parsed: false },
    { name: 'fragment with escapes', data: frag('"\\"\\n"'), parsed: false },
    { name: 'empty fragment', data: frag('""'), parsed: true },
    { name: 'fragment with an id (a new call)', data: frag('"x"', ',"id":"call_2"'), parsed: true },
    { name: 'fragment with a type', data: frag('"x"', ',"type":"function"'), parsed: true },
    { name: 'fragment of an unknown call', data: chunk('{"tool_calls":[{"index":3,"function":{"arguments":"x"}}]}'), parsed: true },
    { name: 'fragment with a name', data: chunk('{"tool_calls":[{"index":0,"function":{"name":"g","arguments":"x"}}]}'), parsed: true },
    { name: 'two fragments', data: chunk('{"tool_calls":[{"index":0,"function":{"arguments":"x"}},{"index":1,"function":{"arguments":"y"}}]}'), parsed: true },
    { name: 'fragment of the open call again', data: frag('"yz"'), parsed: false },
  ], tail);
  // after the call was closed by a finish_reason, a late fragment is not the template's
  variants(t, { dialect: 'openai-chat' }, [...head, chunk('{}', '"tool_calls"')], [
    { name: 'late fragment after the finish chunk', data: frag('"x"'), parsed: true },
  ], ['[DONE]'], '', head.length - 1);
  t.end();
});

t.test('Gemini: variants of a text chunk', (t) => {
  const chunk = (part: string, cand = '', top = ''): string =>
    `{"candidates":[{"content":{"parts":[${part}],"role":"model"}${cand},"index":0}],"usageMetadata":{"promptTokenCount":3,"totalTokenCount":5},"modelVersion":"gemini","responseId":"r1"${top}}`;
  const head = [chunk('{"text":"Hello"}'), chunk('{"text":" there"}')];
  const tail = [chunk('{"text":""}', ',"finishReason":"STOP"')];
  variants(t, { dialect: 'gemini' }, head, [
    { name: 'same shape', data: chunk('{"text":" world"}'), parsed: false },
    { name: 'other usage numbers', data: chunk('{"text":"x"}').replace('"totalTokenCount":5', '"totalTokenCount":9'), parsed: false },
    { name: 'usage gains a key', data: chunk('{"text":"x"}').replace('"totalTokenCount":5', '"totalTokenCount":9,"thoughtsTokenCount":2'), parsed: true },
    { name: 'finishReason', data: chunk('{"text":"x"}', ',"finishReason":"MAX_TOKENS"'), parsed: true },
    { name: 'thought part', data: chunk('{"text":"x","thought":true}'), parsed: true },
    { name: 'signature on the part', data: chunk('{"text":"x","thoughtSignature":"sig"}'), parsed: true },
    { name: 'two parts', data: chunk('{"text":"x"},{"text":"y"}'), parsed: true },
    { name: 'function call', data: chunk('{"functionCall":{"name":"f","args":{}}}'), parsed: true },
    { name: 'notable top-level key', data: chunk('{"text":"x"}', '', ',"promptFeedback":{"blockReason":"SAFETY"}'), parsed: true },
    { name: 'notable candidate key', data: chunk('{"text":"x"}', ',"safetyRatings":[{"category":"x"}]'), parsed: true },
    { name: 'empty text', data: chunk('{"text":""}'), parsed: true },
  ], tail);
  t.end();
});

t.test('Gemini Interactions: variants of a step.delta', (t) => {
  const delta = (index: string, d: string, id = ''): string => `{"index":${index},"delta":${d},"event_type":"step.delta"${id}}`;
  const head = [
    '{"interaction":{"id":"v1_1","status":"in_progress","model":"gemini"},"event_type":"interaction.created"}',
    '{"index":0,"step":{"type":"model_output"},"event_type":"step.start"}',
    delta('0', '{"text":"Hello","type":"text"}'),
    '{"index":1,"step":{"type":"function_call","id":"c1","name":"f","arguments":{}},"event_type":"step.start"}',
    delta('1', '{"arguments":"{","type":"arguments_delta"}'),
  ];
  const tail = ['{"index":1,"event_type":"step.stop"}', '{"interaction":{"id":"v1_1","status":"completed"},"event_type":"interaction.completed"}', '[DONE]'];
  variants(t, { dialect: 'gemini-interactions' }, head, [
    { name: 'same shape', data: delta('0', '{"text":" world","type":"text"}'), parsed: false },
    { name: 'arguments of an open call', data: delta('1', '{"arguments":"}","type":"arguments_delta"}'), parsed: false },
    { name: 'arguments without a call', data: delta('5', '{"arguments":"}","type":"arguments_delta"}'), parsed: true },
    { name: 'with an event_id (learned anew)', data: delta('0', '{"text":"x","type":"text"}', ',"event_id":"e1"'), parsed: true },
    { name: 'empty text', data: delta('0', '{"text":"","type":"text"}'), parsed: true },
    { name: 'unknown delta type', data: delta('0', '{"text":"x","type":"other"}'), parsed: true },
  ], tail);
  t.end();
});

t.test('Gemini Interactions: templates learned from numeric event_ids, from `type` in place of event_type, from thought summaries', (t) => {
  const created = '{"interaction":{"id":"v1_2","status":"in_progress","model":"gemini"},"event_type":"interaction.created","event_id":1}';
  const tail = ['{"index":1,"event_type":"step.stop","event_id":90}', '{"interaction":{"id":"v1_2","status":"completed"},"event_type":"interaction.completed","event_id":91}', '[DONE]'];
  // numeric event_ids: the id is an int field of the template, and the cursor of every event
  const text = (id: number, s: string): string => `{"index":1,"delta":{"text":${JSON.stringify(s)},"type":"text"},"event_type":"step.delta","event_id":${id}}`;
  const head = [created, '{"index":1,"step":{"type":"model_output"},"event_type":"step.start","event_id":2}', text(3, 'Hello')];
  variants(t, { dialect: 'gemini-interactions' }, head, [
    { name: 'numeric event_id, same shape', data: text(4, ' world'), parsed: false },
    { name: 'numeric event_id, a string one instead', data: text(4, ' x').replace('"event_id":4', '"event_id":"e4"'), parsed: true },
    { name: 'numeric event_id, not canonical', data: text(4, ' x').replace('"event_id":4', '"event_id":4.5'), parsed: true },
  ], tail);
  // `type` carrying the event type (auto-detection accepts it): a free field beside event_type, a constant alone
  const typed = (s: string): string => `{"index":1,"delta":{"text":${JSON.stringify(s)},"type":"text"},"type":"step.delta"}`;
  variants(t, { dialect: 'gemini-interactions' }, [created, '{"index":1,"step":{"type":"model_output"},"type":"step.start"}', typed('Hello')], [
    { name: '`type` as the event type, same shape', data: typed(' world'), parsed: false },
    { name: '`type` as the event type, another one', data: typed(' x').replace('"type":"step.delta"}', '"type":"step.other"}'), parsed: true },
  ], tail);
  // thought summaries: the text is content.text
  const thought = (s: string, extra = ''): string => `{"index":0,"delta":{"type":"thought_summary","content":{"text":${JSON.stringify(s)}${extra}}},"event_type":"step.delta"}`;
  variants(t, { dialect: 'gemini-interactions' }, [created, '{"index":0,"step":{"type":"thought"},"event_type":"step.start"}', thought('Thinking')], [
    { name: 'thought summary, same shape', data: thought(' more'), parsed: false },
    { name: 'thought summary with a text beside content', data: thought(' x').replace('"type":"thought_summary",', '"type":"thought_summary","text":"t",'), parsed: true },
    { name: 'thought summary with another content field', data: thought(' x', ',"type":"text"'), parsed: true },
  ], tail);
  t.end();
});

t.test('a layout that changes on every payload: same events, and learning gives up', (t) => {
  const stream = (key: string): { frames: string[]; bytes: Buffer } => {
    const frames = ['{"type":"response.created","response":{"id":"resp_1","model":"gpt"},"sequence_number":0}'];
    for (let i = 1; i <= 400; i++) frames.push(`{"type":"response.output_text.delta","sequence_number":${i},"${key}${i}":${i},"output_index":0,"content_index":0,"delta":"w${i} "}`);
    frames.push('{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[]},"sequence_number":401}');
    return { frames, bytes: Buffer.from(frames.map((f) => `event: x\ndata: ${f}\n\n`).join('')) };
  };
  const { frames, bytes } = stream('k');
  for (const output of ['events', 'final'] as const) {
    t.strictSame(run([bytes], { dialect: 'openai-responses' }, output, true, true), run([bytes], { dialect: 'openai-responses' }, output, true, false), `${output}: same`);
  }
  // every payload is parsed (no template ever matches twice); learning stops after its budget
  const seen = parsedTexts(bytes, { dialect: 'openai-responses' });
  t.equal(frames.filter((f) => seen.has(f)).length, frames.length, 'every payload parsed');
  const Native = globalThis.RegExp;
  let compiled = 0;
  globalThis.RegExp = new Proxy(Native, {
    construct(target, args: [string]) {
      compiled++;
      return new target(...args);
    },
  });
  try {
    run([stream('fresh').bytes], { dialect: 'openai-responses' }, 'final', false, true);
  } finally {
    globalThis.RegExp = Native;
  }
  t.ok(compiled <= 40, `${compiled} templates compiled for 400 distinct layouts`);
  t.end();
});

t.test('unescapeJson decodes every escape as JSON.parse does', async (t) => {
  const { unescapeJson } = await import('../../lib/framing/json-text.js');
  const samples = ['plain', '', 'a"b', 'back\\slash', 'tab\tnl\nret\rff\fbs\b', '\u0000\u001f\u007f', 'é東🙂', '\ud800', 'x\udfffy', '/slash/', '\u2028\u2029'];
  for (let i = 0; i < 500; i++) {
    let s = '';
    for (let j = 0; j < 12; j++) s += String.fromCharCode(Math.floor(Math.random() * (j % 3 === 0 ? 0x10000 : 0x80)));
    samples.push(s);
  }
  // descriptions by number: a raw U+2028 in a TAP line would break the TAP stream
  samples.forEach((s, i) => {
    const body = JSON.stringify(s).slice(1, -1);
    t.equal(unescapeJson(body), JSON.parse(`"${body}"`), `sample ${i}`);
    const slashed = body.replace(/\//g, '\\/').replace(/[\u00e9]/g, '\\u00e9');
    t.equal(unescapeJson(slashed), JSON.parse(`"${slashed}"`), `sample ${i} (escaped slash / é)`);
    t.equal(unescapeJson(slashed, slashed.indexOf('\\')), JSON.parse(`"${slashed}"`), `sample ${i}, the first backslash given`);
  });
  t.end();
});
