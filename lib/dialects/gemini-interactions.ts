/**
 * Gemini Interactions API SSE (`event:` + `data:` with `event_type`, ending
 * with `interaction.completed` then `event: done` / `data: [DONE]`).
 * Positions are the provider's step `index`; `event_id` (the resume token)
 * becomes `cursor` on every event a payload produces.
 */
import type { Json, JsonObject, StopReason, UnifiedEvent, Usage } from '../events.js';
import { doneEvent, errorEvent, isObject, num, obj, providerError, str, sum, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

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
}

export interface InteractionsCall {
  id: string;
  name: string;
  deltas: string[];
  /** `step.arguments` from step.start, used when no arguments_delta comes. */
  initial: Json | undefined;
}

function createInteractionsResponse(ctx: DialectContext): InteractionsResponse {
  /** Interaction id learned before the response began (a resumed stream's status update). */
  let knownId: string | null = null;
  let cursor: string | number | undefined;
  const calls = new Map<number, InteractionsCall>();

  const self = {
    emit(ev: UnifiedEvent): void {
      if (cursor !== undefined) ev.cursor = cursor;
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
        if (args !== '') self.emit({ type: 'tool_call_delta', index, id: call.id, argumentsDelta: args });
      } else args = '';
      self.emit({ type: 'tool_call_done', index, id: call.id, name: call.name, arguments: args });
    },

    stepStart(payload: JsonObject): void {
      const index = num(payload['index']);
      const step = obj(payload['step']);
      if (index === undefined || step === undefined || step['type'] !== 'function_call') {
        self.raw(payload);
        return;
      }
      const open = calls.get(index);
      if (open !== undefined) self.closeCall(index, open);
      const id = str(step['id']) || `call_${index}`;
      const name = str(step['name']) ?? '';
      calls.set(index, { id, name, deltas: [], initial: step['arguments'] });
      self.emit({ type: 'tool_call_start', index, id, name });
      const sig = str(step['signature']);
      if (sig !== undefined && sig !== '') self.emit({ type: 'signature', index, signature: sig, kind: 'thought_signature' });
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
      }
      self.raw(payload);
    },

    stepStop(payload: JsonObject): void {
      const index = num(payload['index']);
      const call = index === undefined ? undefined : calls.get(index);
      if (call === undefined) {
        self.raw(payload);
        return;
      }
      self.closeCall(index!, call);
    },

    completed(payload: JsonObject): void {
      const interaction = obj(payload['interaction']);
      self.ensureStart(str(interaction?.['id']) ?? null, str(interaction?.['model']) ?? null);
      // The interaction is over: every call's arguments are complete.
      for (const [index, call] of calls) self.closeCall(index, call);
      const status = str(interaction?.['status']);
      const stopReason = stopReasonOf(status);
      if (stopReason === 'error') {
        const err = providerError(interaction?.['error'] ?? null);
        self.emit(errorEvent(err?.code ?? 'failed', err?.message ?? 'the interaction failed', true, payload));
      }
      const usage = obj(interaction?.['usage']);
      if (usage !== undefined) self.emit(usageEvent(interactionsUsage(usage), usage));
      self.emit(doneEvent(stopReason, status ?? null));
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
        if (text === '') continue;
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
      self.emit(reasoning ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text });
    },

    openCall(index: number): InteractionsCall | undefined {
      return calls.get(index);
    },

    argsDelta(index: number, call: InteractionsCall, text: string): void {
      call.deltas.push(text);
      self.emit({ type: 'tool_call_delta', index, id: call.id, argumentsDelta: text });
    },
  };

  const handler = {
    at: self.at,
    textDelta: self.textDelta,
    openCall: self.openCall,
    argsDelta: self.argsDelta,
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
          self.ensureStart(str(interaction?.['id']) ?? null, str(interaction?.['model']) ?? null);
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
      self.closeCompleteCalls();
      self.emit(errorEvent('incomplete_stream', 'the stream ended before interaction.completed', true));
      self.emit(doneEvent('error', null));
    },
    onIncomplete() {
      cursor = undefined;
      self.closeCompleteCalls();
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
