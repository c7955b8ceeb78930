/**
 * OpenAI Responses API SSE → unified events. The same handler serves xAI's
 * Responses endpoint (see xai-responses.ts); the only behavioural difference is
 * passed in as an option.
 *
 * Skeleton: response.created → response.in_progress → (output_item.added →
 * item events → output_item.done)* → response.completed | incomplete | failed,
 * or an `error` event (usually followed by response.failed). Every payload
 * carries `sequence_number` (the resume cursor); there is no `[DONE]`.
 *
 * Calls. Every call item goes through tool_call_start (at output_item.added) /
 * tool_call_delta / tool_call_done; the item types the platform runs itself
 * (see `classify`) carry `providerExecuted` and their outcome becomes a
 * `tool_result` (at the item's output_item.done, or at the separate output
 * item that holds it: `shell_call_output`, `tool_search_output`,
 * `program_output`). A response whose only calls were provider-executed ends
 * `end`, not `tool_use`. Progress events (`…in_progress`, `…searching`,
 * `…interpreting`, `…completed`) stay raw.
 *
 * Files. `response.image_generation_call.partial_image` → a partial `file`;
 * the completed image (`image_generation_call.result`) → a `file` with the
 * call's id, and the call's `tool_result` holds the item without its base64
 * `result` (so the image is in the final once). MIME type: from
 * `output_format`, else from the base64's magic bytes, else `image/png` (the
 * documented default format).
 *
 * Citations. `response.output_text.annotation.added` → `citation` with the
 * text's output index (the index of its text_delta events); annotations on an
 * `output_text` at content_part.done / output_item.done / in the terminal
 * snapshot only when annotation.added did not announce them (keyed by output
 * index, content index and annotation index). `start`/`end` are the
 * provider's `start_index`/`end_index` as received, not converted: OpenAI
 * does not say its unit; in every capture they equal both the code-point and
 * the UTF-16 offsets (no astral character precedes a citation), and they
 * differ only after an astral character (emoji). `file_citation` /
 * `file_path` carry an `index` documented as a list position, so no offsets.
 * xAI's response-level `citations` (every source it read) are citations of
 * the last message's text, for URLs not already cited inline.
 */
