/**
 * Anthropic Messages SSE → unified events. The same handler serves xAI's
 * Anthropic-compatible `/v1/messages` (see xai-messages.ts).
 *
 * Skeleton: message_start → (content_block_start → content_block_delta* →
 * content_block_stop)* → message_delta (stop_reason, cumulative usage) →
 * message_stop, with `ping` keep-alives anywhere and `error` mid-stream.
 * `message_start.message.content` may already hold whole blocks (programmatic
 * tool calling: a `tool_use` block, `stop_reason: "tool_use"`, no
 * content_block_* events): they are read as blocks 0..n-1, in order, and the
 * message_start also passes as raw (a block's `caller`, the message's
 * `container` have no unified place).
 *
 * Who runs which tool: `tool_use` blocks are the client's calls; `server_tool_use`
 * (web_search, web_fetch, code_execution, bash_code_execution,
 * text_editor_code_execution, tool_search_tool_*, advisor) and `mcp_tool_use`
 * (MCP connector; the event's name is the tool's name as given, the block's
 * `server_name` stays in the `raw` event of its start) are run by Anthropic:
 * their tool_call_* events carry `providerExecuted`, and each `*_tool_result`
 * block (whole in its content_block_start) is one `tool_result` (id: its
 * `tool_use_id`, result: its `content` as received, isError for an `*_error`
 * content, an `error_code` or `is_error: true`). `done` says `tool_use` only
 * while a client call is pending; `pause_turn` is `other`.
 *
 * Citations (`citations_delta`, or `citations` on a block as it starts) are
 * `citation` events of their text block: web_search_result_location → url,
 * title, citedText; document locations (char_location, page_location,
 * content_block_location) → source (file_id, else `document <document_index>`),
 * title (document_title), citedText; search_result_location → source, title,
 * citedText. A citation covers its whole text block: Anthropic gives no
 * offsets into the response text, so start/end are never set (its
 * start_char_index / start_page_number / start_block_index… count characters,
 * pages or content blocks of the cited document, and stay in `raw`).
 */
import type { CitationEvent, Json, JsonObject, StopReason, UnifiedEvent, Usage, UsageEvent } from '../events.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, str, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

type BlockKind = 'text' | 'thinking' | 'tool' | 'result' | 'other';

interface Block {
  /** Unified index: the provider's block index unless that index was reused (xAI). */
  index: number;
  kind: BlockKind;
  /** Tool blocks only. */
  id: string;
  name: string;
  /** A server_tool_use / mcp_tool_use block: Anthropic runs it (kept here so the fast path's deltas carry it too). */
  providerExecuted: boolean;
  /** input_json_delta fragments, joined once at the block's stop. */
  args: string[];
  /** The `input` object of content_block_start (used only when no delta came). */
  input: JsonObject | undefined;
  open: boolean;
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  max_tokens: 'max_tokens',
  tool_use: 'tool_use',
  refusal: 'refusal',
};

/** A message's stop_reason as a unified stop reason (`pause_turn` and unknown ones: other). */
export function messagesStop(reason: string): StopReason {
  return STOP_REASONS[reason] ?? 'other';
}

/** Block types whose content arrives as input_json_delta and ends as a tool call: the client's, then Anthropic's. */
const CLIENT_TOOL = 'tool_use';
const PROVIDER_TOOLS = new Set(['server_tool_use', 'mcp_tool_use']);

function kindOf(type: string | undefined): BlockKind {
  if (type === 'text') return 'text';
  if (type === 'thinking') return 'thinking';
  if (type === CLIENT_TOOL || (type !== undefined && PROVIDER_TOOLS.has(type))) return 'tool';
  // web_search_tool_result, mcp_tool_result, advisor_tool_result…: the result of a provider-executed call.
  if (type !== undefined && type.endsWith('_tool_result')) return 'result';
  return 'other';
}

/**
 * A Messages response's handler, with the delta mapping that both the parse
 * path (onBlockDelta) and the template path (lib/fast/dialects/anthropic-messages.ts)
 * go through.
 */
export interface MessagesResponse extends ResponseHandler {
  /** The block a delta refers to: starts the response if needed (content before message_start); the block's unified index. */
  blockIndex(providerIndex: number | undefined): number;
  /** A text (reasoning: thinking) delta, not empty, of the block blockIndex gave. */
  textDelta(index: number, reasoning: boolean, text: string): void;
  /** The open tool block an input_json_delta refers to, if any (else the delta is raw). */
  openTool(providerIndex: number | undefined): MessagesBlock | undefined;
  /** An input_json_delta fragment, not empty, of an open tool block: kept for its tool_call_done, and emitted. */
  argsDelta(block: MessagesBlock, part: string): void;
}

