/**
 * Anthropic Messages parity: our final vs `client.messages.stream(...).finalMessage()`
 * of `@anthropic-ai/sdk` on the same bytes (every corpus file and fixture).
 */
import t, { type Test } from 'tap';
import type { Message, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ContentBlock, FinalCitation, FinalResult } from '../../lib/accumulate/types.js';
import type { Json, StopReason, Usage } from '../../lib/events.js';
import { bothRan, endsInError, failedAsDocumented, oneFinal, str } from '../helpers/parity.js';
import { anthropicFinal, NO_USAGE, ourFinals, parityInputs, parsedArguments, type AnthropicOutcome } from '../helpers/sdk.js';

const all = parityInputs(['anthropic-messages'], ['anthropic-messages', 'quickstart']);
/** One response per input, as the SDK reads it; `.ndjson` captures (responses back to back, no SSE framing) are compared below. */
const inputs = all.filter((i) => !i.name.endsWith('.ndjson'));
const logs = all.filter((i) => i.name.endsWith('.ndjson'));

// ---- the SDK's Message, mapped to our semantics ----

type Block = { type: string; [key: string]: unknown };

/** Tool blocks whose input streams as input_json_delta: client tools, server tools, MCP tools. */
const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
/** Of those, the ones Anthropic runs itself: content only, never the client's toolCalls. */
const PROVIDER_TOOL_BLOCKS = new Set(['server_tool_use', 'mcp_tool_use']);

/**
 * The partial_json fragments the SDK parsed, per block index. The SDK builds
 * `input` from them only for tool_use and server_tool_use (`tracksToolInput`):
 * an mcp_tool_use block keeps the `input` of its content_block_start (`{}`),
 * so for those the expected arguments come from the fragments themselves.
 */
function streamedInputs(events: MessageStreamEvent[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') out.set(e.index, (out.get(e.index) ?? '') + e.delta.partial_json);
  }
  return out;
}

/**
 * Our content blocks for the SDK's content: text → text; thinking →
 * reasoning with its signature; redacted_thinking → a text-less reasoning block
 * whose signature is the redacted data; tool_use → tool_call;
 * server_tool_use / mcp_tool_use → tool_call with providerExecuted; each
 * `*_tool_result` block → tool_result (the call's id and, when that call is in
 * this message, its name; the block's content as the SDK holds it; isError for
 * an `*_error` content, an error_code or is_error); compaction, fallback…
 * carry no content of ours (they stay `raw` events). Empty text carries nothing.
 * The citations the SDK collected on each text block are our citations of that
 * block (see citationOf).
 */

/**
 * Tool input cut off before its JSON was complete (max_tokens mid-input, a
 * stream cut short): the SDK partial-parses the fragments into whatever object
 * they begin (`{"q": "str` → `{}`), while we keep the raw text as the
 * arguments and report `invalid_tool_arguments` (FinalToolCall: "the raw text
 * when it was not valid JSON (see errors)") — a repaired object would look
 * like a real call. So for those calls the expected arguments are the streamed
 * text, and `cut` lists their ids.
 */
function assemble(m: Message, events: MessageStreamEvent[]): { content: ContentBlock[]; cut: string[]; citations: FinalCitation[] } {
  const inputs = streamedInputs(events);
  const out: ContentBlock[] = [];
  const cut: string[] = [];
  const citations: FinalCitation[] = [];
  const names = new Map<string, string>();
  (m.content as unknown as Block[]).forEach((b, i) => {
    if (b.type === 'text') {
      if (str(b['text']) !== '') out.push({ type: 'text', text: str(b['text']) });
      for (const c of (b['citations'] ?? []) as Record<string, unknown>[]) citations.push(citationOf(i, c));
    } else if (b.type.endsWith('_tool_result')) {
      const id = str(b['tool_use_id']);
      const result = (b['content'] ?? null) as Json;
      const block: ContentBlock = { type: 'tool_result', id, name: names.get(id) ?? '', result };
      if (b['is_error'] === true || isErrorContent(result)) block.isError = true;
      out.push(block);
    } else if (b.type === 'thinking') {
      const block: ContentBlock = { type: 'reasoning', text: str(b['thinking']) };
      if (str(b['signature']) !== '') block.signature = str(b['signature']);
      if (block.text !== '' || block.signature !== undefined) out.push(block);
    } else if (b.type === 'redacted_thinking') {
      out.push({ type: 'reasoning', text: '', signature: str(b['data']) });
    } else if (TOOL_BLOCKS.has(b.type)) {
      const streamed = inputs.get(i);
      let args = (b['input'] ?? {}) as Json;
      // Only empty fragments (`partial_json: ""`) are no arguments at all: `{}` on both sides.
      if (streamed !== undefined && streamed !== '' && !isJson(streamed)) {
        args = streamed;
        cut.push(str(b['id']));
      } else if (b.type === 'mcp_tool_use' && streamed !== undefined) args = parsedArguments(streamed);
      const call: ContentBlock = { type: 'tool_call', id: str(b['id']), name: str(b['name']), arguments: args };
      if (PROVIDER_TOOL_BLOCKS.has(b.type)) call.providerExecuted = true;
      names.set(call.id, call.name);
      out.push(call);
    }
  });
  return { content: out, cut, citations };
}

