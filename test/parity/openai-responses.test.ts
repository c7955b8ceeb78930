/**
 * OpenAI Responses parity: our final vs `client.responses.stream(...).finalResponse()`
 * of the `openai` SDK on the same bytes (every corpus file and fixture).
 *
 * The SDK's final Response is the snapshot carried by the terminal event
 * (response.completed / incomplete / failed) with `output_text` added, so where
 * its accumulator rejects a stream the same snapshot is read off the SDK's plain
 * event stream (`responses.create({stream: true})`) instead.
 *
 * `toolCalls` is compared with the snapshot's client-run items only; hosted
 * items (run by the platform) are compared as content: a providerExecuted
 * tool_call, then its tool_result (and a generated image's file block); the
 * snapshot's text annotations are compared with our citations.
 */
import t, { type Test } from 'tap';
import type { Response as OpenAIResponse, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ContentBlock, FinalCitation, FinalResult } from '../../lib/accumulate/types.js';
import type { Json, StopReason, Usage } from '../../lib/events.js';
import { bothRan, endsInError, failedAsDocumented, oneFinal, str } from '../helpers/parity.js';
import { NO_USAGE, openaiResponsesEvents, openaiResponsesFinal, ourFinals, parityInputs, parsedArguments } from '../helpers/sdk.js';

const inputs = parityInputs(['openai-responses'], ['openai-responses']);

// ---- the SDK's Response, mapped to our semantics ----

type Item = { type?: string; [key: string]: unknown };
type Part = { type?: string; text?: unknown; refusal?: unknown };

function items(r: OpenAIResponse): Item[] {
  return r.output as unknown as Item[];
}

type Args = ReturnType<typeof parsedArguments>;

/** The object of `item`'s fields named in `keys` that it has. */
function only(item: Item, keys: string[]): Json {
  const out: Record<string, Json> = {};
  for (const k of keys) if (item[k] !== undefined) out[k] = item[k] as Json;
  return out;
}

/** The response's shell tool runs in a platform container (container_auto / container_reference). */
function hostedShellTool(r: OpenAIResponse): boolean {
  return ((r.tools ?? []) as unknown as Item[]).some((tool) => {
    const env = (tool['environment'] as Item | null | undefined)?.type;
    return tool.type === 'shell' && (env === 'container_auto' || env === 'container_reference');
  });
}

interface CallOf {
  id: string;
  name: string;
  arguments: Args;
  /** The platform runs it (openai-node's item docs; shell by its environment, tool search by `execution`). */
  hosted: boolean;
}

/**
 * The call an output item is. Client-run: function_call, custom_tool_call, apply_patch_call,
 * local_shell_call, computer_call, shell_call outside a platform container, tool_search_call
 * {execution: client}, and mcp_approval_request (the client answers it). Platform-run: web/file
 * search, code interpreter, image generation, mcp_call, mcp_list_tools, server tool search, a shell
 * in a platform container. A hosted call's arguments are its input fields (a web search's action
 * without the sources it found).
 */
