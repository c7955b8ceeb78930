/**
 * The OpenAI SDK's own accumulator on what the openai-responses target
 * writes: every capture with one successful response, encoded to the
 * Responses wire, must give `client.responses.stream().finalResponse()` the
 * text, refusal, reasoning summary, client calls (names and parsed
 * arguments), status / incomplete reason and usage of wirefold's final of the
 * original, less what the target cannot carry (test/encode/expect/openai-responses.ts).
 * The events the SDK parsed have a dense sequence_number from 0 and end with
 * the terminal event.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { StopReason, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { openaiResponsesFinal, parsedArguments as parsed } from '../helpers/sdk.js';
import { captures, encode } from '../helpers/encode.js';
import { openaiResponses } from './expect/openai-responses.js';

/** The status and incomplete reason the terminal response says for a stop reason (as read back). */
function statusOf(stop: StopReason, providerReason: string | null): { status: string; reason: string | null } {
  switch (stop) {
    case 'max_tokens':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    case 'refusal':
      return { status: 'incomplete', reason: 'content_filter' };
    case 'other':
      return { status: 'incomplete', reason: providerReason };
    default:
      return { status: 'completed', reason: null };
  }
}

const singles = captures()
  .map((c) => ({ ...c, finals: runStage(createOutputStage({ output: 'final' }), [c.bytes]) as FinalResult[] }))
  .filter((c) => c.finals.length === 1 && c.finals[0]!.stopReason !== 'error');

t.test('openai: responses.stream().finalResponse() of the encoded stream', async (t) => {
  let n = 0;
  for (const c of singles) {
    const f = c.finals[0]!;
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const { text } = encode(events, 'openai-responses');
    const out = await openaiResponsesFinal(new TextEncoder().encode(text));
    if (!t.ok(out.value, `${c.name}: the SDK accumulated it`, { error: out.error?.message })) continue;
    const want = openaiResponses.expected(f);
    const r = out.value!;
    t.strictSame(
      out.events.map((e) => e.sequence_number),
      out.events.map((_, i) => i),
      `${c.name}: sequence_number dense from 0`,
    );
    t.match(out.events.at(-1)?.type, /^response\.(completed|incomplete)$/, `${c.name}: the terminal event comes last`);
    t.equal(r.output_text, want.text, `${c.name}: output_text`);
    const parts = r.output.flatMap((item) => (item.type === 'message' ? item.content : []));
    const refusals = parts.flatMap((p) => (p.type === 'refusal' ? [p.refusal] : []));
    t.equal(refusals.length === 0 ? null : refusals.join(''), want.refusal, `${c.name}: refusal`);
    const summary = r.output.flatMap((item) => (item.type === 'reasoning' ? item.summary.map((s) => s.text) : []));
    t.equal(summary.join(''), want.reasoning, `${c.name}: reasoning summary`);
    t.strictSame(
      r.output.flatMap((item) =>
        item.type === 'function_call'
          ? [{ id: item.call_id, name: item.name, arguments: parsed(item.arguments) }]
          : item.type === 'custom_tool_call'
            ? [{ id: item.call_id, name: item.name, arguments: parsed(item.input) }]
            : [],
      ),
      want.toolCalls,
      `${c.name}: tool calls`,
    );
    const { status, reason } = statusOf(want.stopReason, f.providerReason);
    t.equal(r.status, status, `${c.name}: status`);
    t.equal(r.incomplete_details?.reason ?? null, reason, `${c.name}: incomplete reason`);
    const u = r.usage as Partial<NonNullable<typeof r.usage>> | undefined;
    t.equal(u?.input_tokens ?? null, want.usage.inputTokens, `${c.name}: input tokens`);
    t.equal(u?.input_tokens_details?.cached_tokens ?? null, want.usage.cachedInputTokens, `${c.name}: cached tokens`);
    t.equal(u?.output_tokens ?? null, want.usage.outputTokens, `${c.name}: output tokens`);
    t.equal(u?.output_tokens_details?.reasoning_tokens ?? null, want.usage.reasoningTokens, `${c.name}: reasoning tokens`);
    t.equal(u?.total_tokens ?? null, want.usage.totalTokens, `${c.name}: total tokens`);
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});

// ---------------------------------------------------------------------------
// Hand-built event sequences: the shapes the corpus alone does not pin down
// ---------------------------------------------------------------------------

const usage = (inputTokens: number | null, outputTokens: number | null, more: Partial<Record<'cachedInputTokens' | 'reasoningTokens', number>> = {}): UnifiedEvent => ({
  type: 'usage',
  inputTokens,
  outputTokens,
  totalTokens: null,
  reasoningTokens: more.reasoningTokens ?? null,
  cachedInputTokens: more.cachedInputTokens ?? null,
  raw: null,
});

/** The SSE blocks written, as [event name, payload]. */
function blocks(text: string): [string, Record<string, unknown>][] {
  return text
    .split('\n\n')
    .filter((b) => b !== '')
    .map((b) => {
      const [event, data] = b.split('\n');
      return [event!.slice('event: '.length), JSON.parse(data!.slice('data: '.length)) as Record<string, unknown>];
    });
}

async function back(text: string): Promise<FinalResult[]> {
  return runStage(createOutputStage({ output: 'final', dialect: 'openai-responses' }), [text]) as FinalResult[];
}

t.test('Anthropic thinking, a cited text block and a call: summary, the signature lost, a url_citation spanning the block, a function_call', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude', dialect: 'anthropic-messages' },
    { type: 'reasoning_delta', index: 0, text: 'Think' },
    { type: 'signature', index: 0, signature: 'sig', kind: 'signature_delta' },
    { type: 'citation', index: 1, url: 'https://example.com/a', title: 'A', citedText: 'a', raw: { type: 'web_search_result_location' } },
    { type: 'text_delta', index: 1, text: 'Cited ' },
    { type: 'text_delta', index: 1, text: 'text.' },
    { type: 'tool_call_start', index: 2, id: 'toolu_1', name: 'get' },
    { type: 'tool_call_delta', index: 2, id: 'toolu_1', argumentsDelta: '{"q":' },
    { type: 'tool_call_delta', index: 2, id: 'toolu_1', argumentsDelta: '1}' },
    { type: 'tool_call_done', index: 2, id: 'toolu_1', name: 'get', arguments: '{"q":1}' },
    usage(10, 5, { cachedInputTokens: 4 }),
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
  ];
  const { text, losses } = encode(events, 'openai-responses');
  t.strictSame(losses.flatMap((r) => r.dropped.map((d) => d.what)), ['signature']);
  const written = blocks(text);
  t.strictSame(written.map(([, p]) => p['sequence_number']), written.map((_, i) => i), 'dense sequence_number');
  t.ok(written.every(([event, p]) => event === p['type']), 'the event name is the type');
  const annotation = written.find(([e]) => e === 'response.output_text.annotation.added')![1];
  t.strictSame(annotation['annotation'], { type: 'url_citation', url: 'https://example.com/a', title: 'A', start_index: 0, end_index: 11 });
  const f = (await back(text))[0]!;
  t.equal(f.reasoning, 'Think');
  t.equal(f.text, 'Cited text.');
  t.strictSame(f.toolCalls, [{ id: 'toolu_1', name: 'get', arguments: { q: 1 } }]);
  t.strictSame(f.signatures, [], 'a foreign signature is not written as encrypted_content');
  t.equal(f.stopReason, 'tool_use');
  t.strictSame(f.usage, { inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: null, cachedInputTokens: 4 });
  const out = await openaiResponsesFinal(new TextEncoder().encode(text));
  t.strictSame(out.value?.output.map((i) => i.type), ['reasoning', 'message', 'function_call']);
  t.equal(out.value?.usage?.input_tokens_details.cached_tokens, 4);
});