export type MessagesBlock = Block;

/**
 * One response's handler. Index remapping is applied for every endpoint, not
 * only xAI: Anthropic never reuses a block index within a message, so there the
 * map is the identity and costs one Map lookup per event, while a single code
 * path keeps both dialects identical (and tolerates proxies with the xAI quirk).
 */
export function createMessagesResponse(ctx: DialectContext): MessagesResponse {
  let startEmitted = false;
  let startUsage: JsonObject | undefined;
  let usageEmitted = false;
  let stopReason: string | null = null;
  let sawMessageDelta = false;
  /** Calls seen: a client call makes `tool_use` a pending request; provider-executed ones do not. */
  let clientCalls = 0;
  let providerCalls = 0;
  /** Call id → tool name, for the name of its result. */
  const names = new Map<string, string>();
  /** provider index → the block most recently started under it. */
  const byProvider = new Map<number, Block>();
  /** Open blocks in start order: an index-less delta belongs to the last one. */
  const open: Block[] = [];
  /** Unified indices in use, and the next never-used integer. */
  const used = new Set<number>();
  let nextIndex = 0;

  const self = {
    emit(ev: UnifiedEvent): void {
      ctx.emit(ev);
    },

    raw(payload: Json): void {
      self.emit({ type: 'raw', event: payload });
    },

    /** Content before message_start (a cut-off head) still opens the response. */
    ensureStarted(): void {
      handler.started = true;
      if (!startEmitted) {
        startEmitted = true;
        self.emit({ type: 'start', id: null, model: null });
      }
    },

    allocate(providerIndex: number | undefined): number {
      let index: number;
      if (providerIndex !== undefined && providerIndex >= 0 && Number.isInteger(providerIndex) && !used.has(providerIndex)) {
        index = providerIndex;
      } else {
        // xAI reuses index 0 for the text block after the thinking block: a fresh index keeps them apart.
        index = nextIndex;
      }
      used.add(index);
      if (index >= nextIndex) nextIndex = index + 1;
      return index;
    },

    /** The block a delta or stop refers to: by provider index; without one (xAI), the most recently started open block. */
    blockFor(providerIndex: number | undefined): Block | undefined {
      return providerIndex !== undefined ? byProvider.get(providerIndex) : open[open.length - 1];
    },

    close(block: Block): void {
      block.open = false;
      const i = open.lastIndexOf(block);
      if (i >= 0) open.splice(i, 1);
    },

    finishTool(block: Block): void {
      let args: string;
      if (block.args.length > 0) args = block.args.length === 1 ? block.args[0]! : block.args.join('');
      else if (block.input !== undefined && hasKeys(block.input)) {
        // The whole input came in content_block_start: one delta holding it all, like other whole-call deliveries.
        args = JSON.stringify(block.input);
        self.emitArgs(block, args);
      } else args = '';
      const { index, id, name } = block;
      self.emit(
        block.providerExecuted
          ? { type: 'tool_call_done', index, id, name, arguments: args, providerExecuted: true }
          : { type: 'tool_call_done', index, id, name, arguments: args },
      );
    },

    emitArgs(block: Block, part: string): void {
      const { index, id } = block;
      self.emit(
        block.providerExecuted
          ? { type: 'tool_call_delta', index, id, argumentsDelta: part, providerExecuted: true }
          : { type: 'tool_call_delta', index, id, argumentsDelta: part },
      );
    },

    onMessageStart(payload: JsonObject): void {
      if (startEmitted) {
        // A second message_start inside one response: nothing to restart here, keep it visible.
        self.raw(payload);
        return;
      }
      handler.started = true;
      startEmitted = true;
      const message = obj(payload['message']);
      startUsage = obj(message?.['usage']);
      // Set when the message starts already stopped (programmatic tool calling); message_delta overrides it.
      stopReason = str(message?.['stop_reason']) ?? null;
      self.emit({ type: 'start', id: str(message?.['id']) ?? null, model: str(message?.['model']) ?? null });
      const content = arr(message?.['content']) ?? [];
      // Whole blocks, with no content_block_* events to follow: each starts and stops here, in order.
      content.forEach((cb, i) => {
        self.startBlock(i, obj(cb));
        const block = byProvider.get(i)!;
        self.close(block);
        if (block.kind === 'tool') self.finishTool(block);
      });
      // What has no unified place stays reachable: blocks without a meaning, a call's caller, the
      // container a code-execution caller needs to continue (in no message_delta when no delta comes).
      if (content.length > 0 || message?.['container'] !== undefined) self.raw(payload);
    },

    onBlockStart(payload: JsonObject): void {
      self.ensureStarted();
      if (!self.startBlock(num(payload['index']), obj(payload['content_block']))) self.raw(payload);
    },

    /**
     * Opens a block and emits what its start carries; false when the payload
     * holding it must also pass as raw (nothing mapped, or fields with no
     * unified place: an MCP call's server_name, the code execution that
     * made a call).
     */
    startBlock(providerIndex: number | undefined, cb: JsonObject | undefined): boolean {
      const type = str(cb?.['type']);
      const kind = kindOf(type);
      const index = self.allocate(providerIndex);
      const block: Block = { index, kind, id: '', name: '', providerExecuted: false, args: [], input: undefined, open: true };
      if (providerIndex !== undefined) byProvider.set(providerIndex, block);
      open.push(block);
      switch (kind) {
        case 'text': {
          const cited = self.citations(index, cb?.['citations']);
          const text = str(cb?.['text']);
          if (text !== undefined && text !== '') self.emit({ type: 'text_delta', index, text });
          else if (!cited) return false;
          return true;
        }
        case 'thinking': {
          const text = str(cb?.['thinking']);
          const signature = str(cb?.['signature']);
          let emitted = false;
          if (text !== undefined && text !== '') {
            self.emit({ type: 'reasoning_delta', index, text });
            emitted = true;
          }
          if (signature !== undefined && signature !== '') {
            self.emit({ type: 'signature', index, signature, kind: 'signature_delta' });
            emitted = true;
          }
          return emitted;
        }
        case 'tool': {
          const id = str(cb?.['id']);
          block.id = id !== undefined && id !== '' ? id : `call_${index}`;
          block.name = str(cb?.['name']) ?? '';
          block.input = obj(cb?.['input']);
          names.set(block.id, block.name);
          // Programmatic tool calling: `caller` names the code execution that made the call ("direct" otherwise).
          const caller = str(obj(cb?.['caller'])?.['type']);
          const plain = caller === undefined || caller === 'direct';
          if (type === CLIENT_TOOL) {
            clientCalls++;
            self.emit({ type: 'tool_call_start', index, id: block.id, name: block.name });
            return plain;
          }
          providerCalls++;
          block.providerExecuted = true;
          self.emit({ type: 'tool_call_start', index, id: block.id, name: block.name, providerExecuted: true });
          // mcp_tool_use: server_name has no unified field; the start's raw event keeps it.
          return plain && type !== 'mcp_tool_use';
        }
        case 'result': {
          const callId = str(cb?.['tool_use_id']);
          if (callId === undefined) return false; // a result of no call: no unified meaning
          const result = cb?.['content'] ?? null;
          self.emit(
            cb?.['is_error'] === true || isErrorContent(result)
              ? { type: 'tool_result', index, id: callId, name: names.get(callId) ?? '', result, isError: true }
              : { type: 'tool_result', index, id: callId, name: names.get(callId) ?? '', result },
          );
          return true;
        }
        case 'other': {
          const data = type === 'redacted_thinking' ? str(cb?.['data']) : undefined;
          if (data === undefined) return false; // compaction, fallback, container_upload…: the whole block is in the payload
          self.emit({ type: 'signature', index, signature: data, kind: 'redacted_thinking' });
          return true;
        }
      }
    },

    /** The citations a text block starts with: citation events; false when there are none. */
    citations(index: number, list: Json | undefined): boolean {
      const items = arr(list);
      if (items === undefined) return false;
      let cited = false;
      for (const c of items) {
        if (!isObject(c)) continue;
        self.emit(citationEvent(index, c));
        cited = true;
      }
      return cited;
    },

    onBlockDelta(payload: JsonObject): void {
      self.ensureStarted();
      const delta = obj(payload['delta']);
      const providerIndex = num(payload['index']);
      switch (str(delta?.['type'])) {
        case 'text_delta': {
          const text = str(delta!['text']);
          if (text !== undefined && text !== '') self.textDelta(self.blockIndex(providerIndex), false, text);
          else self.raw(payload);
          return;
        }
        case 'thinking_delta': {
          // An empty thinking_delta precedes signature_delta: not reasoning text.
          const text = str(delta!['thinking']);
          if (text !== undefined && text !== '') self.textDelta(self.blockIndex(providerIndex), true, text);
          else self.raw(payload);
          return;
        }
        case 'signature_delta': {
          const signature = str(delta!['signature']);
          if (signature !== undefined && signature !== '') self.emit({ type: 'signature', index: self.blockIndex(providerIndex), signature, kind: 'signature_delta' });
          else self.raw(payload);
          return;
        }
        case 'input_json_delta': {
          const part = str(delta!['partial_json']);
          // A fragment after its block stopped (a proxy's replay) is raw: the call's done already went out.
          const block = self.openTool(providerIndex);
          if (block !== undefined && part !== undefined && part !== '') self.argsDelta(block, part);
          else self.raw(payload); // empty fragment (the tool still gets its done at stop) or no tool block
          return;
        }
        case 'citations_delta': {
          const citation = obj(delta!['citation']);
          if (citation !== undefined) self.emit(citationEvent(self.blockIndex(providerIndex), citation));
          else self.raw(payload);
          return;
        }
        default:
          self.raw(payload); // compaction_delta, unknown
      }
    },

    // ---- the delta mapping (see MessagesResponse) ----

    blockIndex(providerIndex: number | undefined): number {
      self.ensureStarted();
      return self.blockFor(providerIndex)?.index ?? providerIndex ?? 0;
    },

    textDelta(index: number, reasoning: boolean, text: string): void {
      self.emit(reasoning ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text });
    },

    openTool(providerIndex: number | undefined): Block | undefined {
      const block = self.blockFor(providerIndex);
      return block !== undefined && block.kind === 'tool' && block.open ? block : undefined;
    },

    argsDelta(block: Block, part: string): void {
      self.ensureStarted();
      block.args.push(part);
      self.emitArgs(block, part);
    },

    onBlockStop(payload: JsonObject): void {
      self.ensureStarted();
      const block = self.blockFor(num(payload['index']));
      if (block === undefined || !block.open) {
        self.raw(payload);
        return;
      }
      self.close(block);
      if (block.kind === 'tool') self.finishTool(block);
      else self.raw(payload);
    },

    onMessageDelta(payload: JsonObject): void {
      self.ensureStarted();
      sawMessageDelta = true;
      const delta = obj(payload['delta']);
      const reason = str(delta?.['stop_reason']);
      if (reason !== undefined) stopReason = reason;
      const usage = obj(payload['usage']);
      if (usage !== undefined) {
        self.emit(buildUsage(startUsage, usage));
        usageEmitted = true;
      }
      // stop_sequence, stop_details, container, context_management live only here.
      self.raw(payload);
    },

    /** Usage owed before done when message_delta carried none. */
    flushUsage(): void {
      if (!usageEmitted && startUsage !== undefined) {
        self.emit(buildUsage(startUsage, undefined));
        usageEmitted = true;
      }
    },

    finish(): void {
      // A tool block that never stopped (max_tokens mid-input) still ends, with its incomplete text.
      for (const block of open.splice(0)) {
        block.open = false;
        if (block.kind === 'tool') self.finishTool(block);
      }
      self.flushUsage();
      const reason = stopReason;
      let mapped: StopReason = reason === null ? 'other' : (STOP_REASONS[reason] ?? 'other');
      // tool_use asks the client to run its calls: with none pending, the provider ran them all (end) or sent none (other).
      if (mapped === 'tool_use' && clientCalls === 0) mapped = providerCalls > 0 ? 'end' : 'other';
      self.emit(doneEvent(mapped, reason));
    },

    onError(payload: JsonObject): void {
      const error = obj(payload['error']);
      const code = str(error?.['type']) ?? str(error?.['code']) ?? 'provider_error';
      const message = str(error?.['message']) ?? code;
      self.flushUsage(); // the prompt was billed even though the message failed
      self.emit(errorEvent(code, message, true, payload));
      self.emit(doneEvent('error', null));
    },

  };

  const handler = {
    onPayload(payload) {
      const p = obj(payload);
      if (p === undefined) {
        self.raw(payload);
        return;
      }
      switch (p['type']) {
        case 'content_block_delta':
          self.onBlockDelta(p);
          return;
        case 'content_block_start':
          self.onBlockStart(p);
          return;
        case 'content_block_stop':
          self.onBlockStop(p);
          return;
        case 'message_start':
          self.onMessageStart(p);
          return;
        case 'message_delta':
          self.onMessageDelta(p);
          return;
        case 'message_stop':
          self.ensureStarted();
          self.finish();
          return;
        case 'error':
          self.onError(p);
          return;
        default:
          self.raw(p); // ping, keep-alives, unknown types
      }
    },
    blockIndex: self.blockIndex,
    textDelta: self.textDelta,
    openTool: self.openTool,
    argsDelta: self.argsDelta,
    onDoneSentinel() {
      // Anthropic sends no [DONE]; a proxy that appends one after message_delta has said how it ended.
      if (sawMessageDelta) self.finish();
      else self.emit({ type: 'raw', event: '[DONE]' });
    },
    onIncomplete() {
      // Owed before the normalizer's incomplete_stream: tool calls whose arguments are whole JSON, usage so far.
      for (const block of open.splice(0)) {
        block.open = false;
        if (block.kind === 'tool' && argumentsComplete(block)) self.finishTool(block);
      }
      self.flushUsage();
    },
    // a data field, not a getter: an accessor would put the handler in dictionary mode (see normalizer.ts)
    started: false as boolean,
  } satisfies MessagesResponse;
  return handler;
}

