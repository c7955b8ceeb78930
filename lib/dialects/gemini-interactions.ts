/**
 * Gemini Interactions API SSE (`event:` + `data:` with `event_type`, ending
 * with `interaction.completed` then `event: done` / `data: [DONE]`).
 * Positions are the provider's step `index`; `event_id` (the resume token)
 * becomes `cursor` on every event a payload produces.
 *
 * Server-run tool steps (`google_search_call`, `code_execution_call`,
 * `url_context_call`, `google_maps_call`, `file_search_call`,
 * `mcp_server_tool_call`, `retrieval_call`) are provider-executed calls
 * named after the step type without `_call` (an MCP call: its tool `name`);
 * their arguments come whole in the step or its deltas and go out at
 * step.stop. The matching `*_result` steps are `tool_result` events (id:
 * `call_id`, result: the `result` as received, several deltas' arrays joined;
 * isError from `is_error`), at their step.stop.
 *
 * Text annotations (`text_annotation_delta`: `url_citation`, `file_citation`,
 * `place_citation`) are citation events of their step, emitted at its
 * step.stop, once each; `start_index`/`end_index` are UTF-8 bytes of the
 * step's text, turned into UTF-16 offsets. Image deltas are `file` events,
 * audio deltas `audio_delta`.
 *
 * An agent's run (`interaction.agent`: `deep-research-*`,
 * `antigravity-*`) is an agent session of one turn: a `session` `start`
 * (the interaction id, the agent as model) before the response, `session`
 * on every event, and after its done a `session` `end` (completed →
 * end_turn, requires_action with the function calls' ids, failed,
 * cancelled, budget_exceeded → budget_reached) carrying the interaction's
 * usage. Its steps (thought, the search and fetch calls and results,
 * model_output) are read as any interaction's.
 */
import type { CitationEvent, Json, JsonObject, SessionEvent, SessionStop, StopReason, UnifiedEvent, Usage } from '../events.js';
import { arr, doneEvent, errorEvent, isObject, num, obj, providerError, str, sum, usageEvent } from './helpers.js';
import { TextLedger } from './text-offsets.js';
import { sessionStart } from './agent-scope.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

/** Step types of the tools the server runs, and the name of their calls. */
const SERVER_CALLS: Record<string, string> = {
  code_execution_call: 'code_execution',
  google_search_call: 'google_search',
  url_context_call: 'url_context',
  google_maps_call: 'google_maps',
  file_search_call: 'file_search',
  mcp_server_tool_call: 'mcp_server_tool',
  retrieval_call: 'retrieval',
};
const SERVER_RESULTS: Record<string, string> = {
  code_execution_result: 'code_execution',
  google_search_result: 'google_search',
  url_context_result: 'url_context',
  google_maps_result: 'google_maps',
  file_search_result: 'file_search',
  mcp_server_tool_result: 'mcp_server_tool',
  retrieval_result: 'retrieval',
};

function stopReasonOf(status: string | undefined): StopReason {
  switch (status) {
    case 'completed':
      return 'end';
    case 'requires_action':
      return 'tool_use';
    case 'incomplete':
    case 'budget_exceeded': // halted by the token budget: output cut short like max_tokens
      return 'max_tokens';
    case 'failed':
      return 'error';
    default:
      return 'other';
  }
}

/** interaction.usage → unified usage. Output and tool-use counts exclude thoughts and are separate from input, as in generateContent. */
export function interactionsUsage(u: JsonObject): Usage {
  const thoughts = num(u['total_thought_tokens']);
  const inputTokens = sum(num(u['total_input_tokens']), num(u['total_tool_use_tokens']));
  const outputTokens = sum(num(u['total_output_tokens']), thoughts);
  return {
    inputTokens,
    outputTokens,
    totalTokens: num(u['total_tokens']) ?? sum(inputTokens, outputTokens),
    reasoningTokens: thoughts ?? null,
    cachedInputTokens: num(u['total_cached_tokens']) ?? null,
  };
}

/**
 * An Interactions response's handler, with the delta mapping that both the
 * parse path (stepDelta) and the template path
 * (lib/fast/dialects/gemini-interactions.ts) go through.
 */