t.test('encrypted_content is carried from the Responses family only', async (t) => {
  const events = (dialect: 'openai-responses' | 'gemini'): UnifiedEvent[] => [
    { type: 'start', id: 'r', model: 'm', dialect },
    { type: 'reasoning_delta', index: 0, contentIndex: 0, text: 'a' },
    { type: 'reasoning_delta', index: 0, contentIndex: 1, text: 'b' },
    { type: 'signature', index: 0, signature: 'gAAA', kind: 'encrypted_content' },
    { type: 'text_delta', index: 1, text: 'x' },
    { type: 'done', stopReason: 'end', providerReason: 'completed' },
  ];
  const same = encode(events('openai-responses'), 'openai-responses');
  t.strictSame(same.losses, []);
  const f = (await back(same.text))[0]!;
  t.strictSame(f.signatures, [{ index: 0, signature: 'gAAA', kind: 'encrypted_content' }]);
  t.equal(f.reasoning, 'ab');
  const out = await openaiResponsesFinal(new TextEncoder().encode(same.text));
  const item = out.value?.output[0];
  t.strictSame(item?.type === 'reasoning' ? [item.summary.map((s) => s.text), item.encrypted_content] : null, [['a', 'b'], 'gAAA'], 'two summary parts and the encrypted content');
  const foreign = encode(events('gemini'), 'openai-responses');
  t.strictSame(foreign.losses.flatMap((r) => r.dropped.map((d) => d.what)), ['signature']);
  t.notMatch(foreign.text, /gAAA/);
});

