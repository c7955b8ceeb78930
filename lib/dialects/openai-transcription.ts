/**
 * OpenAI speech-to-text streamed as SSE: `POST /v1/audio/transcriptions`
 * with `stream=true` (openai-openapi `TranscriptTextDeltaEvent`,
 * `TranscriptTextSegmentEvent`, `TranscriptTextDoneEvent`,
 * `TranscriptTextUsageTokens` / `TranscriptTextUsageDuration`). Data-only
 * SSE, CRLF possible, `data: [DONE]` possible after the terminal event (then
 * `raw`: the response is closed).
 *
 * - `transcript.text.delta {delta, logprobs?, segment_id?}` → `text_delta`
 *   (index 0, `transcript: true`). The delta's `logprobs` are not kept on the
 *   event (as in Chat Completions); the done event repeats every token's
 *   logprob and is passed on as `raw` when it carries them (below).
 * - `transcript.text.segment {id, start, end, speaker, text}` (diarization)
 *   → `raw`: the unified vocabulary has no segment event yet.
 * - `transcript.text.done {text, logprobs?, languages?, usage?}` → `raw` of
 *   the payload when it carries more than `type`, `text` and `usage`
 *   (`logprobs`, `languages`) or a text or usage of another shape; then the text reconciliation below; then
 *   `usage`; then `done` (stopReason `end`, providerReason null: the wire
 *   gives no reason).
 * - an error payload → terminal `error`, `done` with stopReason `error`;
 *   anything else → `raw`.
 *
 * Usage is a union: `{type: "tokens", input_tokens, input_token_details,
 * output_tokens, total_tokens}` (also without `type`, as the spec's own
 * streaming example sends it) gives token counts; `{type: "duration",
 * seconds}` gives a usage event with every count null, the seconds only in
 * its `raw`: a duration is never turned into tokens.
 *
 * The done `text` is authoritative. Text events cannot be taken back, so:
 * - the deltas' concatenation is a prefix of it (no deltas at all, or the
 *   stream dropped the tail): the missing rest is emitted as one more
 *   `text_delta`, and the final text equals the done text;
 * - otherwise (the deltas say something else): a non-terminal `error`
 *   `transcript_mismatch` whose `raw` is the done payload, so the final keeps
 *   the deltas' text and lists the mismatch in `errors`, the done text being
 *   in the error's raw.
 */
import type { Json, JsonObject, Usage } from '../events.js';
import { doneEvent, errorEvent, isObject, num, obj, providerError, str, sum, usageEvent } from './helpers.js';
import { defineDialect, type DialectContext, type ResponseHandler } from './types.js';

export const TRANSCRIPT_PREFIX = 'transcript.text.';

const DONE_KEYS = new Set(['type', 'text', 'usage']);

/** Token counts of a transcription usage object: all null for a `duration` one (or an unknown type). */
export function transcriptionUsage(usage: JsonObject): Usage {
  const kind = usage['type'];
  if (kind !== undefined && kind !== 'tokens') {
    return { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
  }
  const input = num(usage['input_tokens']) ?? null;
  const output = num(usage['output_tokens']) ?? null;
  return { inputTokens: input, outputTokens: output, totalTokens: num(usage['total_tokens']) ?? sum(input, output), reasoningTokens: null, cachedInputTokens: null };
}

class TranscriptionResponse implements ResponseHandler {
  started = false;
  /** The deltas' concatenation so far. */
  private text = '';

  constructor(private readonly ctx: DialectContext) {}

  private begin(): void {
    if (this.started) return;
    this.started = true;
    this.ctx.emit({ type: 'start', id: null, model: null });
  }

  onPayload(payload: Json): void {
    if (!isObject(payload)) {
      this.ctx.emit({ type: 'raw', event: payload });
      return;
    }
    const type = str(payload['type']);
    if (type === 'transcript.text.delta') {
      const delta = str(payload['delta']);
      if (delta === undefined) return this.raw(payload);
      this.begin();
      this.text += delta;
      if (delta !== '') this.ctx.emit({ type: 'text_delta', index: 0, text: delta, transcript: true });
      return;
    }
    if (type === 'transcript.text.done') {
      this.begin();
      const text = str(payload['text']);
      const usage = obj(payload['usage']);
      // Kept whole when it says more than the events below carry (logprobs, languages) or something they cannot read.
      const odd = (payload['text'] !== undefined && text === undefined) || (payload['usage'] !== undefined && usage === undefined);
      if (odd || Object.keys(payload).some((k) => !DONE_KEYS.has(k))) this.raw(payload);
      if (text !== undefined && text !== this.text) {
        if (text.startsWith(this.text)) {
          this.ctx.emit({ type: 'text_delta', index: 0, text: text.slice(this.text.length), transcript: true });
          this.text = text;
        } else {
          this.ctx.emit(
            errorEvent(
              'transcript_mismatch',
              `transcript.text.done's text (${text.length} characters) differs from the deltas' (${this.text.length} characters): the final keeps the deltas' text, the done text is in this error's raw`,
              false,
              payload,
            ),
          );
        }
      }
      if (usage !== undefined) this.ctx.emit(usageEvent(transcriptionUsage(usage), usage));
      this.ctx.emit(doneEvent('end', null));
      return;
    }
    if (type === 'error' || (type === undefined && isObject(payload['error']))) {
      const err = providerError(payload);
      this.begin();
      this.ctx.emit(errorEvent(err?.code ?? 'provider_error', err?.message ?? 'provider error', true, payload));
      this.ctx.emit(doneEvent('error', null));
      return;
    }
    // transcript.text.segment (no unified segment event yet), and anything unknown.
    if (type?.startsWith(TRANSCRIPT_PREFIX) === true) this.begin();
    this.raw(payload);
  }

  private raw(payload: JsonObject): void {
    this.ctx.emit({ type: 'raw', event: payload });
  }

  onDoneSentinel(): void {
    // `[DONE]` before `transcript.text.done`: not this dialect's terminal; the end of input reports the cut.
    this.ctx.emit({ type: 'raw', event: '[DONE]' });
  }

  onIncomplete(): void {}
}

export const openaiTranscription = defineDialect({
  name: 'openai-transcription',
  family: 'transcription',
  // `transcript.text.delta` / `.segment` / `.done` (xAI's STT says `transcript.partial` / `transcript.done`).
  detect: (payload) => str(payload['type'])?.startsWith(TRANSCRIPT_PREFIX) === true,
  createResponse: (ctx) => new TranscriptionResponse(ctx),
});