export interface InteractionsResponse extends ResponseHandler {
  /** The payload being handled has this event_id: the cursor of its events. */
  at(cursor: string | number | undefined): void;
  /** A text (reasoning: thought summary) delta, not empty, of step `index`. */
  textDelta(index: number, reasoning: boolean, text: string): void;
  /** The function call step `index` began, if any (else its arguments are raw). */
  openCall(index: number): InteractionsCall | undefined;
  /** An arguments fragment, not empty, of the call of step `index`: kept for its tool_call_done, and emitted. */
  argsDelta(index: number, call: InteractionsCall, text: string): void;
  /**
   * A text delta of step `index` that the fast path gave straight to a fused
   * final accumulator: kept (decoded, or its wire bytes when `raw`) for the
   * offsets of the step's citations, as textDelta keeps the ones it emits.
   */
  keepText(index: number, text: string, raw: boolean): void;
}

export interface InteractionsCall {
  id: string;
  name: string;
  deltas: string[];
  /** `step.arguments` from step.start (or a server call's step.delta), used when no arguments_delta comes. */
  initial: Json | undefined;
  /** A server-run tool step (see SERVER_CALLS). */
  providerExecuted: boolean;
}

/** A server tool's result step, gathered until its step.stop. */
interface ResultStep {
  callId: string | undefined;
  name: string;
  parts: Json[];
  isError: boolean;
}

/** A step's citation annotation → citation fields; null for an annotation that is no citation (word_info). */
function annotationCitation(a: JsonObject, index: number): CitationEvent | null {
  const ev: CitationEvent = { type: 'citation', index, raw: a };
  let url: string | undefined;
  let title: string | undefined;
  let source: string | undefined;
  switch (a['type']) {
    case 'url_citation':
      url = str(a['url']);
      title = str(a['title']);
      break;
    case 'file_citation':
      url = str(a['document_uri']);
      title = str(a['file_name']);
      if (url === undefined) source = str(a['source']) ?? title;
      break;
    case 'place_citation':
      url = str(a['url']);
      title = str(a['name']);
      if (url === undefined) source = str(a['place_id']);
      break;
    default:
      return null;
  }
  if (url !== undefined) ev.url = url;
  if (title !== undefined) ev.title = title;
  if (source !== undefined) ev.source = source;
  return ev;
}

/** interaction.status → an agent run's stop. */
const RUN_STOPS: Record<string, SessionStop> = {
  completed: 'end_turn',
  requires_action: 'requires_action',
  failed: 'failed',
  cancelled: 'cancelled',
  budget_exceeded: 'budget_reached',
};

/**
 * The end of an agent's run (`interaction.agent`, e.g. `deep-research-*`):
 * the interaction is the session, its one response the turn, and its usage
 * the session's own figure; a run waiting on function results names them.
 */
function agentRunEnd(status: string | undefined, usage: JsonObject | undefined, clientCalls: string[], payload: JsonObject): SessionEvent {
  const ev: SessionEvent = { type: 'session', kind: 'end', stop: RUN_STOPS[status ?? ''] ?? 'other', providerReason: status ?? null, raw: payload };
  if (usage !== undefined) ev.usage = interactionsUsage(usage);
  if (status === 'requires_action') ev.pending = clientCalls.slice();
  return ev;
}