function callOf(item: Item, r: OpenAIResponse): CallOf | null {
  const id = str(item['id']);
  switch (item.type) {
    case 'function_call':
      return { id: str(item['call_id']), name: str(item['name']), arguments: parsedArguments(str(item['arguments'])), hosted: false };
    case 'custom_tool_call':
      return { id: str(item['call_id']), name: str(item['name']), arguments: parsedArguments(str(item['input'])), hosted: false };
    case 'apply_patch_call':
      return { id: str(item['call_id']), name: 'apply_patch', arguments: (item['operation'] ?? {}) as Json, hosted: false };
    case 'local_shell_call':
      return { id: str(item['call_id']), name: 'local_shell', arguments: (item['action'] ?? {}) as Json, hosted: false };
    case 'computer_call':
      return { id: str(item['call_id']), name: 'computer', arguments: (item['action'] ?? {}) as Json, hosted: false };
    case 'shell_call': {
      const env = (item['environment'] as Item | null | undefined)?.type;
      const hosted = env === 'container_reference' || (env !== 'local' && hostedShellTool(r));
      return { id: str(item['call_id']), name: 'shell', arguments: (item['action'] ?? {}) as Json, hosted };
    }
    case 'mcp_approval_request':
      return { id, name: 'mcp_approval_request', arguments: only(item, ['server_label', 'name', 'arguments']), hosted: false };
    case 'tool_search_call':
      return { id: str(item['call_id']) || id, name: 'tool_search', arguments: (item['arguments'] ?? {}) as Json, hosted: item['execution'] === 'server' };
    case 'mcp_call':
      return { id, name: str(item['name']), arguments: parsedArguments(str(item['arguments'])), hosted: true };
    case 'mcp_list_tools':
      return { id, name: 'mcp_list_tools', arguments: only(item, ['server_label']), hosted: true };
    case 'web_search_call': {
      const { sources: _sources, ...input } = (item['action'] ?? {}) as Record<string, Json>;
      return { id, name: 'web_search', arguments: input, hosted: true };
    }
    case 'file_search_call':
      return { id, name: 'file_search', arguments: only(item, ['queries']), hosted: true };
    case 'code_interpreter_call':
      return { id, name: 'code_interpreter', arguments: only(item, ['code']), hosted: true };
    case 'image_generation_call':
      return { id, name: 'image_generation', arguments: only(item, ['revised_prompt']), hosted: true };
    default:
      return null;
  }
}

const IMAGE_MIME: Record<string, string> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

/** The result field of the hosted items that carry their result themselves. */
const RESULT_FIELD: Record<string, string> = { web_search_call: 'action', file_search_call: 'results', code_interpreter_call: 'outputs', mcp_call: 'output', mcp_list_tools: 'tools' };

/**
 * The result blocks that follow a hosted call's item: the item's result field or its error; an
 * image generation's item without its base64, then the image as a file block.
 */
function resultsOf(item: Item, call: CallOf): ContentBlock[] {
  const error = item['error'];
  const failed = item['status'] === 'failed' || (error !== undefined && error !== null);
  const block = (result: Json): ContentBlock => ({ type: 'tool_result', id: call.id, name: call.name, result, ...(failed ? { isError: true as const } : {}) });
  if (item.type === 'image_generation_call') {
    const { id: _id, type: _type, result, ...rest } = item;
    const out = [block(rest as Json)];
    if (typeof result === 'string' && result !== '') out.push({ type: 'file', mimeType: IMAGE_MIME[str(item['output_format'])] ?? 'image/png', data: result, id: call.id });
    return out;
  }
  const field = RESULT_FIELD[item.type ?? ''];
  if (error !== undefined && error !== null) return [block(error as Json)];
  // a code interpreter's result: where the code ran and what it printed
  if (item.type === 'code_interpreter_call') return [block({ container_id: (item['container_id'] ?? null) as Json, outputs: (item['outputs'] ?? null) as Json })];
  if (field !== undefined && item[field] !== undefined) return [block(item[field] as Json)];
  return failed ? [block(null)] : [];
}

/** The output items that carry a hosted call's result apart from it, with the field holding it. */
const RESULT_ITEMS: Record<string, string> = { shell_call_output: 'output', tool_search_output: 'tools', program_output: 'result' };

/**
 * Our content blocks for the SDK's output items, in order: a reasoning item is
 * one block per summary part / reasoning_text part (its encrypted_content on the
 * last one, or a text-less block of its own when there is no text); a message is
 * one block per output_text / refusal part; a call is a tool_call block
 * (`providerExecuted` when the platform runs it, followed by its results: see
 * resultsOf); an output item holding a hosted call's result is a tool_result of
 * that call. Empty parts are no block: nothing was streamed for them.
 */
