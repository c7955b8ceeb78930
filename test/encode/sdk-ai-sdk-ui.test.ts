/**
 * The ai-sdk-ui target read back by the `ai` package itself: no dialect of ours reads the UI
 * message stream (round-trip.test.ts skips it: `readBack: false`), so every capture and fixture is
 * encoded and its bytes go through what `useChat` runs: DefaultChatTransport (its fetch answered with
 * the bytes; parseJsonEventStream with uiMessageChunkSchema: every chunk must validate), then
 * readUIMessageStream. Each rebuilt UIMessage (one per response) must have the text, reasoning, tool
 * parts (names, inputs, outputs, providerExecuted), sources and files of wirefold's final of the
 * original, the finish reason, and the usage in its metadata; each loss the expectation names is in
 * the loss report.
 */
import t from 'tap';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, StopReason, UnifiedEvent, Usage } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import { targetOf } from '../../lib/encode/encoder.js';
import { captures, encode, view, wireFinals } from '../helpers/encode.js';
import { mockResponse } from '../helpers/sdk.js';
import { EXPECTATIONS } from './expect/index.js';

const expect = EXPECTATIONS['ai-sdk-ui'];

const FINISH: Record<StopReason, string> = { end: 'stop', tool_use: 'tool-calls', max_tokens: 'length', refusal: 'content-filter', error: 'error', other: 'other' };

interface ReadBack {
  chunks: UIMessageChunk[];
  /** The last snapshot of each message, in order of first appearance. */
  messages: UIMessage[];
  /** Chunks that failed the schema, and errors readUIMessageStream reported. */
  invalid: string[];
  errors: string[];
}

/**
 * What `useChat` does: DefaultChatTransport.sendMessages (its fetch answered with the encoded bytes in
 * seeded random pieces, under the target's content type and headers) parses and validates the chunks
 * (parseJsonEventStream + uiMessageChunkSchema: a chunk that fails errors the stream), then
 * readUIMessageStream rebuilds the messages.
 */
async function readBack(text: string, seed: number): Promise<ReadBack> {
  const target = targetOf('ai-sdk-ui');
  const transport = new DefaultChatTransport({
    api: 'http://127.0.0.1/api/chat',
    fetch: async () => new Response(mockResponse(new TextEncoder().encode(text), { seed }).body, { headers: { 'content-type': target.contentType, ...target.headers } }),
  });
  const stream = await transport.sendMessages({ chatId: 'c1', messages: [], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
  const [forChunks, forMessages] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const invalid: string[] = [];
  const collect = (async () => {
    const reader = forChunks.getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    } catch (err) {
      invalid.push(err instanceof Error ? err.message : String(err));
    }
  })();
  const errors: string[] = [];
  const last = new Map<string, UIMessage>();
  const onError = (e: unknown): void => void errors.push(e instanceof Error ? e.message : String(e));
  for await (const m of readUIMessageStream({ stream: forMessages, onError })) last.set(m.id, m);
  await collect;
  return { chunks, messages: [...last.values()], invalid, errors };
}

type Part = UIMessage['parts'][number];
const isTool = (p: Part): p is Extract<Part, { toolCallId: string }> => p.type.startsWith('tool-') || p.type === 'dynamic-tool';

/** A message's parts, seen as the final's fields. */
function seen(m: UIMessage) {
  const parts = m.parts;
  const tools = parts.filter(isTool);
  return {
    text: parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    reasoning: parts.map((p) => (p.type === 'reasoning' ? p.text : '')).join(''),
    calls: tools.map((p) => ({ id: p.toolCallId, name: p.type.slice('tool-'.length), arguments: p.input as Json, providerExecuted: p.providerExecuted === true })),
    results: tools
      .filter((p) => p.state === 'output-available' || p.state === 'output-error')
      .map((p) => (p.state === 'output-available' ? { id: p.toolCallId, result: p.output as Json } : { id: p.toolCallId, error: p.errorText })),
    sources: parts.flatMap((p): { url?: string; title?: string }[] => (p.type === 'source-url' ? [{ url: p.url, title: p.title }] : p.type === 'source-document' ? [{ title: p.title }] : [])),
    files: parts.flatMap((p) => (p.type === 'file' ? [p.url] : [])),
    signatures: parts.flatMap((p) => {
      const a = p.type === 'reasoning' ? (p.providerMetadata?.['anthropic'] as { signature?: string; redactedData?: string } | undefined) : undefined;
      return a?.signature ?? a?.redactedData ?? [];
    }),
  };
}

/** The same fields of wirefold's final, less what the target cannot carry. */
function want(f: FinalResult) {
  const v = expect.expected(f);
  const order = f.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
  const callIds = new Set(order);
  const same = expect.sameFamily(f.dialect);
  return {
    text: v.text,
    reasoning: v.reasoning,
    calls: f.content.flatMap((b) => (b.type === 'tool_call' ? [{ id: b.id, name: b.name, arguments: b.arguments, providerExecuted: b.providerExecuted === true }] : [])),
    results: f.content.flatMap((b) =>
      b.type === 'tool_result' && callIds.has(b.id)
        ? [b.isError === true ? { id: b.id, error: typeof b.result === 'string' ? b.result : JSON.stringify(b.result) } : { id: b.id, result: b.result }]
        : [],
    ).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id)), // a result shows on its call's part: in call order
    sources: f.citations.map((c) => (c.url !== undefined ? { url: c.url, title: c.title } : { title: c.title ?? c.source ?? 'document' })),
    files: f.content.flatMap((b) => (b.type === 'file' ? [`data:${b.mimeType ?? 'application/octet-stream'};base64,${b.data}`] : [])),
    signatures: same ? f.signatures.filter((s) => s.kind === 'signature_delta' || s.kind === 'redacted_thinking').map((s) => s.signature) : [],
  };
}