/** A server tool's error result: `{type: "web_search_tool_result_error", error_code}` and the like. */
function isErrorContent(content: Json): boolean {
  if (!isObject(content)) return false;
  const type = content['type'];
  return (typeof type === 'string' && type.endsWith('_error')) || 'error_code' in content;
}

/** One citation object (of citations_delta or a block's citations) as a citation event of text block `index`. */
function citationEvent(index: number, c: JsonObject): CitationEvent {
  const ev: CitationEvent = { type: 'citation', index, raw: c };
  const url = str(c['url']);
  if (url !== undefined) ev.url = url;
  const title = str(c['title']) ?? str(c['document_title']);
  if (title !== undefined) ev.title = title;
  // search_result_location names its source; document locations their file or request document.
  const documentIndex = num(c['document_index']);
  const source = str(c['source']) ?? str(c['file_id']) ?? (documentIndex !== undefined ? `document ${documentIndex}` : undefined);
  if (source !== undefined) ev.source = source;
  const cited = str(c['cited_text']);
  if (cited !== undefined && cited !== '') ev.citedText = cited;
  return ev;
}

function hasKeys(o: JsonObject): boolean {
  for (const _ in o) return true;
  return false;
}

/** True when a cut-off tool block's text is a whole JSON value (checked once, at end of input only). */
function argumentsComplete(block: Block): boolean {
  if (block.args.length === 0) return block.input !== undefined && hasKeys(block.input);
  try {
    JSON.parse(block.args.join(''));
    return true;
  } catch {
    return false;
  }
}