function contentOf(r: OpenAIResponse, signatures: Map<string, string>): ContentBlock[] {
  const out: ContentBlock[] = [];
  const calls = new Map<string, CallOf>();
  /** Server tool searches without a result yet (a tool_search_output with call_id null answers the oldest). */
  const searches: CallOf[] = [];
  for (const item of items(r)) {
    if (item.type === 'reasoning') {
      const parts = [...((item['summary'] as Part[] | undefined) ?? []), ...((item['content'] as Part[] | undefined) ?? [])];
      const blocks: ContentBlock[] = [];
      for (const p of parts) if (str(p.text) !== '') blocks.push({ type: 'reasoning', text: str(p.text) });
      const signature = signatureOf(item, signatures);
      if (signature !== '') {
        if (blocks.length === 0) blocks.push({ type: 'reasoning', text: '', signature });
        else (blocks[blocks.length - 1] as { signature?: string }).signature = signature;
      }
      out.push(...blocks);
    } else if (item.type === 'message') {
      for (const p of (item['content'] as Part[] | undefined) ?? []) {
        if (p.type === 'output_text' && str(p.text) !== '') out.push({ type: 'text', text: str(p.text) });
        else if (p.type === 'refusal' && str(p.refusal) !== '') out.push({ type: 'refusal', text: str(p.refusal) });
      }
    } else if (item.type !== undefined && RESULT_ITEMS[item.type] !== undefined) {
      const callId = item['call_id'];
      const call = typeof callId === 'string' ? calls.get(callId) : item.type === 'tool_search_output' ? searches.shift() : undefined;
      if (call?.hosted === true) {
        out.push({ type: 'tool_result', id: call.id, name: call.name, result: (item[RESULT_ITEMS[item.type]!] ?? null) as Json, ...(item['status'] === 'failed' ? { isError: true as const } : {}) });
      }
    } else {
      const call = callOf(item, r);
      if (call === null) continue;
      calls.set(call.id, call);
      if (call.hosted && item.type === 'tool_search_call') searches.push(call);
      out.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments, ...(call.hosted ? { providerExecuted: true as const } : {}) });
      if (call.hosted) out.push(...resultsOf(item, call));
    }
  }
  return out;
}

/** The snapshot's text annotations as our citations: the message's output index, URL or file, offsets as given. */
function citationsOf(r: OpenAIResponse): FinalCitation[] {
  const out: FinalCitation[] = [];
  items(r).forEach((item, index) => {
    if (item.type !== 'message') return;
    for (const part of (item['content'] as Item[] | undefined) ?? []) {
      for (const a of (part['annotations'] as Item[] | undefined) ?? []) {
        const file = a.type === 'file_citation' || a.type === 'container_file_citation' || a.type === 'file_path';
        const source = file ? str(a['file_id']) || str(a['filename']) : '';
        if (typeof a['url'] !== 'string' && source === '') continue;
        const c: FinalCitation = { index };
        if (typeof a['url'] === 'string') c.url = a['url'];
        const title = typeof a['title'] === 'string' ? a['title'] : typeof a['filename'] === 'string' ? a['filename'] : undefined;
        if (title !== undefined) c.title = title;
        if (source !== '') c.source = source;
        if (typeof a['start_index'] === 'number') c.start = a['start_index'];
        if (typeof a['end_index'] === 'number') c.end = a['end_index'];
        out.push(c);
      }
    }
  });
  return out;
}

/**
 * A reasoning item's encrypted_content as streamed in its `response.output_item.done`.
 * The terminal snapshot can carry a different token for the same item: these are
 * Fernet tokens (`gAAAAAB…` = version byte + timestamp + IV) and the server
 * encrypts again when it serializes the completed response, so the timestamps
 * differ by the seconds between the two events (pydantic-ai code-interpreter and
 * mcp-call captures). Both decrypt to the same state and either can be echoed
 * back; we keep the first one streamed (the item's own event), so that is the
 * expected value, and the snapshot's own token only when no item event carried one.
 */
function signatureOf(item: Item, streamed: Map<string, string>): string {
  return streamed.get(str(item['id'])) ?? str(item['encrypted_content']);
}

/** encrypted_content of every reasoning item in the `response.output_item.done` events the SDK parsed, by item id. */
function streamedSignatures(events: ResponseStreamEvent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'response.output_item.done' || e.item.type !== 'reasoning') continue;
    const sig = e.item.encrypted_content;
    if (typeof sig === 'string' && sig !== '') out.set(e.item.id, sig);
  }
  return out;
}