function isErrorContent(content: Json): boolean {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return false;
  return (typeof content['type'] === 'string' && content['type'].endsWith('_error')) || 'error_code' in content;
}

/**
 * Our reading of one Anthropic citation object of text block `index`: url and
 * title of a web search result; for documents the title (document_title) and
 * the source (file_id, else `document <document_index>`); for search results
 * their `source`; the quote when not empty. No start/end: Anthropic's
 * offsets index the cited document, not the text.
 */
function citationOf(index: number, c: Record<string, unknown>): FinalCitation {
  const out: FinalCitation = { index };
  const s = (k: string): string | undefined => (typeof c[k] === 'string' ? (c[k] as string) : undefined);
  const url = s('url');
  if (url !== undefined) out.url = url;
  const title = s('title') ?? s('document_title');
  if (title !== undefined) out.title = title;
  const source = s('source') ?? s('file_id') ?? (typeof c['document_index'] === 'number' ? `document ${c['document_index']}` : undefined);
  if (source !== undefined) out.source = source;
  const cited = s('cited_text');
  if (cited !== undefined && cited !== '') out.citedText = cited;
  return out;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Our inputTokens count every prompt token: input + cache reads + cache writes
 * (Anthropic reports them apart); cachedInputTokens are the cache reads.
 */
function usageOf(m: Message): Usage {
  const u = m.usage as Message['usage'] | undefined;
  if (u === undefined) return NO_USAGE;
  const input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  const details = u.output_tokens_details as { thinking_tokens?: number; reasoning_tokens?: number } | null | undefined;
  return {
    inputTokens: input,
    outputTokens: u.output_tokens,
    totalTokens: input + u.output_tokens,
    reasoningTokens: details?.reasoning_tokens ?? details?.thinking_tokens ?? null,
    cachedInputTokens: u.cache_read_input_tokens ?? null,
  };
}

/**
 * `tool_use` asks the client to run its calls: it stays ours only while a
 * client tool_use block is in the message (with only server / MCP calls
 * nothing is pending: end; with no call at all: other).
 */
function stopReasonOf(m: Message): StopReason {
  const reason = stopReasonOfProvider(m.stop_reason);
  if (reason !== 'tool_use') return reason;
  const blocks = m.content as unknown as Block[];
  if (blocks.some((b) => b.type === 'tool_use')) return 'tool_use';
  return blocks.some((b) => PROVIDER_TOOL_BLOCKS.has(b.type)) ? 'end' : 'other';
}

function stopReasonOfProvider(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'max_tokens':
      return 'max_tokens';
    case 'tool_use':
      return 'tool_use';
    case 'refusal':
      return 'refusal';
    default:
      return 'other'; // pause_turn, model_context_window_exceeded, none…
  }
}

function compare(tt: Test, ours: FinalResult, m: Message, events: MessageStreamEvent[]): void {
  const { content, cut, citations } = assemble(m, events);
  tt.strictSame(
    ours.errors.map((e) => e.code),
    cut.map(() => 'invalid_tool_arguments'),
    cut.length === 0 ? 'no errors' : 'cut tool input is reported',
  );
  for (const id of cut) tt.ok(ours.errors.some((e) => e.message.includes(id)), `the error names ${id}`);
  tt.equal(ours.id, m.id, 'id');
  tt.equal(ours.model, m.model, 'model');
  tt.strictSame(ours.content, content, 'content blocks');
  // Text blocks are concatenated as they are (finalText() would join them with ' ').
  tt.equal(ours.text, content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''), 'text');
  tt.equal(ours.refusal, null, 'no refusal channel');
  tt.equal(ours.reasoning, content.flatMap((b) => (b.type === 'reasoning' ? [b.text] : [])).join(''), 'reasoning');
  // The client's calls only: the SDK's tool_use blocks.
  tt.strictSame(
    ours.toolCalls,
    content.flatMap((b) => (b.type === 'tool_call' && b.providerExecuted !== true ? [{ id: b.id, name: b.name, arguments: b.arguments }] : [])),
    'tool calls: the client tool_use blocks',
  );
  tt.strictSame(ours.citations, citations, 'citations');
  tt.strictSame(ours.usage, usageOf(m), 'usage');
  tt.equal(ours.stopReason, stopReasonOf(m), 'stop reason');
  tt.equal(ours.providerReason, m.stop_reason, 'provider reason');
}

// ---- where the SDK throws, and why ----

const SDK_FAILS: Record<string, RegExp> = {
  'anthropic-messages/mirascope--http404-error.body': /^404\b.*not_found_error/,
  // `event: error` (overloaded_error) mid-stream: the SDK throws an APIError.
  'fixtures/anthropic-messages/overloaded-error.sse': /overloaded/i,
  // No message_stop: finalMessage() only resolves with a message that was stopped.
  'fixtures/anthropic-messages/missing-message-stop.sse': /stream ended without producing a Message with role=assistant/,
};