/** finish.messageMetadata.usage, back in the unified shape (what was left out is unknown). */
function usageOf(m: UIMessage): Usage {
  const u = ((m.metadata as { usage?: Record<string, unknown> } | undefined)?.usage ?? {}) as {
    inputTokens?: number;
    outputTokens?: number;
    totalTokens?: number;
    inputTokenDetails?: { cacheReadTokens?: number };
    outputTokenDetails?: { reasoningTokens?: number };
  };
  return {
    inputTokens: u.inputTokens ?? null,
    outputTokens: u.outputTokens ?? null,
    totalTokens: u.totalTokens ?? null,
    reasoningTokens: u.outputTokenDetails?.reasoningTokens ?? null,
    cachedInputTokens: u.inputTokenDetails?.cacheReadTokens ?? null,
  };
}

t.test('every capture → ai-sdk-ui → DefaultChatTransport + readUIMessageStream: the finals, less what the loss report names', async (t) => {
  let checked = 0;
  let seed = 1;
  for (const c of captures()) {
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const finals = wireFinals(events);
    const { text, losses } = encode(events, 'ai-sdk-ui');
    t.ok(text.endsWith('data: [DONE]\n\n'), `${c.name}: ends with [DONE]`);
    const back = await readBack(text, seed++);
    t.strictSame(back.invalid, [], `${c.name}: every chunk passes uiMessageChunkSchema`);
    const named = new Set(losses.flatMap((r) => r.dropped.map((d) => d.what)));
    // an error outside any response (no content, no dialect) is an error chunk outside any message
    const kept = finals.filter((f) => !(f.dialect === null && f.content.length === 0 && f.stopReason === 'error'));
    t.equal(back.messages.length, kept.length, `${c.name}: one UI message per response`);
    const finishes = back.chunks.filter((ch): ch is Extract<UIMessageChunk, { type: 'finish' }> => ch.type === 'finish');
    kept.forEach((f, i) => {
      const m = back.messages[i];
      if (!t.ok(m, `${c.name} #${i + 1}: a message`)) return;
      t.strictSame(seen(m!), want(f), `${c.name} #${i + 1}: parts`);
      t.equal(finishes[i]?.finishReason, FINISH[f.stopReason], `${c.name} #${i + 1}: finishReason`);
      // the token counts (a transcription's billed seconds have no place: reported lost)
      t.strictSame(usageOf(m!), view(f).usage, `${c.name} #${i + 1}: usage in metadata`);
      if (f.stopReason === 'error') t.ok(back.errors.length > 0, `${c.name} #${i + 1}: a failed response reaches onError`);
      for (const kind of expect.mustReport(f)) t.ok(named.has(kind), `${c.name} #${i + 1}: the loss report names ${kind}`);
    });
    // a terminal error reaches the client's onError, with its code
    const terminal = finals.flatMap((f) => f.errors).filter((e) => events.some((ev) => ev.type === 'error' && ev.terminal && ev.code === e.code));
    for (const e of terminal) t.ok(back.errors.some((m) => m.startsWith(`${e.code}: `)), `${c.name}: onError got ${e.code}`);
    checked++;
  }
  t.ok(checked > 150, `${checked} captures`);
});