t.test('free-form input → custom_tool_call (kind told by its first text, not whitespace); empty arguments → function_call', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r', model: 'm', dialect: 'openai-chat' },
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'python' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: '  ' },
    { type: 'tool_call_delta', index: 0, id: 'c1', argumentsDelta: 'print(1)' },
    { type: 'tool_call_start', index: 1, id: 'c2', name: 'now' },
    { type: 'tool_call_done', index: 0, id: 'c1', name: 'python', arguments: '  print(1)' },
    { type: 'tool_call_done', index: 1, id: 'c2', name: 'now', arguments: '' },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ];
  const { text, losses } = encode(events, 'openai-responses');
  t.strictSame(losses, []);
  const out = await openaiResponsesFinal(new TextEncoder().encode(text));
  t.strictSame(
    out.value?.output.map((i) => (i.type === 'custom_tool_call' ? [i.type, i.name, i.input] : i.type === 'function_call' ? [i.type, i.name, i.arguments] : [i.type])),
    [
      ['custom_tool_call', 'python', '  print(1)'],
      ['function_call', 'now', ''],
    ],
  );
  t.notOk('usage' in (blocks(text).at(-1)![1]['response'] as object), 'no usage reported: none in the terminal response');
  const f = (await back(text))[0]!;
  t.strictSame(f.toolCalls.map((c) => c.arguments), ['  print(1)', {}]);
});

t.test('parallel calls whose deltas interleave keep their own output items', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r', model: 'm', dialect: 'openai-chat' },
    { type: 'text_delta', index: 0, text: 'Two calls.' },
    { type: 'tool_call_start', index: 0, id: 'a', name: 'f' },
    { type: 'tool_call_delta', index: 0, id: 'a', argumentsDelta: '{"x":' },
    { type: 'tool_call_start', index: 1, id: 'b', name: 'g' },
    { type: 'tool_call_delta', index: 1, id: 'b', argumentsDelta: '{"y":' },
    { type: 'tool_call_delta', index: 0, id: 'a', argumentsDelta: '1}' },
    { type: 'tool_call_delta', index: 1, id: 'b', argumentsDelta: '2}' },
    usage(3, 4),
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_calls' },
  ];
  const { text } = encode(events, 'openai-responses');
  const f = (await back(text))[0]!;
  t.strictSame(f.toolCalls, [
    { id: 'a', name: 'f', arguments: { x: 1 } },
    { id: 'b', name: 'g', arguments: { y: 2 } },
  ]);
  const out = await openaiResponsesFinal(new TextEncoder().encode(text));
  t.strictSame(
    out.value?.output.flatMap((i) => (i.type === 'function_call' ? [i.arguments] : [])),
    ['{"x":1}', '{"y":2}'],
  );
  t.equal(out.value?.output_text, 'Two calls.');
});

t.test('stop reasons: max_tokens and refusal are incomplete, a refusal part is the refusal channel, the terminal event holds the usage', async (t) => {
  const run = (stopReason: StopReason, refusal: boolean) =>
    encode(
      [
        { type: 'start', id: 'r', model: 'm', dialect: 'anthropic-messages' },
        refusal ? { type: 'text_delta', index: 0, text: 'No.', refusal: true } : { type: 'text_delta', index: 0, text: 'Long' },
        usage(7, 9, { reasoningTokens: 2 }),
        { type: 'done', stopReason, providerReason: null },
      ],
      'openai-responses',
    );
  const long = run('max_tokens', false);
  const last = blocks(long.text).at(-1)!;
  t.equal(last[0], 'response.incomplete');
  const response = last[1]['response'] as Record<string, unknown>;
  t.strictSame(response['incomplete_details'], { reason: 'max_output_tokens' });
  t.strictSame(response['usage'], { input_tokens: 7, output_tokens: 9, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 16 });
  t.equal((await back(long.text))[0]!.stopReason, 'max_tokens');
  const refused = run('refusal', true);
  t.match(refused.text, /response\.refusal\.delta/);
  const f = (await back(refused.text))[0]!;
  t.equal(f.refusal, 'No.');
  t.equal(f.stopReason, 'refusal');
  const out = await openaiResponsesFinal(new TextEncoder().encode(refused.text));
  t.equal(out.value?.incomplete_details?.reason, 'content_filter');
  const other = run('other', false);
  t.strictSame(other.losses.flatMap((r) => r.dropped.map((d) => d.what)), ['stop_reason'], 'another family\'s other is written as completed, reported');
});

