/**
 * OpenAI Responses API SSE → unified events. The same handler serves xAI's
 * Responses endpoint (see xai-responses.ts); the only behavioural difference is
 * passed in as an option.
 *
 * Skeleton: response.created → response.in_progress → (output_item.added →
 * item events → output_item.done)* → response.completed | incomplete | failed,
 * or an `error` event (usually followed by response.failed). Every payload
 * carries `sequence_number` (the resume cursor); there is no `[DONE]`.
 */
import type {
  Json,
  JsonObject,
  StopReason,
  TextDeltaEvent,
  UnifiedEvent,
} from '../events.js';
import { arr, doneEvent, errorEvent, num, obj, str, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

export interface ResponsesDialectOptions {
  /**
   * True when `custom_tool_call` items are run by the server (xAI's x_search
   * tools appear as such items): they still go through the tool_call path,
   * but do not make a completed response end in `tool_use`.
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
  /** An arguments fragment, not empty, of a call not done: kept, and emitted. */
  argsDelta(call: ResponsesCall, delta: string): void;
}

/** Output items that go through the tool_call start/delta/done path. */
type CallKind = 'function' | 'custom' | 'mcp' | 'item';

export interface ResponsesCall {
  /** output_index of the item. */
  index: number;
  /** call_id (function/custom), item id (mcp), or `call_<index>`. */
  id: string;
  name: string;
  kind: CallKind;
  /** Streamed argument fragments (joined only when no authoritative value comes). */
  parts: string[];
  done: boolean;
}

function callKind(itemType: string | undefined): CallKind | undefined {
  switch (itemType) {
    case 'function_call':
      return 'function';
    case 'custom_tool_call':
      return 'custom';
    case 'mcp_call':
      return 'mcp';
    // Built-in tools the CLIENT executes (it answers with `<type>_output`): whole calls whose
    // arguments are the item's `operation` / `action` object, complete at output_item.done.
    case 'apply_patch_call':
    case 'shell_call':
    case 'local_shell_call':
    case 'computer_call':
      return 'item';
    default:
      return undefined;
  }
}

/** Where a call item keeps its arguments text: custom tools take free-form `input`. */
function argumentsOf(item: JsonObject | undefined, kind: CallKind): string | undefined {
  if (kind === 'item') {
    const value = item?.['operation'] ?? item?.['action'];
    return value === undefined ? undefined : JSON.stringify(value);
  }
  return str(item?.[kind === 'custom' ? 'input' : 'arguments']);
}

/** The tool name of a call item: built-in client tools are named after their item type. */
function nameOf(item: JsonObject, kind: CallKind): string {
  if (kind === 'item') return (str(item['type']) ?? '').replace(/_call$/, '');
  return str(item['name']) ?? '';
}

function joined(parts: string[]): string {
  return parts.length === 1 ? parts[0]! : parts.join('');
}

/** `{type:'error', code, message}` (documented) or `{type:'error', error:{type, code, message}}` (observed). */
function readError(p: JsonObject): { code: string; message: string } {
  const inner = obj(p['error']);
  const code =
    str(inner?.['code']) ?? str(inner?.['type']) ?? str(p['code']) ?? 'provider_error';
  const message = str(inner?.['message']) ?? str(p['message']) ?? code;
  return { code, message };
}

/** A Responses dialect's `createResponse`: a new handler per response, with `options`. */
export function responsesHandlers(options: ResponsesDialectOptions): (ctx: DialectContext) => ResponsesResponse {
  const hostedCustom = options.hostedCustomToolCalls;
  /** Calls the caller must answer (so a completed response ends in tool_use). */
  const isClientKind = (kind: CallKind): boolean => kind === 'function' || kind === 'item' || (kind === 'custom' && !hostedCustom);

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
    /** A function call (or client-side custom tool call) was seen: completed → tool_use. */
    let clientCall = false;
    const callsById = new Map<string, ResponsesCall>();
    const callsByIndex = new Map<number, ResponsesCall>();

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
        self.out({ type: 'start', id: responseId, model: str(response?.['model']) ?? null });
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

      findCall(itemId: string | undefined, index: number | undefined): ResponsesCall | undefined {
        return (itemId === undefined ? undefined : callsById.get(itemId)) ?? (index === undefined ? undefined : callsByIndex.get(index));
      },

      /** Registers a call and emits its tool_call_start. */
      openCall(itemId: string | undefined, index: number, kind: CallKind, callId: string | undefined, name: string): ResponsesCall {
        const id = callId !== undefined && callId !== '' ? callId : `call_${index}`;
        const call: ResponsesCall = { index, id, name, kind, parts: [], done: false };
        if (itemId !== undefined) callsById.set(itemId, call);
        callsByIndex.set(index, call);
        if (isClientKind(kind)) clientCall = true;
        self.out({ type: 'tool_call_start', index, id, name });
        return call;
      },

      openCallFromItem(item: JsonObject, index: number, kind: CallKind): ResponsesCall {
        // mcp_call items have no call_id: their item id is what identifies them.
        const callId = kind === 'mcp' ? str(item['id']) : str(item['call_id']);
        return self.openCall(str(item['id']), index, kind, callId, nameOf(item, kind));
      },

      /** A delta or done for an item whose output_item.added was not seen (a resumed stream). */
      openOrphan(p: JsonObject, kind: CallKind): ResponsesCall {
        const index = num(p['output_index']) ?? 0;
        return self.openCall(str(p['item_id']), index, kind, kind === 'mcp' ? str(p['item_id']) : undefined, str(p['name']) ?? '');
      },

      // (see ResponsesResponse)
      argsDelta(call: ResponsesCall, delta: string): void {
        call.parts.push(delta);
        self.out({ type: 'tool_call_delta', index: call.index, id: call.id, argumentsDelta: delta });
      },

      /** Emits tool_call_done; a call whose arguments were never streamed first gets one delta holding them all. */
      finishCall(call: ResponsesCall, args: string | undefined): void {
        const text = args ?? joined(call.parts);
        if (call.parts.length === 0 && text !== '') self.argsDelta(call, text);
        call.done = true;
        self.out({ type: 'tool_call_done', index: call.index, id: call.id, name: call.name, arguments: text });
      },

      onItemAdded(p: JsonObject): void {
        const item = obj(p['item']);
        const kind = callKind(str(item?.['type']));
        if (item === undefined || kind === undefined) {
          self.raw(p); // messages, reasoning, hosted tools (web/file search, code interpreter, image generation, mcp listing…)
          return;
        }
        const call = self.openCallFromItem(item, num(p['output_index']) ?? 0, kind);
        // Some endpoints deliver the whole call in the added item (built-in tools' items are
        // still partial here: their arguments come whole at output_item.done).
        const initial = kind === 'item' ? undefined : argumentsOf(item, kind);
        if (initial !== undefined && initial !== '') self.argsDelta(call, initial);
      },

      onToolDelta(p: JsonObject, kind: CallKind): void {
        const call = self.findCall(str(p['item_id']), num(p['output_index'])) ?? self.openOrphan(p, kind);
        const delta = str(p['delta']);
        if (call.done || delta === undefined || delta === '') self.raw(p);
        else self.argsDelta(call, delta);
      },

      onToolDone(p: JsonObject, kind: CallKind): void {
        const call = self.findCall(str(p['item_id']), num(p['output_index'])) ?? self.openOrphan(p, kind);
        if (call.done) {
          self.raw(p);
          return;
        }
        if (call.name === '') call.name = str(p['name']) ?? '';
        // The done value is authoritative (custom tools: free-form `input` text).
        self.finishCall(call, str(p[kind === 'custom' ? 'input' : 'arguments']));
      },

      onItemDone(p: JsonObject): void {
        const item = obj(p['item']);
        const type = str(item?.['type']);
        const index = num(p['output_index']) ?? 0;
        if (type === 'reasoning') {
          const signature = str(item!['encrypted_content']);
          if (signature !== undefined && signature !== '') self.out({ type: 'signature', index, signature, kind: 'encrypted_content' });
        } else {
          const kind = callKind(type);
          if (item !== undefined && kind !== undefined) {
            const call = self.findCall(str(item['id']), index) ?? self.openCallFromItem(item, index, kind);
            if (call.name === '') call.name = nameOf(item, kind);
            if (!call.done) self.finishCall(call, argumentsOf(item, kind));
          }
        }
        // The item itself (id, status, summary, mcp output…) stays available.
        self.raw(p);
      },

      /** Calls still open at a terminal event end with what was streamed, else the final output item's value. */
      finishOpenCalls(output: Json[] | undefined): void {
        for (const call of callsByIndex.values()) {
          if (call.done) continue;
          let args: string | undefined;
          if (call.parts.length === 0 && output !== undefined) {
            const item = obj(output[call.index]);
            if (item !== undefined && callKind(str(item['type'])) === call.kind) args = argumentsOf(item, call.kind);
          }
          self.finishCall(call, args);
        }
      },

      outputHasClientCall(output: Json[] | undefined): boolean {
        if (output === undefined) return false;
        for (const entry of output) {
          const kind = callKind(str(obj(entry)?.['type']));
          if (kind !== undefined && isClientKind(kind)) return true;
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
            // created/queued/in_progress snapshots, content_part.*, *.done texts (they repeat the
            // streamed text), annotations, hosted-tool progress, image partials, unknown types.
            self.raw(p);
        }
      },
    };

    const handler = {
      sequence: self.sequence,
      textDelta: self.textDelta,
      findCall: self.findCall,
      argsDelta: self.argsDelta,
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
  createResponse: responsesHandlers({ hostedCustomToolCalls: false }),
});