/** A usage field: message_delta's (cumulative) when present, else message_start's. */
function pick(delta: JsonObject | undefined, start: JsonObject | undefined, key: string): number | undefined {
  return num(delta?.[key]) ?? num(start?.[key]);
}

/**
 * message_start usage merged with message_delta usage: fields present in the
 * delta (cumulative) win, absent ones keep the message_start value.
 */
export function buildUsage(start: JsonObject | undefined, delta: JsonObject | undefined): UsageEvent {
  const raw: Json = delta === undefined ? (start ?? null) : start === undefined ? delta : { ...start, ...delta };
  return usageEvent(messagesUsage(start, delta), raw);
}

/** The unified counts of buildUsage (input: every prompt token, cache reads and writes included). */
export function messagesUsage(start: JsonObject | undefined, delta: JsonObject | undefined): Usage {
  const input = pick(delta, start, 'input_tokens');
  const cacheRead = pick(delta, start, 'cache_read_input_tokens');
  const cacheCreation = pick(delta, start, 'cache_creation_input_tokens');
  const output = pick(delta, start, 'output_tokens');
  const details = obj(delta?.['output_tokens_details']) ?? obj(start?.['output_tokens_details']);
  // The documented field is reasoning_tokens; current streams send thinking_tokens.
  const reasoning = num(details?.['reasoning_tokens']) ?? num(details?.['thinking_tokens']);
  const inputTokens =
    input === undefined && cacheRead === undefined && cacheCreation === undefined
      ? null
      : (input ?? 0) + (cacheRead ?? 0) + (cacheCreation ?? 0);
  const outputTokens = output ?? null;
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null,
    reasoningTokens: reasoning ?? null,
    cachedInputTokens: cacheRead ?? null,
  };
}

/** The Messages event types but `ping` (a bare keep-alive tells nothing: xAI Realtime sends one too). */
const MESSAGES_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
]);

/** A Messages event other than `ping`. */
export function isMessagesEvent(payload: JsonObject): boolean {
  const type = payload['type'];
  return typeof type === 'string' && MESSAGES_EVENTS.has(type);
}

export const anthropicMessages = defineDialect({
  name: 'anthropic-messages',
  family: 'messages',
  // Every Messages event: xai-messages, before it in the registry, has taken a grok model's message_start.
  detect: isMessagesEvent,
  createResponse: createMessagesResponse,
});