t.test('a response cut short: its items closed, an error event, response.failed with the usage so far; the SDK rejects', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r', model: 'm', dialect: 'anthropic-messages' },
    { type: 'text_delta', index: 0, text: 'Hel' },
    usage(5, 1),
  ];
  const { text } = encode(events, 'openai-responses');
  const written = blocks(text);
  t.strictSame(
    written.slice(-4).map(([e]) => e),
    ['response.content_part.done', 'response.output_item.done', 'error', 'response.failed'],
  );
  const failed = written.at(-1)![1]['response'] as Record<string, unknown>;
  t.equal(failed['status'], 'failed');
  t.strictSame(failed['usage'], { input_tokens: 5, output_tokens: 1, total_tokens: 6 });
  const f = (await back(text))[0]!;
  t.equal(f.stopReason, 'error');
  t.strictSame(f.errors.map((e) => e.code), ['incomplete_stream']);
  t.equal(f.usage.inputTokens, 5);
  const out = await openaiResponsesFinal(new TextEncoder().encode(text));
  t.notOk(out.value);
  t.match(out.error?.message, /incomplete_stream/);
});

t.test('hosted calls, their results and files are reported lost', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r', model: 'm', dialect: 'anthropic-messages' },
    { type: 'tool_call_start', index: 0, id: 'srv', name: 'web_search', providerExecuted: true },
    { type: 'tool_call_done', index: 0, id: 'srv', name: 'web_search', arguments: '{"query":"q"}', providerExecuted: true },
    { type: 'tool_result', index: 1, id: 'srv', name: 'web_search', result: [] },
    { type: 'file', index: 2, mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    { type: 'text_delta', index: 3, text: 'Found.' },
    { type: 'done', stopReason: 'end', providerReason: 'end_turn' },
  ];
  const { text, losses } = encode(events, 'openai-responses');
  t.strictSame(losses.flatMap((r) => r.dropped.map((d) => d.what)).sort(), ['file', 'provider_tool_call', 'tool_result']);
  t.equal((await back(text))[0]!.text, 'Found.');
});

/** Call ids of the source's custom_tool_call items run by the server (xAI's sub-tools): this wire would make them client calls. */
function hostedCustomIds(events: UnifiedEvent[]): Set<string> {
  const hosted = new Set(events.flatMap((e) => (e.type === 'tool_call_start' && e.providerExecuted === true ? [e.id] : [])));
  const ids = new Set<string>();
  for (const e of events) {
    if (e.type !== 'raw' || e.event === null || typeof e.event !== 'object' || Array.isArray(e.event)) continue;
    const item = e.event['item'];
    if (e.event['type'] !== 'response.output_item.done' || item === null || typeof item !== 'object' || Array.isArray(item) || item['type'] !== 'custom_tool_call') continue;
    const id = typeof item['call_id'] === 'string' && item['call_id'] !== '' ? item['call_id'] : item['id'];
    if (typeof id === 'string' && hosted.has(id)) ids.add(id);
  }
  return ids;
}

t.test('Responses-family captures: hosted calls, their results and images come back as the same blocks (the source\'s items), but xAI\'s server-side custom_tool_call items, reported lost', async (t) => {
  // written at their output_item.done: parallel hosted items (xAI's searches) come in the order they were done
  const hostedBlocks = (f: FinalResult, drop: Set<string>) =>
    f.content
      .filter((b) => (b.type === 'tool_result' || b.type === 'file' || (b.type === 'tool_call' && b.providerExecuted === true)) && !(b.type !== 'file' && drop.has(b.id)))
      .map((b) => JSON.stringify(b))
      .sort();
  let n = 0;
  let custom = 0;
  for (const c of captures()) {
    const finals = runStage(createOutputStage({ output: 'final' }), [c.bytes]) as FinalResult[];
    if (!finals.some((f) => (f.dialect === 'openai-responses' || f.dialect === 'xai-responses') && hostedBlocks(f, new Set()).length > 0)) continue;
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const { text, losses } = encode(events, 'openai-responses');
    const kinds = new Set(losses.flatMap((r) => r.dropped.map((d) => d.what)));
    const lost = hostedCustomIds(events);
    if (lost.size > 0) {
      custom++;
      t.ok(kinds.has('provider_tool_call'), `${c.name}: the server-side custom tool calls are reported`);
    } else t.notOk(kinds.has('provider_tool_call') || kinds.has('tool_result') || kinds.has('file'), `${c.name}: nothing hosted reported lost`);
    const read = await back(text);
    finals.forEach((f, i) => t.strictSame(hostedBlocks(read[i]!, new Set()), hostedBlocks(f, lost), `${c.name} #${i + 1}`));
    n++;
  }
  t.ok(n >= 12, `${n} captures`);
  t.ok(custom >= 2, `${custom} with xAI server-side custom tool calls`);
});