function createInteractionsResponse(ctx: DialectContext): InteractionsResponse {
  /** Interaction id learned before the response began (a resumed stream's status update). */
  let knownId: string | null = null;
  let cursor: string | number | undefined;
  const calls = new Map<number, InteractionsCall>();
  /** Server calls' names by id, for their results. */
  const serverNames = new Map<string, string>();
  const results = new Map<number, ResultStep>();
  /** Each text step's text (for its citations' offsets), its annotations, and those already seen. */
  const texts = new Map<number, TextLedger>();
  const annotations = new Map<number, JsonObject[]>();
  const seenAnnotations = new Set<string>();
  /** An agent's run (`interaction.agent`): its interaction is a session of one turn (see agentRun). */
  let session: string | undefined;
  /** The function calls of the interaction (the client's to answer), in order. */
  const clientCalls: string[] = [];

  const self = {
    emit(ev: UnifiedEvent): void {
      if (cursor !== undefined) ev.cursor = cursor;
      if (session !== undefined) ev.session = session;
      ctx.emit(ev);
    },

    raw(payload: Json): void {
      self.emit({ type: 'raw', event: payload });
    },

    ensureStart(id: string | null, model: string | null): void {
      if (handler.started) return;
      handler.started = true;
      self.emit({ type: 'start', id: id ?? knownId, model });
    },

    closeCall(index: number, call: InteractionsCall): void {
      calls.delete(index);
      let args: string;
      if (call.deltas.length > 0) args = call.deltas.join('');
      else if (call.initial !== undefined && call.initial !== null) {
        // The whole arguments came on step.start: deliver them through the same delta path.
        args = typeof call.initial === 'string' ? call.initial : JSON.stringify(call.initial);
        if (args !== '') self.emit(self.provider(call, { type: 'tool_call_delta', index, id: call.id, argumentsDelta: args }));
      } else args = '';
      self.emit(self.provider(call, { type: 'tool_call_done', index, id: call.id, name: call.name, arguments: args }));
    },

    /** Marks a server call's event. */
    provider<E extends UnifiedEvent & { providerExecuted?: true }>(call: InteractionsCall, ev: E): E {
      if (call.providerExecuted) ev.providerExecuted = true;
      return ev;
    },

    signatureOf(index: number, o: JsonObject): void {
      const sig = str(o['signature']);
      if (sig !== undefined && sig !== '') self.emit({ type: 'signature', index, signature: sig, kind: 'thought_signature' });
    },

    stepStart(payload: JsonObject): void {
      const index = num(payload['index']);
      const step = obj(payload['step']);
      const type = str(step?.['type']);
      if (index !== undefined && type !== undefined && SERVER_RESULTS[type] !== undefined) {
        self.resultStart(index, type, step!);
        return;
      }
      const server = type === undefined ? undefined : SERVER_CALLS[type];
      if (index === undefined || step === undefined || (type !== 'function_call' && server === undefined)) {
        self.raw(payload);
        return;
      }
      const open = calls.get(index);
      if (open !== undefined) self.closeCall(index, open);
      const id = str(step['id']) || `call_${index}`;
      const name = (type === 'mcp_server_tool_call' ? str(step['name']) : server) ?? str(step['name']) ?? '';
      const call: InteractionsCall = { id, name, deltas: [], initial: step['arguments'], providerExecuted: server !== undefined };
      calls.set(index, call);
      if (server !== undefined) serverNames.set(id, name);
      else clientCalls.push(id);
      self.emit(self.provider(call, { type: 'tool_call_start', index, id, name }));
      self.signatureOf(index, step);
    },

    resultStart(index: number, type: string, step: JsonObject): void {
      const callId = str(step['call_id']);
      const name = (callId === undefined ? undefined : serverNames.get(callId)) ?? str(step['name']) ?? SERVER_RESULTS[type]!;
      const result: ResultStep = { callId, name, parts: [], isError: step['is_error'] === true };
      if (step['result'] !== undefined) result.parts.push(step['result']);
      results.set(index, result);
      self.signatureOf(index, step);
    },

    /** A result step's end: its tool_result. */
    closeResult(index: number, r: ResultStep): void {
      results.delete(index);
      let result: Json;
      if (r.parts.length === 0) result = null;
      else if (r.parts.length === 1) result = r.parts[0]!;
      else if (r.parts.every((p) => Array.isArray(p))) result = (r.parts as Json[][]).flat();
      else result = r.parts;
      const ev: UnifiedEvent = { type: 'tool_result', index, id: r.callId || `call_${index}`, name: r.name, result };
      if (r.isError) ev.isError = true;
      self.emit(ev);
    },

    /** The step's citations: its annotations, offsets turned from the step's UTF-8 bytes into UTF-16. */
    closeAnnotations(index: number): void {
      const list = annotations.get(index);
      if (list === undefined) return;
      annotations.delete(index);
      const text = texts.get(index);
      const bytes: number[] = [];
      for (const a of list) {
        const s = num(a['start_index']);
        const e = num(a['end_index']);
        if (e !== undefined) bytes.push(s ?? 0, e);
      }
      const utf16 = text === undefined || bytes.length === 0 ? null : text.utf16(bytes);
      for (const a of list) {
        const ev = annotationCitation(a, index)!;
        const e = num(a['end_index']);
        if (utf16 !== null && e !== undefined) {
          const start = utf16.get(num(a['start_index']) ?? 0);
          const end = utf16.get(e);
          const span = start === undefined || end === undefined ? null : text!.span(start, end, undefined);
          if (span !== null) {
            ev.start = span.start;
            ev.end = span.end;
          }
        }
        self.emit(ev);
      }
    },

    /** Annotations of step `index`: kept for its step.stop; false when some are no citation (the payload stays raw). */
    annotate(index: number, list: Json[]): boolean {
      let all = true;
      for (const item of list) {
        const a = obj(item);
        if (a === undefined || annotationCitation(a, index) === null) {
          all = false;
          continue;
        }
        const key = `${index}\n${JSON.stringify(a)}`;
        if (seenAnnotations.has(key)) continue;
        seenAnnotations.add(key);
        let pending = annotations.get(index);
        if (pending === undefined) annotations.set(index, (pending = []));
        pending.push(a);
      }
      return all;
    },

    /** Closes what is still open: calls (all, or those with complete arguments), results, citations. */
    closeAll(completeOnly: boolean): void {
      if (completeOnly) self.closeCompleteCalls();
      else for (const [index, call] of calls) self.closeCall(index, call);
      // cut short, a result step that brought nothing yet has no result to report
      for (const [index, r] of results) if (!completeOnly || r.parts.length > 0) self.closeResult(index, r);
      for (const index of [...annotations.keys()]) self.closeAnnotations(index);
    },

    stepDelta(payload: JsonObject): void {
      const index = num(payload['index']);
      const delta = obj(payload['delta']);
      if (index === undefined || delta === undefined) {
        self.raw(payload);
        return;
      }
      switch (delta['type']) {
        case 'text': {
          const text = str(delta['text']);
          if (text === undefined || text === '') break;
          self.textDelta(index, false, text);
          return;
        }
        case 'thought_summary': {
          const text = str(obj(delta['content'])?.['text']) ?? str(delta['text']);
          if (text === undefined || text === '') break;
          self.textDelta(index, true, text);
          return;
        }
        case 'thought_signature': {
          const sig = str(delta['signature']);
          if (sig === undefined || sig === '') break;
          self.emit({ type: 'signature', index, signature: sig, kind: 'thought_signature' });
          return;
        }
        case 'arguments_delta': {
          const call = self.openCall(index);
          const value = delta['arguments'];
          const text = typeof value === 'string' ? value : isObject(value) ? JSON.stringify(value) : undefined;
          // Without its step.start the call has no name: keep the payload whole instead.
          if (call === undefined || text === undefined || text === '') break;
          self.argsDelta(index, call, text);
          return;
        }
        case 'text_annotation_delta': {
          const list = arr(delta['annotations']);
          if (list === undefined || !self.annotate(index, list)) break;
          return;
        }
        case 'image': {
          const data = str(delta['data']);
          if (data === undefined || data === '') break;
          self.emit({ type: 'file', index, mimeType: str(delta['mime_type']) ?? null, data });
          return;
        }
        case 'audio': {
          const data = str(delta['data']);
          if (data === undefined || data === '') break;
          self.emit({ type: 'audio_delta', index, mimeType: str(delta['mime_type']) ?? null, data });
          return;
        }
        default: {
          const type = str(delta['type']);
          if (type === undefined) break;
          const call = calls.get(index);
          if (call !== undefined && call.providerExecuted && SERVER_CALLS[type] !== undefined) {
            // A server call's arguments, whole: they replace the step's (sent at step.stop).
            if (delta['arguments'] !== undefined) call.initial = delta['arguments'];
            self.signatureOf(index, delta);
            return;
          }
          const result = results.get(index);
          if (result !== undefined && SERVER_RESULTS[type] !== undefined) {
            if (delta['result'] !== undefined) result.parts.push(delta['result']);
            if (delta['is_error'] === true) result.isError = true;
            self.signatureOf(index, delta);
            return;
          }
        }
      }
      self.raw(payload);
    },

    stepStop(payload: JsonObject): void {
      const index = num(payload['index']);
      if (index === undefined) {
        self.raw(payload);
        return;
      }
      const call = calls.get(index);
      const result = results.get(index);
      const cited = annotations.has(index);
      if (call === undefined && result === undefined && !cited) {
        self.raw(payload);
        return;
      }
      if (call !== undefined) self.closeCall(index, call);
      if (result !== undefined) self.closeResult(index, result);
      if (cited) self.closeAnnotations(index);
    },

    completed(payload: JsonObject): void {
      const interaction = obj(payload['interaction']);
      self.ensureStart(str(interaction?.['id']) ?? null, str(interaction?.['model']) ?? null);
      // The interaction is over: every call's arguments are complete.
      self.closeAll(false);
      const status = str(interaction?.['status']);
      const stopReason = stopReasonOf(status);
      if (stopReason === 'error') {
        const err = providerError(interaction?.['error'] ?? null);
        self.emit(errorEvent(err?.code ?? 'failed', err?.message ?? 'the interaction failed', true, payload));
      }
      const usage = obj(interaction?.['usage']);
      if (usage !== undefined) self.emit(usageEvent(interactionsUsage(usage), usage));
      self.emit(doneEvent(stopReason, status ?? null));
      if (session !== undefined) self.emit(agentRunEnd(status, usage, clientCalls, payload));
    },

    error(payload: JsonObject): void {
      const err = providerError(payload);
      self.emit(errorEvent(err?.code ?? 'provider_error', err?.message ?? 'provider error', true, payload));
      self.emit(doneEvent('error', null));
    },

    /** Emits what is owed for calls whose arguments are complete JSON (a cut-off call stays open). */
    closeCompleteCalls(): void {
      for (const [index, call] of calls) {
        const text = call.deltas.join('');
        if (text === '') {
          // Arguments that came whole (a server call's, on its step or delta, or a function call's
          // non-empty ones on its step) are complete; a function call's `{}` on step.start is only a
          // placeholder before its argument deltas, so cut there the call stays unfinished.
          const initial = call.initial ?? null;
          if (isObject(initial) && (call.providerExecuted || Object.keys(initial).length > 0)) self.closeCall(index, call);
          continue;
        }
        try {
          JSON.parse(text);
        } catch {
          continue;
        }
        self.closeCall(index, call);
      }
    },

    // ---- the delta mapping (see InteractionsResponse) ----

    at(c: string | number | undefined): void {
      cursor = c;
    },

    textDelta(index: number, reasoning: boolean, text: string): void {
      if (reasoning) self.emit({ type: 'reasoning_delta', index, text });
      else {
        self.keepText(index, text, false);
        self.emit({ type: 'text_delta', index, text });
      }
    },

    keepText(index: number, text: string, raw: boolean): void {
      let ledger = texts.get(index);
      if (ledger === undefined) texts.set(index, (ledger = new TextLedger()));
      ledger.add(index, text, raw);
    },

    openCall(index: number): InteractionsCall | undefined {
      return calls.get(index);
    },

    argsDelta(index: number, call: InteractionsCall, text: string): void {
      call.deltas.push(text);
      self.emit(self.provider(call, { type: 'tool_call_delta', index, id: call.id, argumentsDelta: text }));
    },
  };

  const handler = {
    at: self.at,
    textDelta: self.textDelta,
    openCall: self.openCall,
    argsDelta: self.argsDelta,
    keepText: self.keepText,
    onPayload(payload) {
      if (!isObject(payload)) {
        self.raw(payload);
        return;
      }
      const eventId = payload['event_id'];
      self.at(typeof eventId === 'string' || typeof eventId === 'number' ? eventId : undefined);
      // `type` is accepted too: auto-detection also recognizes payloads by it.
      const type = str(payload['event_type']) ?? str(payload['type']);
      switch (type) {
        case 'interaction.created':
        case 'interaction.start': {
          const interaction = obj(payload['interaction']);
          if (handler.started) break;
          const agent = str(interaction?.['agent']);
          const id = str(interaction?.['id']) ?? null;
          if (agent !== undefined && id !== null) {
            session = id;
            self.emit(sessionStart(id, agent));
          }
          self.ensureStart(id, str(interaction?.['model']) ?? agent ?? null);
          return;
        }
        case 'interaction.status_update':
        case 'interaction.in_progress':
          // Lifecycle only: it does not begin a response (one may trail a completed one).
          if (!handler.started) knownId ??= str(payload['interaction_id']) ?? null;
          break;
        case 'step.start':
          self.ensureStart(null, null);
          self.stepStart(payload);
          return;
        case 'step.delta':
          self.ensureStart(null, null);
          self.stepDelta(payload);
          return;
        case 'step.stop':
          self.ensureStart(null, null);
          self.stepStop(payload);
          return;
        case 'interaction.completed':
        case 'interaction.complete':
          self.completed(payload);
          return;
        case 'error':
          self.error(payload);
          return;
        case undefined:
          if (isObject(payload['error'])) {
            self.error(payload);
            return;
          }
          break;
      }
      self.raw(payload);
    },
    onDoneSentinel() {
      cursor = undefined;
      if (!handler.started) {
        self.raw('[DONE]');
        return;
      }
      // `[DONE]` without interaction.completed: the response was cut short.
      self.closeAll(true);
      self.emit(errorEvent('incomplete_stream', 'the stream ended before interaction.completed', true));
      self.emit(doneEvent('error', null));
    },
    onIncomplete() {
      cursor = undefined;
      self.closeAll(true);
    },
    // a data field, not a getter: an accessor would put the handler in dictionary mode (see normalizer.ts)
    started: false as boolean,
  } satisfies InteractionsResponse;
  return handler;
}

export const geminiInteractions = defineDialect({
  name: 'gemini-interactions',
  family: 'interactions',
  // `event_type` (the Interactions SSE events), or `type: 'interaction.…' | 'step.…'`.
  detect(payload) {
    if (typeof payload['event_type'] === 'string') return true;
    const type = str(payload['type']);
    return type !== undefined && (type.startsWith('interaction.') || type.startsWith('step.'));
  },
  createResponse: createInteractionsResponse,
});