function usageOf(r: OpenAIResponse): Usage {
  const u = r.usage;
  if (u === null || u === undefined) return NO_USAGE;
  return {
    inputTokens: u.input_tokens,
    // Output tokens include the reasoning tokens; cached tokens are part of the input.
    outputTokens: u.output_tokens,
    totalTokens: u.total_tokens,
    reasoningTokens: u.output_tokens_details?.reasoning_tokens ?? null,
    cachedInputTokens: u.input_tokens_details?.cached_tokens ?? null,
  };
}

/** status → StopReason: completed is tool_use when a client-side call was made; incomplete by its reason. */
function stopOf(r: OpenAIResponse): { stopReason: StopReason; providerReason: string | null } {
  switch (r.status) {
    case 'completed': {
      const called = items(r).some((i) => callOf(i, r)?.hosted === false);
      return { stopReason: called ? 'tool_use' : 'end', providerReason: 'completed' };
    }
    case 'incomplete': {
      const why = r.incomplete_details?.reason ?? null;
      return { stopReason: why === 'max_output_tokens' ? 'max_tokens' : why === 'content_filter' ? 'refusal' : 'other', providerReason: why ?? 'incomplete' };
    }
    case 'failed':
      return { stopReason: 'error', providerReason: 'failed' };
    default:
      return { stopReason: 'other', providerReason: r.status ?? null };
  }
}

/** Our final against one SDK Response, field by field. */
function compare(tt: Test, name: string, ours: FinalResult, r: OpenAIResponse, events: ResponseStreamEvent[]): void {
  const streamed = streamedSignatures(events);
  const content = contentOf(r, streamed);
  tt.equal(ours.id, r.id, 'id');
  tt.equal(ours.model, r.model, 'model');
  tt.strictSame(ours.content, content, 'content blocks');
  const texts = content.filter((b) => b.type === 'text').map((b) => b.text);
  const refusals = content.filter((b) => b.type === 'refusal').map((b) => b.text);
  tt.equal(ours.text, texts.join(''), 'text');
  tt.equal(ours.refusal, refusals.length === 0 ? null : refusals.join(''), 'refusal');
  tt.equal(ours.reasoning, content.filter((b) => b.type === 'reasoning').map((b) => b.text).join(''), 'reasoning');
  tt.strictSame(
    ours.toolCalls,
    content.flatMap((b) => (b.type === 'tool_call' && b.providerExecuted !== true ? [{ id: b.id, name: b.name, arguments: b.arguments }] : [])),
    'tool calls: the client-run items only',
  );
  tt.strictSame(ours.citations, citationsOf(r), 'citations: the text annotations');
  tt.strictSame(
    ours.signatures.map((s) => s.signature),
    items(r).flatMap((i) => (i.type === 'reasoning' && signatureOf(i, streamed) !== '' ? [signatureOf(i, streamed)] : [])),
    'encrypted_content signatures',
  );
  tt.strictSame(ours.usage, usageOf(r), 'usage');
  const stop = stopOf(r);
  tt.equal(ours.stopReason, stop.stopReason, 'stop reason');
  tt.equal(ours.providerReason, stop.providerReason, 'provider reason');
}

/** The Response carried by every terminal event the SDK parsed. */
function terminalSnapshots(events: ResponseStreamEvent[]): OpenAIResponse[] {
  const out: OpenAIResponse[] = [];
  for (const e of events) {
    if (e.type === 'response.completed' || e.type === 'response.incomplete' || e.type === 'response.failed') out.push(e.response);
  }
  return out;
}

// ---- where the SDK throws, and why ----

interface SdkFailure {
  error: RegExp;
  /**
   * `error`: a failed response, we must report an error too;
   * `complete`: a complete response the accumulator rejects, compared with the terminal snapshot instead.
   */
  ours: 'error' | 'complete';
}