/**
 * Our bug: an `error` event after message_start loses the usage message_start reported.
 * anthropic-messages.ts onError emits error + done(error) without flushUsage(), while
 * onIncomplete (stream cut off) and finish() both flush it first; the SDK's snapshot has
 * input 25 / output 1 here, our final has all-null usage.
 */
t.test('every anthropic-messages input: our final matches finalMessage()', async (t) => {
  t.ok(inputs.length >= 36, `${inputs.length} inputs`);
  for (const input of inputs) {
    await t.test(input.name, async (tt) => {
      const sdk: AnthropicOutcome = await anthropicFinal(input.bytes, input.http);
      const { finals, thrown } = await ourFinals(input.bytes, 'anthropic-messages', input.http);
      bothRan(tt, sdk.requests, thrown);
      const ours = oneFinal(tt, finals);
      const failure = SDK_FAILS[input.name];
      if (sdk.error !== undefined) {
        if (!failedAsDocumented(tt, sdk.error, failure)) return;
        endsInError(tt, ours);
        if (sdk.snapshot !== undefined) {
          // What the SDK had assembled before it failed, we kept: same blocks, same usage so far.
          const { content, cut } = assemble(sdk.snapshot, sdk.events);
          tt.strictSame(ours.content, content, 'the blocks the SDK saw before failing');
          for (const id of cut) tt.ok(ours.errors.some((e) => e.code === 'invalid_tool_arguments' && e.message.includes(id)), `cut input of ${id} reported`);
          tt.strictSame(ours.usage, usageOf(sdk.snapshot), 'the usage the SDK saw before failing');
        }
        return;
      }
      tt.notOk(failure, 'the SDK did not fail');
      compare(tt, ours, sdk.value!, sdk.events);
    });
  }
});

t.test('tool input the SDK does not assemble (mcp_tool_use) or repairs (cut JSON)', async (t) => {
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const mcp = byName.get('anthropic-messages/pydantic-ai--mcp-tool-use.sse')!;
  const sdk = await anthropicFinal(mcp.bytes);
  const [ours] = (await ourFinals(mcp.bytes, 'anthropic-messages')).finals;
  const block = (sdk.value?.content as unknown as Block[] | undefined)?.find((b) => b.type === 'mcp_tool_use');
  t.same(block?.['input'], {}, "the SDK's mcp_tool_use keeps the empty input of content_block_start");
  t.strictSame(ours?.toolCalls, [], 'an MCP connector call is not the client\'s');
  t.strictSame(
    ours?.content.find((b) => b.type === 'tool_call'),
    {
      type: 'tool_call',
      id: 'mcptoolu_01FZmJ5UspaX5BB9uU339UT1',
      name: 'ask_question',
      arguments: { repoName: 'pydantic/pydantic-ai', question: 'What is this repository about? What are its main features and purpose?' },
      providerExecuted: true,
    },
    'we assemble its input_json_delta fragments',
  );

  const cut = byName.get('anthropic-messages/anthropic-sdk-python--max-tokens-mid-tool-input.sse')!;
  const sdk2 = await anthropicFinal(cut.bytes);
  const [ours2] = (await ourFinals(cut.bytes, 'anthropic-messages')).finals;
  const tool = (sdk2.value?.content as unknown as Block[] | undefined)?.find((b) => b.type === 'tool_use');
  t.type(tool?.['input'], 'object', 'the SDK partial-parses the cut input into an object');
  const streamed = streamedInputs(sdk2.events).get(1);
  t.equal(ours2?.toolCalls[0]?.arguments, streamed, 'we keep the text as streamed');
  t.equal(ours2?.stopReason, 'max_tokens', 'the response itself ended normally (max_tokens)');
  t.same(ours2?.errors.map((e) => e.code), ['invalid_tool_arguments'], 'and the cut input is an error of ours');
});

/**
 * A capture stored as events one per line, several responses back to back
 * (vercel-ai--programmatic-tool-calling.ndjson): we read the file whole; the
 * SDK reads each response, framed as the SSE the API sent (`event: <type>`,
 * `data: <line>`), one request each.
 */
t.test('logs of several responses: each of our finals matches finalMessage() of that response', async (t) => {
  t.ok(logs.length >= 1, `${logs.length} logs`);
  for (const log of logs) {
    await t.test(log.name, async (tt) => {
      const responses: string[][] = [];
      for (const line of log.bytes.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        if ((JSON.parse(line) as { type?: string }).type === 'message_start') responses.push([]);
        responses.at(-1)!.push(line);
      }
      const { finals, thrown } = await ourFinals(log.bytes, 'anthropic-messages');
      tt.equal(thrown, null, 'wirefold did not throw');
      tt.equal(finals.length, responses.length, `${responses.length} finals`);
      for (const [k, lines] of responses.entries()) {
        const framed = lines.map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`).join('');
        const sdk = await anthropicFinal(Buffer.from(framed, 'utf8'));
        tt.equal(sdk.error, undefined, `response ${k}: the SDK did not fail`);
        if (sdk.value === undefined || finals[k] === undefined) continue;
        await tt.test(`response ${k} (${sdk.value.id})`, async (rt) => compare(rt, finals[k]!, sdk.value!, sdk.events));
      }
    });
  }
});