t.test('the wire: SSE data chunks, [DONE] once at the end, the content type and the v1 header', async (t) => {
  const target = targetOf('ai-sdk-ui');
  t.equal(target.contentType, 'text/event-stream');
  t.strictSame(target.headers, { 'x-vercel-ai-ui-message-stream': 'v1' });
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'r1', model: 'm1', dialect: 'anthropic-messages' },
    { type: 'reasoning_delta', index: 0, text: 'hmm' },
    { type: 'signature', index: 0, signature: 'sig', kind: 'signature_delta' },
    { type: 'text_delta', index: 1, text: 'Hi' },
    { type: 'tool_call_start', index: 2, id: 'srv', name: 'web_search', providerExecuted: true },
    { type: 'tool_call_done', index: 2, id: 'srv', name: 'web_search', arguments: '{"query":"q"}', providerExecuted: true },
    { type: 'tool_result', index: 3, id: 'srv', name: 'web_search', result: [{ url: 'https://a.example' }] },
    { type: 'citation', index: 4, url: 'https://a.example', title: 'A', raw: {} },
    { type: 'tool_call_start', index: 5, id: 'c1', name: 'get', },
    { type: 'tool_call_delta', index: 5, id: 'c1', argumentsDelta: '{"a"' },
    { type: 'tool_call_done', index: 5, id: 'c1', name: 'get', arguments: '{"a":1}' },
    { type: 'usage', inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: null, cachedInputTokens: 4, raw: null },
    { type: 'done', stopReason: 'tool_use', providerReason: 'tool_use' },
    { type: 'start', id: 'r1', model: 'm1', dialect: 'anthropic-messages' },
    { type: 'text_delta', index: 0, text: 'again' },
  ];
  const text = runStage(createEncoder({ to: 'ai-sdk-ui' }), events).join('');
  const blocks = text.split('\n\n').filter((b) => b !== '');
  t.ok(blocks.every((b) => b.startsWith('data: ') && !b.includes('\n')), 'data-only SSE blocks');
  t.equal(blocks.filter((b) => b === 'data: [DONE]').length, 1);
  t.equal(blocks.at(-1), 'data: [DONE]');
  const chunks = blocks.slice(0, -1).map((b) => JSON.parse(b.slice(6)) as { type: string } & Record<string, unknown>);
  t.strictSame(
    chunks.map((c) => c.type),
    [
      'start', 'start-step', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end',
      'tool-input-start', 'tool-input-delta', 'tool-input-available', 'tool-output-available', 'source-url',
      'tool-input-start', 'tool-input-delta', 'tool-input-delta', 'tool-input-available', 'finish-step', 'finish',
      // the second response never ended: an error and an error finish; its id repeats the first's
      'start', 'start-step', 'text-start', 'text-delta', 'text-end', 'error', 'finish-step', 'finish',
    ],
  );
  t.strictSame(chunks[0], { type: 'start', messageId: 'r1', messageMetadata: { model: 'm1' } });
  t.strictSame(chunks[4], { type: 'reasoning-delta', id: 'reasoning-0', delta: '', providerMetadata: { anthropic: { signature: 'sig' } } });
  t.strictSame(chunks[9], { type: 'tool-input-start', toolCallId: 'srv', toolName: 'web_search', providerExecuted: true });
  t.strictSame(chunks[12], { type: 'tool-output-available', toolCallId: 'srv', output: [{ url: 'https://a.example' }], providerExecuted: true });
  t.strictSame(chunks[17], { type: 'tool-input-available', toolCallId: 'c1', toolName: 'get', input: { a: 1 } });
  t.strictSame(chunks[19], {
    type: 'finish',
    finishReason: 'tool-calls',
    messageMetadata: { usage: { inputTokens: 10, inputTokenDetails: { cacheReadTokens: 4, noCacheTokens: 6 }, outputTokens: 5, totalTokens: 15 } },
  });
  t.equal(chunks[20]!['messageId'], 'r1-2');
  t.strictSame(chunks.at(-1), { type: 'finish', finishReason: 'error' });
  // an error outside any response: an error chunk of no message, and [DONE]
  const outside = runStage(createEncoder({ to: 'ai-sdk-ui' }), [{ type: 'error', code: 'invalid_json', message: 'bad', terminal: true }]).join('');
  t.equal(outside, 'data: {"type":"error","errorText":"invalid_json: bad"}\n\ndata: [DONE]\n\n');
});

t.test('lost: foreign signatures, orphan results, cited ranges, audio; strict fails on them', async (t) => {
  const events: UnifiedEvent[] = [
    { type: 'start', id: 'g', model: 'gemini', dialect: 'gemini' },
    { type: 'text_delta', index: 0, text: 'x' },
    { type: 'signature', index: 0, signature: 'ts', kind: 'thought_signature' },
    { type: 'tool_result', index: 1, id: 'nocall', name: 'code', result: 'out' },
    { type: 'citation', index: 0, url: 'https://b.example', start: 0, end: 1, raw: {} },
    { type: 'audio_delta', index: 2, mimeType: 'audio/pcm', data: 'AAAA' },
    { type: 'done', stopReason: 'end', providerReason: 'STOP' },
  ];
  const { losses } = encode(events, 'ai-sdk-ui');
  t.strictSame(losses.flatMap((r) => r.dropped.map((d) => d.what)).sort(), ['audio', 'citation', 'signature', 'tool_result']);
  t.throws(() => runStage(createEncoder({ to: 'ai-sdk-ui', strict: true }), events), { code: 'lossy_encoding', message: /ai-sdk-ui cannot carry signature/ });
});