const SDK_FAILS: Record<string, SdkFailure> = {
  'openai-responses/mirascope--http400-error.body': { error: /^400\b/, ours: 'error' },
  // `error` event (insufficient_quota) then response.failed: the SDK throws an APIError at the `error` event.
  'openai-responses/vercel-ai--error-insufficient-quota.sse': { error: /exceeded your current quota/, ours: 'error' },
  // The documented `{type: 'error', code, message}` event has no `error` key, so the SSE layer lets it
  // through; the stream then re-emits it under the name `error`, which is its own failure channel:
  // finalResponse() rejects with the event object itself (not an Error).
  'fixtures/openai-responses/error-then-failed.sse': { error: /^\{"type":"error","code":"server_error"/, ours: 'error' },
  // A background stream resumed with starting_after begins at response.queued: the accumulator insists on
  // response.created first. The stream is complete (it ends in response.completed), and so is our final.
  'openai-responses/pydantic-ai--background-resume-starting-after.sse': {
    error: /expected 'response\.created' event, got response\.queued/,
    ours: 'complete',
  },
  // This SDK version does not know `response.apply_patch_call_operation_diff.delta` and throws on it
  // (assertNever in its accumulator). The stream is complete; apply_patch_call is a client call.
  'openai-responses/vercel-ai--apply-patch.sse': { error: /Unhandled response stream event/, ours: 'complete' },
};

// `output_text` is the SDK's own text helper: it computes it from the message parts only when the
// snapshot has none. OpenRouter's response.completed carries `"output_text": ""` while its message
// says "4", so the SDK's output_text is empty there; our text comes from the streamed parts.
const SERVER_OUTPUT_TEXT = new Set(['openai-responses/pydantic-ai--compat-openrouter-data-only.sse']);

// We check sequence_number continuity, the SDK does not: a gap or a repeat is a non-terminal
// error in our final, while the content is the same.
const EXPECTED_ERRORS: Record<string, { code: string; message: string }[]> = {
  'fixtures/openai-responses/sequence-gap.sse': [
    { code: 'sequence_gap', message: 'sequence_number 5 after 3: 1 event(s) missing' },
    { code: 'sequence_gap', message: 'sequence_number 6 after 7: out of order or repeated' },
  ],
};

t.test('every openai-responses input: our final matches finalResponse()', async (t) => {
  t.ok(inputs.length >= 28, `${inputs.length} inputs`);
  for (const input of inputs) {
    await t.test(input.name, async (tt) => {
      const sdk = await openaiResponsesFinal(input.bytes, input.http);
      const { finals, thrown } = await ourFinals(input.bytes, 'openai-responses', input.http);
      bothRan(tt, sdk.requests, thrown);
      const failure = SDK_FAILS[input.name];
      if (sdk.error !== undefined) {
        if (!failedAsDocumented(tt, sdk.error, failure)) return;
        const ours = oneFinal(tt, finals);
        if (failure.ours === 'error') {
          endsInError(tt, ours);
          // What was streamed before the failure is kept.
          const streamed = sdk.events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
          tt.equal(ours.text, streamed.join(''), 'the text streamed before the failure');
          return;
        }
        const plain = await openaiResponsesEvents(input.bytes, input.http);
        tt.equal(plain.error, undefined, "the SDK's plain event stream reads it");
        const snapshot = terminalSnapshots(plain.events).at(-1);
        tt.ok(snapshot, 'it ends in a terminal snapshot');
        tt.strictSame(ours.errors, [], 'no errors');
        if (snapshot !== undefined) compare(tt, input.name, ours, snapshot, plain.events);
        return;
      }
      tt.notOk(failure, 'the SDK did not fail');
      // A log can hold several responses: finalResponse() is the last one, we give one final each.
      const snapshots = terminalSnapshots(sdk.events);
      tt.equal(finals.length, snapshots.length, `one final per terminal event (${snapshots.length})`);
      finals.forEach((ours, i) => {
        tt.strictSame(ours.errors, EXPECTED_ERRORS[input.name] ?? [], `response ${i}: errors`);
        const r = i === snapshots.length - 1 ? sdk.value! : snapshots[i];
        if (r !== undefined) compare(tt, input.name, ours, r, sdk.events);
      });
      const last = finals.at(-1);
      if (last !== undefined && SERVER_OUTPUT_TEXT.has(input.name)) {
        tt.equal(sdk.value!.output_text, '', "the SDK's output_text is the server's empty one");
        tt.not(last.text, '', 'while the message has text');
      } else if (last !== undefined) tt.equal(last.text, sdk.value!.output_text, "text equals the SDK's output_text");
    });
  }
});
