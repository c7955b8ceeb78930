/**
 * What OpenAI's audio SSE dialects (openai-speech.ts,
 * openai-transcription.ts), its image SSE dialect (openai-images.ts, the
 * same shape of stream) and xAI's voice sockets (xai-tts.ts, xai-stt.ts: one
 * response per utterance or session, likewise without id or model) share: one response per request, no id or model
 * on the wire, an error payload that ends it, `[DONE]` only after the
 * terminal event.
 */
import type { Json, JsonObject, Usage } from '../events.js';
import { doneEvent, errorEvent, isObject, num, providerError, str, sum } from './helpers.js';
import type { DialectContext, ResponseHandler } from './types.js';

/** Token counts of `{input_tokens, output_tokens, total_tokens}` (total: the sum when absent); no reasoning or cache split. */
export function tokenUsage(usage: JsonObject): Usage {
  const input = num(usage['input_tokens']) ?? null;
  const output = num(usage['output_tokens']) ?? null;
  return { inputTokens: input, outputTokens: output, totalTokens: num(usage['total_tokens']) ?? sum(input, output), reasoningTokens: null, cachedInputTokens: null };
}

export abstract class OpenAIAudioResponse implements ResponseHandler {
  started = false;

  constructor(protected readonly ctx: DialectContext) {}

  /** Maps one payload of the dialect's own `type`; false leaves it to the shared handling (error, else raw). */
  protected abstract onEvent(type: string | undefined, payload: JsonObject): boolean;

  /** Emits `start` (id and model null: the wire has neither) once. */
  protected begin(): void {
    if (this.started) return;
    this.started = true;
    this.ctx.emit({ type: 'start', id: null, model: null });
  }

  protected raw(payload: Json): void {
    this.ctx.emit({ type: 'raw', event: payload });
  }

  onPayload(payload: Json): void {
    if (!isObject(payload)) return this.raw(payload);
    const type = str(payload['type']);
    if (this.onEvent(type, payload)) return;
    if (type === 'error' || (type === undefined && isObject(payload['error']))) {
      // `{type: "error", error: {…}}`, a bare `{error: {…}}`, xAI's `{type: "error", message}`: the response ends.
      const err = providerError(payload);
      this.begin();
      // (xAI's has no code: its `type` is no code either)
      const code = err === undefined || err.code === 'error' ? 'provider_error' : err.code;
      this.ctx.emit(errorEvent(code, err?.message ?? 'provider error', true, payload));
      this.ctx.emit(doneEvent('error', null));
      return;
    }
    this.raw(payload);
  }

  onDoneSentinel(): void {
    // `[DONE]` before the terminal event: not these dialects' end; the end of input reports the cut.
    this.raw('[DONE]');
  }

  onIncomplete(): void {}
}