import type {
  CitationEvent,
  FileEvent,
  Json,
  JsonObject,
  SteerEvent,
  StopReason,
  TextDeltaEvent,
  ToolCallDeltaEvent,
  ToolCallDoneEvent,
  ToolCallStartEvent,
  ToolResultEvent,
  UnifiedEvent,
} from '../events.js';
import { arr, doneEvent, errorEvent, num, obj, str, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';
import { responsesLanes } from './responses-lanes.js';

export interface ResponsesDialectOptions {
  /**
   * True when `custom_tool_call` items are run by the server unless the
   * response declares a client tool of that name: xAI streams its x_search /
   * web_search sub-tools (x_keyword_search, view_x_video, browse_page…) as
   * such items, which then continue into text within the same response.
   */
  readonly hostedCustomToolCalls: boolean;
}

/**
 * A Responses response's handler, with the delta mapping that both the parse
 * path (dispatch) and the template path (lib/fast/dialects/openai-responses.ts)
 * go through.
 */
export interface ResponsesResponse extends ResponseHandler {
  /** The payload being handled has this sequence_number: stamped on its events as their cursor, checked for gaps. */
  sequence(seq: number | undefined): void;
  /** A text, refusal or reasoning delta, not empty, of output item `index` (contentIndex: its content or summary index). */
  textDelta(reasoning: boolean, index: number, contentIndex: number | undefined, text: string, refusal: boolean): void;
  /** The call an arguments delta refers to (by item id, else output index), if seen; a done one takes no more deltas. */
  findCall(itemId: string | undefined, index: number | undefined): ResponsesCall | undefined;
  /** An arguments fragment, not empty, of a call not done: kept, and emitted (providerExecuted when the call is). */
  argsDelta(call: ResponsesCall, delta: string): void;
  /** A code interpreter call's code fragment, not empty, of a call not done: emitted JSON-escaped inside its arguments text. */
  codeDelta(call: ResponsesCall, code: string): void;
}

/**
 * How a call item's arguments arrive: `function` (function_call_arguments
 * deltas, `arguments`), `custom` (custom_tool_call_input deltas, free-form
 * `input`), `mcp` (mcp_call_arguments deltas, `arguments`), `code`
 * (code_interpreter_call_code deltas of raw code, wrapped into a JSON text),
 * `item` (whole at output_item.done, built from the item's input fields).
 */
type CallKind = 'function' | 'custom' | 'mcp' | 'code' | 'item';

export interface ResponsesCall {
  /** output_index of the item. */
  index: number;
  /** call_id (function/custom/shell/tool search/program), else the item id, else `call_<index>`. */
  id: string;
  name: string;
  kind: CallKind;
  /** The output item's type. */
  type: string;
  /** The platform runs it (providerExecuted on its events; its outcome is a tool_result). */
  hosted: boolean;
  /** code_interpreter_call: its container, the first key of the built arguments. */
  container: string | undefined;
  /** Streamed argument fragments (joined only when no authoritative value comes). */
  parts: string[];
  done: boolean;
  /** Its tool_result was emitted. */
  resulted: boolean;
}

interface Classified {
  kind: CallKind;
  hosted: boolean;
  name: string;
}

/** What the response declares (its `tools`), the only wire evidence of where an ambiguous call runs. */
interface DeclaredTools {
  /** Names of the client's function and custom tools. */
  clientNames: Set<string>;
  /** A `shell` tool runs in a container the platform manages (container_auto / container_reference). */
  hostedShell: boolean;
}

/** The item's result field, for hosted items that carry their result themselves. */
const RESULT_FIELD = new Map([
  ['web_search_call', 'action'],
  ['file_search_call', 'results'],
  ['code_interpreter_call', 'outputs'],
  ['mcp_call', 'output'],
  ['mcp_list_tools', 'tools'],
]);

/** Call items whose side and name the type alone tells (inputs whole at output_item.done). Maps: wire strings are no keys of a plain object. */
const ITEM_CALLS = new Map<string, Classified>([
  ['file_search_call', { kind: 'item', hosted: true, name: 'file_search' }],
  ['image_generation_call', { kind: 'item', hosted: true, name: 'image_generation' }],
  ['mcp_list_tools', { kind: 'item', hosted: true, name: 'mcp_list_tools' }],
  ['program', { kind: 'item', hosted: true, name: 'program' }],
  ['local_shell_call', { kind: 'item', hosted: false, name: 'local_shell' }],
  ['computer_call', { kind: 'item', hosted: false, name: 'computer' }],
  ['apply_patch_call', { kind: 'item', hosted: false, name: 'apply_patch' }],
  ['mcp_approval_request', { kind: 'item', hosted: false, name: 'mcp_approval_request' }],
]);

/** Server-side call items of xAI's agent tools other than web_search_call (named like vercel/ai's xAI provider reads them). */
const XAI_HOSTED_ITEMS = new Set(['x_search_call', 'code_execution_call', 'view_image_call', 'view_x_video_call']);

/** output_format → MIME type. */
const IMAGE_MIME = new Map([
  ['png', 'image/png'],
  ['jpeg', 'image/jpeg'],
  ['jpg', 'image/jpeg'],
  ['webp', 'image/webp'],
  ['gif', 'image/gif'],
]);

/** An image's MIME type: from its output_format, else its base64's magic bytes, else PNG (the documented default). */
function imageMime(format: string | undefined, b64: string): string {
  const byFormat = format === undefined ? undefined : IMAGE_MIME.get(format.toLowerCase());
  if (byFormat !== undefined) return byFormat;
  if (b64.startsWith('/9j/')) return 'image/jpeg';
  if (b64.startsWith('UklGR')) return 'image/webp';
  if (b64.startsWith('R0lGOD')) return 'image/gif';
  return 'image/png';
}

function joined(parts: string[]): string {
  return parts.length === 1 ? parts[0]! : parts.join('');
}

/** A string's JSON escape without the quotes (fragments escaped apart join into the whole's escape). */
function escaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The start of a code interpreter call's arguments text, `{"code":"`: built from the code alone, so
 * that a parser that joins the stream mid-way (a resumed connection, which never saw the item's
 * `output_item.added`) builds the same text; the container is in the call's result.
 */
function codePrefix(_container?: string): string {
  return '{"code":"';
}

/** The object of `item`'s fields named in `keys` that it has (not undefined), as JSON text. */
function fields(item: JsonObject, keys: readonly string[]): string {
  const out: JsonObject = {};
  for (const k of keys) if (item[k] !== undefined) out[k] = item[k]!;
  return JSON.stringify(out);
}

/** The arguments text of a call item of kind `item`, from its input fields (undefined when a client item has none yet). */
function itemArguments(item: JsonObject): string | undefined {
  const type = str(item['type']);
  switch (type) {
    case 'web_search_call': {
      // xAI gives the model's `arguments`; OpenAI an `action` whose `sources` are the search's outcome.
      const args = str(item['arguments']);
      if (args !== undefined && args !== '') return args;
      const action = obj(item['action']);
      if (action === undefined) return '{}';
      const input: JsonObject = {};
      for (const k in action) if (k !== 'sources') input[k] = action[k]!;
      return JSON.stringify(input);
    }
    case 'file_search_call':
      return fields(item, ['queries']);
    case 'image_generation_call':
      return fields(item, ['prompt', 'revised_prompt']);
    case 'mcp_list_tools':
      return fields(item, ['server_label']);
    case 'mcp_approval_request':
      return fields(item, ['server_label', 'name', 'arguments']);
    case 'program':
      return fields(item, ['code']);
    case 'tool_search_call':
      return JSON.stringify(item['arguments'] ?? {});
    case 'apply_patch_call':
    case 'shell_call':
    case 'local_shell_call':
    case 'computer_call': {
      const value = item['operation'] ?? item['action'];
      return value === undefined ? undefined : JSON.stringify(value);
    }
    default:
      // xAI's other server-side items (`name` + `arguments`), and any hosted item without input fields
      return str(item['arguments']) ?? str(item['input']) ?? '{}';
  }
}

/** Where a call item keeps its arguments text. */
function argumentsOf(item: JsonObject | undefined, kind: CallKind): string | undefined {
  if (item === undefined) return undefined;
  switch (kind) {
    case 'function':
    case 'mcp':
      return str(item['arguments']);
    case 'custom':
      return str(item['input']);
    case 'code':
      return codePrefix(str(item['container_id'])) + escaped(str(item['code']) ?? '') + '"}';
    case 'item':
      return itemArguments(item);
  }
}

/** The text of a steer's or inject's `input`: a string, or its messages' text parts (joined by newlines). */
function inputText(input: Json | undefined): string | undefined {
  if (typeof input === 'string') return input;
  const texts: string[] = [];
  for (const entry of arr(input) ?? []) {
    const item = obj(entry);
    const content = item?.['content'];
    if (typeof content === 'string') texts.push(content);
    for (const part of arr(content) ?? []) {
      const text = str(obj(part)?.['text']);
      if (text !== undefined) texts.push(text);
    }
  }
  return texts.length === 0 ? undefined : texts.join('\n');
}

/** `{type:'error', code, message}` (documented) or `{type:'error', error:{type, code, message}}` (observed). */
function readError(p: JsonObject): { code: string; message: string } {
  const inner = obj(p['error']);
  const code =
    str(inner?.['code']) ?? str(inner?.['type']) ?? str(p['code']) ?? 'provider_error';
  const message = str(inner?.['message']) ?? str(p['message']) ?? code;
  return { code, message };
}

/** A citation event for a text annotation with a URL, or a file one with its file; undefined for others (they stay raw). */
function citationOf(annotation: Json | undefined, index: number): CitationEvent | undefined {
  const a = obj(annotation);
  if (a === undefined) return undefined;
  const type = str(a['type']);
  const url = str(a['url']);
  const fileKind = type === 'file_citation' || type === 'container_file_citation' || type === 'file_path';
  const source = fileKind ? str(a['file_id']) ?? str(a['filename']) : undefined;
  // what cites nothing (no URL, no file) stays raw
  if (url === undefined && source === undefined) return undefined;
  const ev: CitationEvent = { type: 'citation', index, raw: a };
  if (url !== undefined) ev.url = url;
  const title = str(a['title']) ?? str(a['filename']);
  if (title !== undefined) ev.title = title;
  if (source !== undefined) ev.source = source;
  const start = num(a['start_index']);
  const end = num(a['end_index']);
  if (start !== undefined) ev.start = start;
  if (end !== undefined) ev.end = end;
  return ev;
}

/** A Responses dialect's `createResponse`: a new handler per response, with `options`. */
export function responsesHandlers(options: ResponsesDialectOptions): (ctx: DialectContext) => ResponsesResponse {
  const hostedCustom = options.hostedCustomToolCalls;

  function createResponse(ctx: DialectContext): ResponsesResponse {
    let responseId: string | null = null;
    /** sequence_number of the payload being handled: stamped on every event it produces. */
    let cursor: number | undefined;
    /** Highest sequence_number seen (the first one seen is the baseline: resumed streams start anywhere). */
    let lastSeq: number | undefined;
    /**
     * An `error` event was emitted. Its `done` is deferred: OpenAI follows it
     * with `response.failed` for the same response, and emitting `done` at the
     * error would make the normalizer open a second response for that
     * response.failed. So `done {error}` comes at response.failed (or any
     * other terminal event), at a `[DONE]`, at a new response.created, or from
     * onIncomplete when the input ends right after the error.
     */
    let errorSeen = false;
    /** A call the client must answer was seen: completed → tool_use. */
    let clientCall = false;
    /** The response's declared tools, once a snapshot listed them. */
    let declared: DeclaredTools | undefined;
    const callsById = new Map<string, ResponsesCall>();
    const callsByIndex = new Map<number, ResponsesCall>();
    /** Calls by their `id` (call_id), for the output items that carry their results. */
    const callsByCallId = new Map<string, ResponsesCall>();
    /** Annotations already given as citations: `output/content/annotation` indexes. */
    const announced = new Set<string>();
    /** How many annotations each text part announced (for an annotation.added without annotation_index). */
    const announcedPerPart = new Map<string, number>();
    /** URLs already cited in this response (xAI's response-level list repeats the inline ones). */
    const citedUrls = new Set<string>();

    const self = {
      out(ev: UnifiedEvent): void {
        if (cursor !== undefined) ev.cursor = cursor;
        ctx.emit(ev);
      },

      raw(payload: Json): void {
        self.out({ type: 'raw', event: payload });
      },

      begin(p: JsonObject): void {
        handler.started = true;
        const response = obj(p['response']);
        responseId = str(response?.['id']) ?? null;
        self.learnTools(response);
        self.out({ type: 'start', id: responseId, model: str(response?.['model']) ?? null });
      },

      /** Reads the client tools and the shell tool's environment from a response snapshot's `tools`. */
      learnTools(response: JsonObject | undefined): void {
        const tools = arr(response?.['tools']);
        if (tools === undefined) return;
        const found: DeclaredTools = { clientNames: new Set(), hostedShell: false };
        for (const entry of tools) {
          const tool = obj(entry);
          const type = str(tool?.['type']);
          const name = str(tool?.['name']);
          if ((type === 'function' || type === 'custom') && name !== undefined) found.clientNames.add(name);
          if (type === 'shell') {
            const env = str(obj(tool?.['environment'])?.['type']);
            if (env === 'container_auto' || env === 'container_reference') found.hostedShell = true;
          }
        }
        declared = found;
      },

      checkSequence(seq: number): void {
        const last = lastSeq;
        if (last === undefined) {
          lastSeq = seq;
          return;
        }
        if (seq !== last + 1) {
          const message =
            seq <= last
              ? `sequence_number ${seq} after ${last}: out of order or repeated`
              : `sequence_number ${seq} after ${last}: ${seq - last - 1} event(s) missing`;
          self.out(errorEvent('sequence_gap', message, false));
        }
        if (seq > last) lastSeq = seq;
      },

      // --- deltas -----------------------------------------------------------

      onText(p: JsonObject, refusal: boolean): void {
        const text = str(p['delta']);
        if (text === undefined || text === '') self.raw(p);
        else self.textDelta(false, num(p['output_index']) ?? 0, num(p['content_index']), text, refusal);
      },

      onReasoning(p: JsonObject, positionKey: 'summary_index' | 'content_index'): void {
        const text = str(p['delta']);
        if (text === undefined || text === '') self.raw(p);
        else self.textDelta(true, num(p['output_index']) ?? 0, num(p[positionKey]), text, false);
      },

      // (see ResponsesResponse)
      sequence(seq: number | undefined): void {
        cursor = seq;
        if (seq !== undefined) self.checkSequence(seq);
      },

      textDelta(reasoning: boolean, index: number, contentIndex: number | undefined, text: string, refusal: boolean): void {
        const type = reasoning ? 'reasoning_delta' : 'text_delta';
        const ev: UnifiedEvent = contentIndex === undefined ? { type, index, text } : { type, index, contentIndex, text };
        if (refusal) (ev as TextDeltaEvent).refusal = true;
        self.out(ev);
      },

      // --- tool calls -------------------------------------------------------

      /** A custom tool call runs on the server (xAI) unless the response declares a client tool of that name. */
      customHosted(name: string): boolean {
        return hostedCustom && !(declared?.clientNames.has(name) ?? false);
      },

      /**
       * The call an output item is, and which side runs it; undefined for
       * items that are no call (messages, reasoning, result items, unknown
       * types: raw). mcp_approval_request is a CLIENT call: the response
       * waits for the client's approve/deny (an `mcp_approval_response`
       * keyed by this item's id), so it is in toolCalls, named after the
       * item type (never after the MCP tool, which the client must not run).
       */
      classify(item: JsonObject): Classified | undefined {
        const type = str(item['type']);
        switch (type) {
          case 'function_call':
            return { kind: 'function', hosted: false, name: str(item['name']) ?? '' };
          case 'custom_tool_call': {
            const name = str(item['name']) ?? '';
            return { kind: 'custom', hosted: self.customHosted(name), name };
          }
          case 'mcp_call':
            return { kind: 'mcp', hosted: true, name: str(item['name']) ?? '' };
          case 'code_interpreter_call':
            return { kind: 'code', hosted: true, name: 'code_interpreter' };
          case 'web_search_call':
            return { kind: 'item', hosted: true, name: str(item['name']) ?? 'web_search' };
          case 'tool_search_call':
            return { kind: 'item', hosted: str(item['execution']) === 'server', name: 'tool_search' };
          case 'shell_call': {
            const env = str(obj(item['environment'])?.['type']);
            const hosted = env === 'container_reference' || (env !== 'local' && (declared?.hostedShell ?? false));
            return { kind: 'item', hosted, name: 'shell' };
          }
          default:
            if (type === undefined) return undefined;
            if (XAI_HOSTED_ITEMS.has(type)) return { kind: 'item', hosted: true, name: str(item['name']) ?? type.replace(/_call$/, '') };
            return ITEM_CALLS.get(type);
        }
      },

      findCall(itemId: string | undefined, index: number | undefined): ResponsesCall | undefined {
        return (itemId === undefined ? undefined : callsById.get(itemId)) ?? (index === undefined ? undefined : callsByIndex.get(index));
      },

      /** Registers a call and emits its tool_call_start (a code interpreter call's text starts with its prefix). */
      openCall(itemId: string | undefined, index: number, c: Classified, type: string, callId: string | undefined, container?: string): ResponsesCall {
        const id = callId !== undefined && callId !== '' ? callId : `call_${index}`;
        const call: ResponsesCall = { index, id, name: c.name, kind: c.kind, type, hosted: c.hosted, container, parts: [], done: false, resulted: false };
        if (itemId !== undefined) callsById.set(itemId, call);
        callsByIndex.set(index, call);
        callsByCallId.set(id, call);
        if (!c.hosted) clientCall = true;
        const ev: ToolCallStartEvent = { type: 'tool_call_start', index, id, name: c.name };
        if (c.hosted) ev.providerExecuted = true;
        self.out(ev);
        if (c.kind === 'code') self.argsDelta(call, codePrefix(container));
        return call;
      },

      openCallFromItem(item: JsonObject, index: number, c: Classified): ResponsesCall {
        // Items without a call_id (hosted items, mcp_approval_request, xAI's empty call_id) are identified by their item id.
        const callId = str(item['call_id']);
        const byItem = c.hosted || c.name === 'mcp_approval_request';
        const id = callId !== undefined && callId !== '' ? callId : byItem ? str(item['id']) : undefined;
        return self.openCall(str(item['id']), index, c, str(item['type']) ?? '', id, c.kind === 'code' ? str(item['container_id']) : undefined);
      },

      /** A delta or done for an item whose output_item.added was not seen (a resumed stream). */
      openOrphan(p: JsonObject, kind: CallKind): ResponsesCall {
        const index = num(p['output_index']) ?? 0;
        const itemId = str(p['item_id']);
        const name = kind === 'code' ? 'code_interpreter' : str(p['name']) ?? '';
        const hosted = kind === 'mcp' || kind === 'code' || (kind === 'custom' && self.customHosted(name));
        const type = kind === 'function' ? 'function_call' : kind === 'custom' ? 'custom_tool_call' : kind === 'mcp' ? 'mcp_call' : 'code_interpreter_call';
        return self.openCall(itemId, index, { kind, hosted, name }, type, hosted ? itemId : undefined);
      },

      // (see ResponsesResponse)
      argsDelta(call: ResponsesCall, delta: string): void {
        call.parts.push(delta);
        const ev: ToolCallDeltaEvent = { type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: delta };
        if (call.hosted) ev.providerExecuted = true;
        self.out(ev);
      },

      /** Emits tool_call_done with `text` as its arguments. */
      closeCall(call: ResponsesCall, text: string): void {
        call.done = true;
        const ev: ToolCallDoneEvent = { type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: text };
        if (call.hosted) ev.providerExecuted = true;
        self.out(ev);
      },

      /** Emits tool_call_done; a call whose arguments were never streamed first gets one delta holding them all. */
      finishCall(call: ResponsesCall, args: string | undefined): void {
        if (call.kind === 'code') {
          self.finishCode(call, args);
          return;
        }
        // a hosted item that never gave its input fields (cut off) still gets JSON arguments
        const text = args ?? (call.parts.length === 0 && call.kind === 'item' && call.hosted ? '{}' : joined(call.parts));
        if (call.parts.length === 0 && text !== '') self.argsDelta(call, text);
        self.closeCall(call, text);
      },

      /**
       * Closes a code interpreter call's JSON text (`"}`) and emits its done:
       * `args` is the whole text built from the authoritative code when known
       * (only the prefix streamed: the code comes as one delta first).
       */
      finishCode(call: ResponsesCall, args: string | undefined): void {
        const prefix = codePrefix(call.container);
        if (args !== undefined && call.parts.length === 1 && args.startsWith(prefix) && args.length > prefix.length + 2) {
          self.argsDelta(call, args.slice(prefix.length, -2));
        }
        self.argsDelta(call, '"}');
        self.closeCall(call, args ?? joined(call.parts));
      },

      onItemAdded(p: JsonObject): void {
        const item = obj(p['item']);
        const c = item === undefined ? undefined : self.classify(item);
        if (item === undefined || c === undefined) {
          self.raw(p); // messages, reasoning, result items, unknown types
          return;
        }
        const call = self.openCallFromItem(item, num(p['output_index']) ?? 0, c);
        // Some endpoints deliver the whole call in the added item (client built-in items are still
        // partial here: their input fields come whole at output_item.done; xAI's hosted items carry
        // their `arguments` text already).
        let initial: string | undefined;
        if (c.kind === 'code') {
          const code = str(item['code']);
          initial = code === undefined || code === '' ? undefined : escaped(code);
        } else if (c.kind !== 'item') initial = argumentsOf(item, c.kind);
        else if (c.hosted) initial = str(item['arguments']);
        if (initial !== undefined && initial !== '') self.argsDelta(call, initial);
      },

      onToolDelta(p: JsonObject, kind: CallKind): void {
        const call = self.findCall(str(p['item_id']), num(p['output_index'])) ?? self.openOrphan(p, kind);
        const delta = str(p['delta']);
        if (call.done || delta === undefined || delta === '') self.raw(p);
        else if (kind === 'code') self.codeDelta(call, delta);
        else self.argsDelta(call, delta);
      },

      // (see ResponsesResponse)
      codeDelta(call: ResponsesCall, code: string): void {
        self.argsDelta(call, escaped(code));
      },

      onToolDone(p: JsonObject, kind: CallKind): void {
        const call = self.findCall(str(p['item_id']), num(p['output_index'])) ?? self.openOrphan(p, kind);
        if (call.done) {
          self.raw(p);
          return;
        }
        if (call.name === '') call.name = str(p['name']) ?? '';
        // The done value is authoritative (custom tools: free-form `input` text; code: the whole code).
        if (kind === 'code') {
          const code = str(p['code']);
          self.finishCode(call, code === undefined ? undefined : codePrefix(call.container) + escaped(code) + '"}');
        } else self.finishCall(call, str(p[kind === 'custom' ? 'input' : 'arguments']));
      },

      /** A hosted call's outcome, from its completed item: the item's result field, or its error. */
      emitResult(call: ResponsesCall, item: JsonObject, index: number): void {
        if (!call.hosted || call.resulted) return;
        const status = str(item['status']);
        const error = item['error'];
        let isError = status === 'failed' || (error !== undefined && error !== null);
        let result: Json;
        if (call.type === 'image_generation_call') {
          // The image is the `file` block (same id): the result is the rest of the item, so the base64 is in the final once.
          const rest: JsonObject = {};
          for (const k in item) if (k !== 'id' && k !== 'type' && k !== 'result') rest[k] = item[k]!;
          result = rest;
          const data = str(item['result']);
          if (data === undefined || data === '') isError ||= status !== 'completed';
          self.result(call, index, result, isError);
          if (data !== undefined && data !== '') {
            const file: FileEvent = { type: 'file', index, id: call.id, mimeType: imageMime(str(item['output_format']), data), data };
            self.out(file);
          }
          return;
        }
        const field = RESULT_FIELD.get(call.type);
        if (error !== undefined && error !== null) result = error;
        else if (call.type === 'code_interpreter_call') {
          // where the code ran (its files are fetched from the container) and what it printed
          result = { container_id: item['container_id'] ?? null, outputs: item['outputs'] ?? null };
        } else if (field !== undefined && item[field] !== undefined) result = item[field]!;
        else if (isError) result = null;
        else return; // the item carries no result (xAI's search sub-tools; results that come in their own item)
        self.result(call, index, result, isError);
      },

      result(call: ResponsesCall, index: number, result: Json, isError: boolean): void {
        call.resulted = true;
        const ev: ToolResultEvent = { type: 'tool_result', index, id: call.id, name: call.name, result };
        if (isError) ev.isError = true;
        self.out(ev);
      },

      /** Output items that hold a hosted call's result apart from the call: shell_call_output, tool_search_output, program_output. */
      onResultItem(item: JsonObject, index: number): void {
        const type = str(item['type']);
        const callId = str(item['call_id']);
        let call = callId === undefined ? undefined : callsByCallId.get(callId);
        let field: string;
        if (type === 'shell_call_output') field = 'output';
        else if (type === 'program_output') field = 'result';
        else if (type === 'tool_search_output') {
          field = 'tools';
          // A server-run tool search may have no call_id: its output follows the oldest one without a result.
          if (call === undefined && callId === undefined) {
            for (const c of callsByIndex.values()) if (c.type === 'tool_search_call' && c.hosted && !c.resulted) { call = c; break; }
          }
        } else return;
        if (call === undefined || !call.hosted || call.resulted) return;
        self.result(call, index, item[field] ?? null, str(item['status']) === 'failed');
      },

      // --- citations --------------------------------------------------------

      cite(ev: CitationEvent | undefined, key: string): void {
        announced.add(key);
        if (ev === undefined) return;
        if (ev.url !== undefined) citedUrls.add(ev.url);
        self.out(ev);
      },

      onAnnotation(p: JsonObject): void {
        const index = num(p['output_index']) ?? 0;
        const part = `${index}/${num(p['content_index']) ?? 0}`;
        const seen = announcedPerPart.get(part) ?? 0;
        const key = `${part}/${num(p['annotation_index']) ?? seen}`;
        const ev = citationOf(p['annotation'], index);
        if (ev === undefined || announced.has(key)) {
          self.raw(p);
          return;
        }
        announcedPerPart.set(part, seen + 1);
        self.cite(ev, key);
      },

      /** Citations for the annotations of a content part that annotation.added did not announce. */
      citeParts(parts: Json[] | undefined, index: number, firstContentIndex: number): void {
        if (parts === undefined) return;
        for (let c = 0; c < parts.length; c++) {
          const annotations = arr(obj(parts[c])?.['annotations']);
          if (annotations === undefined) continue;
          for (let i = 0; i < annotations.length; i++) {
            const key = `${index}/${firstContentIndex + c}/${i}`;
            if (!announced.has(key)) self.cite(citationOf(annotations[i], index), key);
          }
        }
      },

      onPartDone(p: JsonObject): void {
        const part = p['part'];
        if (part !== undefined) self.citeParts([part], num(p['output_index']) ?? 0, num(p['content_index']) ?? 0);
        self.raw(p);
      },

      /** Terminal snapshot: annotations never announced, then xAI's response-level `citations` (of the last message). */
      citeOutput(response: JsonObject | undefined, output: Json[] | undefined): void {
        let lastMessage = -1;
        if (output !== undefined) {
          for (let k = 0; k < output.length; k++) {
            const item = obj(output[k]);
            if (str(item?.['type']) !== 'message') continue;
            lastMessage = k;
            self.citeParts(arr(item!['content']), k, 0);
          }
        }
        const list = arr(response?.['citations']);
        if (list === undefined) return;
        const index = lastMessage < 0 ? 0 : lastMessage;
        for (const entry of list) {
          const url = str(entry) ?? str(obj(entry)?.['url']);
          if (url === undefined || citedUrls.has(url)) continue;
          citedUrls.add(url);
          const ev: CitationEvent = { type: 'citation', index, url, raw: entry };
          const title = str(obj(entry)?.['title']);
          if (title !== undefined) ev.title = title;
          self.out(ev);
        }
      },

      onPartialImage(p: JsonObject): void {
        const data = str(p['partial_image_b64']);
        if (data === undefined || data === '') {
          self.raw(p);
          return;
        }
        const ev: FileEvent = { type: 'file', index: num(p['output_index']) ?? 0, mimeType: imageMime(str(p['output_format']), data), data, partial: true };
        const id = str(p['item_id']);
        if (id !== undefined) {
          const call = callsById.get(id);
          ev.id = call?.id ?? id;
        }
        self.out(ev);
      },

      onItemDone(p: JsonObject): void {
        const item = obj(p['item']);
        const type = str(item?.['type']);
        const index = num(p['output_index']) ?? 0;
        if (item === undefined) {
          // nothing to read
        } else if (type === 'reasoning') {
          const signature = str(item['encrypted_content']);
          if (signature !== undefined && signature !== '') self.out({ type: 'signature', index, signature, kind: 'encrypted_content' });
        } else if (type === 'message') {
          self.citeParts(arr(item['content']), index, 0);
        } else {
          const c = self.classify(item);
          if (c !== undefined) {
            const call = self.findCall(str(item['id']), index) ?? self.openCallFromItem(item, index, c);
            if (call.name === '') call.name = c.name;
            if (!call.done) self.finishCall(call, argumentsOf(item, call.kind));
            self.emitResult(call, item, index);
          } else self.onResultItem(item, index);
        }
        // The item itself (id, status, summary, mcp output…) stays available.
        self.raw(p);
      },

      /** Calls still open at a terminal event end with what was streamed, else the final output item's value (and its result). */
      finishOpenCalls(output: Json[] | undefined): void {
        for (const call of callsByIndex.values()) {
          if (call.done) continue;
          const item = output === undefined ? undefined : obj(output[call.index]);
          const same = item !== undefined && str(item['type']) === call.type;
          let args: string | undefined;
          if (same && (call.parts.length === 0 || call.kind === 'code')) args = argumentsOf(item, call.kind);
          self.finishCall(call, args);
          if (same) self.emitResult(call, item, call.index);
        }
      },

      outputHasClientCall(output: Json[] | undefined): boolean {
        if (output === undefined) return false;
        for (const entry of output) {
          const item = obj(entry);
          const c = item === undefined ? undefined : self.classify(item);
          if (c !== undefined && !c.hosted) return true;
        }
        return false;
      },

      // --- lifecycle and terminals -------------------------------------------

      emitUsage(response: JsonObject | undefined): void {
        const u = obj(response?.['usage']);
        if (u === undefined) return;
        const input = num(u['input_tokens']);
        const output = num(u['output_tokens']);
        const total = num(u['total_tokens']);
        self.out(
          usageEvent(
            {
              inputTokens: input ?? null,
              // Both OpenAI and xAI count reasoning inside output_tokens.
              outputTokens: output ?? null,
              totalTokens: total ?? (input !== undefined && output !== undefined ? input + output : null),
              reasoningTokens: num(obj(u['output_tokens_details'])?.['reasoning_tokens']) ?? null,
              cachedInputTokens: num(obj(u['input_tokens_details'])?.['cached_tokens']) ?? null,
            },
            u,
          ),
        );
      },

      /** completed / incomplete / failed / cancelled: the snapshot as raw, usage, then done. */
      onTerminal(p: JsonObject, type: string): void {
        const response = obj(p['response']);
        const output = arr(response?.['output']);
        const status = str(response?.['status']);
        self.raw(p); // the final Response object (output, moderation, annotations…)
        self.finishOpenCalls(output);
        self.citeOutput(response, output);
        let stop: StopReason;
        let reason: string | null;
        switch (type) {
          case 'response.completed':
            stop = clientCall || self.outputHasClientCall(output) ? 'tool_use' : 'end';
            reason = status ?? 'completed';
            break;
          case 'response.incomplete': {
            const why = str(obj(response?.['incomplete_details'])?.['reason']);
            stop = why === 'max_output_tokens' ? 'max_tokens' : why === 'content_filter' ? 'refusal' : 'other';
            reason = why ?? status ?? 'incomplete';
            break;
          }
          case 'response.failed': {
            stop = 'error';
            reason = status ?? 'failed';
            if (!errorSeen) {
              // Not after an `error` event: that one already reported this failure.
              const error = obj(response?.['error']);
              const { code, message } = error === undefined ? { code: 'provider_error', message: 'response failed' } : readError({ error });
              self.out(errorEvent(code, message, true, error ?? p));
            }
            break;
          }
          default: // response.cancelled
            stop = 'other';
            reason = status ?? 'cancelled';
        }
        self.emitUsage(response);
        // After a terminal `error` event the response ended in error, whatever the later status says.
        self.out(doneEvent(errorSeen ? 'error' : stop, reason));
      },

      /**
       * WebSocket mode: the answer to a `response.steer` / `response.inject`
       * (accepted, pending, failed; inject `created` is accepted), with the
       * input sent when the capture holds it; a failure is also a
       * non-terminal error. Never opens a response (see onPayload).
       */
      onSteer(p: JsonObject, type: string): void {
        const kind = type.startsWith('response.steer.') ? 'steer' : 'inject';
        const what = type.slice(kind === 'steer' ? 'response.steer.'.length : 'response.inject.'.length);
        const status = what === 'created' ? 'accepted' : what;
        if (status !== 'accepted' && status !== 'pending' && status !== 'failed') {
          self.raw(p);
          return;
        }
        const steer = obj(p['steer']);
        const ev: SteerEvent = {
          type: 'steer',
          kind,
          status,
          id: str(steer?.['id']) ?? null,
          responseId: str(steer?.['previous_response_id']) ?? str(p['response_id']) ?? null,
          raw: p,
        };
        const input = steer?.['input'] ?? p['input'] ?? ctx.router?.sent?.(p)?.['input'];
        if (input !== undefined) {
          ev.input = input;
          const text = inputText(input);
          if (text !== undefined) ev.text = text;
        }
        const reason = str(p['reason']);
        if (reason !== undefined) ev.reason = reason;
        if (p['required_input'] !== undefined) ev.requiredInput = p['required_input'];
        self.out(ev);
        if (status === 'failed') {
          const error = obj(p['error']);
          const { code, message } = error === undefined ? { code: 'provider_error', message: `${kind} failed` } : readError(p);
          self.out(errorEvent(code, message, false, error ?? p));
        }
      },

      onError(p: JsonObject): void {
        const { code, message } = readError(p);
        self.out(errorEvent(code, message, true, p));
        errorSeen = true; // done deferred: see errorSeen
      },

      /** Calls cut off at end of input are owed a done only when their text is already whole JSON. */
      finishParseableCalls(): void {
        for (const call of callsByIndex.values()) {
          if (call.done || call.parts.length === 0) continue;
          try {
            JSON.parse(joined(call.parts));
          } catch {
            continue;
          }
          self.finishCall(call, undefined);
        }
      },

      /** A new response.created arrived while this response had no terminal event yet: close it. */
      cutOff(): void {
        const seq = cursor;
        cursor = undefined; // these events belong to the old response, not to the new payload
        self.finishParseableCalls();
        if (!errorSeen) self.out(errorEvent('incomplete_stream', 'a new response began before this response\'s terminal event', true));
        self.out(doneEvent('error', null));
        cursor = seq;
      },

      dispatch(p: JsonObject, type: string): void {
        // Hot types first: a string switch compares in order.
        switch (type) {
          case 'response.output_text.delta':
            self.onText(p, false);
            return;
          case 'response.function_call_arguments.delta':
            self.onToolDelta(p, 'function');
            return;
          case 'response.reasoning_summary_text.delta':
            self.onReasoning(p, 'summary_index');
            return;
          case 'response.reasoning_text.delta':
            self.onReasoning(p, 'content_index');
            return;
          case 'response.custom_tool_call_input.delta':
            self.onToolDelta(p, 'custom');
            return;
          case 'response.mcp_call_arguments.delta':
            self.onToolDelta(p, 'mcp');
            return;
          case 'response.refusal.delta':
            self.onText(p, true);
            return;
          case 'response.output_item.added':
            self.onItemAdded(p);
            return;
          case 'response.output_item.done':
            self.onItemDone(p);
            return;
          case 'response.function_call_arguments.done':
            self.onToolDone(p, 'function');
            return;
          case 'response.custom_tool_call_input.done':
            self.onToolDone(p, 'custom');
            return;
          case 'response.mcp_call_arguments.done':
            self.onToolDone(p, 'mcp');
            return;
          case 'response.code_interpreter_call_code.delta':
            self.onToolDelta(p, 'code');
            return;
          case 'response.code_interpreter_call_code.done':
            self.onToolDone(p, 'code');
            return;
          case 'response.output_text.annotation.added':
            self.onAnnotation(p);
            return;
          case 'response.content_part.done':
            self.onPartDone(p);
            return;
          case 'response.image_generation_call.partial_image':
            self.onPartialImage(p);
            return;
          case 'response.created':
          case 'response.in_progress':
          case 'response.queued':
            // snapshots: the declared tools tell where ambiguous calls run
            self.learnTools(obj(p['response']));
            self.raw(p);
            return;
          case 'response.completed':
          case 'response.incomplete':
          case 'response.failed':
          case 'response.cancelled':
            self.onTerminal(p, type);
            return;
          case 'error':
            self.onError(p);
            return;
          default:
            // content_part.added, *.done texts (they repeat the streamed text), hosted-tool
            // progress (in_progress, searching, interpreting, generating, completed), unknown types.
            self.raw(p);
        }
      },
    };

    const handler = {
      sequence: self.sequence,
      textDelta: self.textDelta,
      findCall: self.findCall,
      argsDelta: self.argsDelta,
      codeDelta: self.codeDelta,
      onPayload(payload) {
        const p = obj(payload);
        if (p === undefined) {
          cursor = undefined;
          self.raw(payload);
          return;
        }
        const type = str(p['type']) ?? '';
        const seq = num(p['sequence_number']);
        cursor = seq;
        if (type.startsWith('response.steer.') || type.startsWith('response.inject.')) {
          // An answer to the client's added input: part of the open response if any, never the start of one.
          if (handler.started && seq !== undefined) self.checkSequence(seq);
          self.onSteer(p, type);
          return;
        }
        if (!handler.started) {
          if (type === '' && obj(p['error']) !== undefined) {
            // A plain JSON error body (HTTP 4xx) when the dialect was forced: no response began.
            const { code, message } = readError(p);
            self.out(errorEvent(code, message, true, p));
            self.out(doneEvent('error', null));
            return;
          }
          // Any first payload opens the response: a resumed stream starts at response.queued
          // (or anywhere), with whatever id/model it carries.
          self.begin(p);
          if (seq !== undefined) lastSeq = seq;
        } else {
          if (type === 'response.created') {
            const id = str(obj(p['response'])?.['id']);
            if (id === undefined || id !== responseId) {
              // response.created always opens a response: the previous one was cut off.
              self.cutOff();
              self.raw(p);
              return;
            }
          }
          if (seq !== undefined) self.checkSequence(seq);
        }
        self.dispatch(p, type);
      },
      onDoneSentinel() {
        cursor = undefined;
        // Responses streams have no [DONE]; after an `error` it marks the end of the failed response.
        if (errorSeen) self.out(doneEvent('error', null));
        else self.raw('[DONE]');
      },
      onIncomplete() {
        cursor = undefined;
        self.finishParseableCalls();
        // The stream ended right after an `error` event: that error was terminal, so close here
        // (and the normalizer adds no incomplete_stream error).
        if (errorSeen) self.out(doneEvent('error', null));
      },
      // a data field, not a getter: an accessor would put the handler in dictionary mode (see normalizer.ts)
      started: false as boolean,
    } satisfies ResponsesResponse;
    return handler;
  }

  return createResponse;
}

/** A Responses API event (`response.…`); those of the Realtime API are taken by the realtime dialects, listed before. */
export function isResponsesEvent(payload: JsonObject): boolean {
  const type = payload['type'];
  return typeof type === 'string' && type.startsWith('response.');
}

export const openaiResponses = defineDialect({
  name: 'openai-responses',
  family: 'responses',
  // Every Responses event: xai-responses, before it in the registry, has taken a grok model's.
  detect: isResponsesEvent,
  lanes: responsesLanes,
  createResponse: responsesHandlers({ hostedCustomToolCalls: false }),
});
