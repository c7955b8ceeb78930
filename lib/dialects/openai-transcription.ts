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
 *   → `segment` (its text came as deltas too); one without text → `raw`.
 * - `transcript.text.done {text, logprobs?, languages?, usage?}` → `raw` of
 *   the payload when it carries more than `type`, `text`, `usage` and one
 *   language (`logprobs`, several `languages`) or a text or usage of another
 *   shape; then the text reconciliation below; then `usage`; then `done`
 *   (stopReason `end`, providerReason null: the wire gives no reason) with
 *   `language`, the first of `languages[].code`.
 * - an error payload → terminal `error`, `done` with stopReason `error`;
 *   anything else → `raw`.
 *
 * Usage is a union: `{type: "tokens", input_tokens, input_token_details,
 * output_tokens, total_tokens}` (also without `type`, as the spec's own
 * streaming example sends it) gives token counts; `{type: "duration",
 * seconds}` gives a usage event with every count null and `durationSeconds`
 * (also in its `raw`): a duration is never turned into tokens.
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
import type { JsonObject, Usage } from '../events.js';
import type { DoneEvent, SegmentEvent, UsageEvent } from '../events.js';
import { arr, doneEvent, errorEvent, num, obj, str, usageEvent } from './helpers.js';
import { OpenAIAudioResponse, tokenUsage } from './openai-audio.js';
import { defineDialect } from './types.js';

export const TRANSCRIPT_PREFIX = 'transcript.text.';

const DONE_KEYS = new Set(['type', 'text', 'usage', 'languages']);

/** Token counts of a transcription usage object: all null for a `duration` one (or an unknown type). */
export function transcriptionUsage(usage: JsonObject): Usage {
  const kind = usage['type'];
  if (kind !== undefined && kind !== 'tokens') {
    return { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
  }
  return tokenUsage(usage);
}

/** The usage event of a transcription usage object: a `duration` one gives its seconds, no tokens. */
export function transcriptionUsageEvent(usage: JsonObject): UsageEvent {
  const ev = usageEvent(transcriptionUsage(usage), usage);
  const seconds = usage['type'] === 'duration' ? num(usage['seconds']) : undefined;
  if (seconds !== undefined) ev.durationSeconds = seconds;
  return ev;
}

class TranscriptionResponse extends OpenAIAudioResponse {
  /** The deltas' concatenation so far. */
  private text = '';

  protected onEvent(type: string | undefined, payload: JsonObject): boolean {
    if (type === 'transcript.text.delta') {
      const delta = str(payload['delta']);
      if (delta === undefined) return false;
      this.begin();
      this.text += delta;
      if (delta !== '') this.ctx.emit({ type: 'text_delta', index: 0, text: delta, transcript: true });
      return true;
    }
    if (type === 'transcript.text.done') {
      this.begin();
      const text = str(payload['text']);
      const usage = obj(payload['usage']);
      // Kept whole when it says more than the events below carry (logprobs, languages) or something they cannot read.
      const odd = (payload['text'] !== undefined && text === undefined) || (payload['usage'] !== undefined && usage === undefined);
      const languages = arr(payload['languages']);
      const language = str(obj(languages?.[0])?.['code']);
      const moreLanguages = payload['languages'] !== undefined && (language === undefined || languages!.length > 1);
      if (odd || moreLanguages || Object.keys(payload).some((k) => !DONE_KEYS.has(k))) this.raw(payload);
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
      if (usage !== undefined) this.ctx.emit(transcriptionUsageEvent(usage));
      const done: DoneEvent = doneEvent('end', null);
      if (language !== undefined) done.language = language;
      this.ctx.emit(done);
      return true;
    }
    const text = type === 'transcript.text.segment' ? str(payload['text']) : undefined;
    if (text !== undefined) {
      this.begin();
      const seg: SegmentEvent = { type: 'segment', text };
      const id = str(payload['id']);
      if (id !== undefined) seg.id = id;
      const start = num(payload['start']);
      if (start !== undefined) seg.start = start;
      const end = num(payload['end']);
      if (end !== undefined) seg.end = end;
      const speaker = str(payload['speaker']);
      if (speaker !== undefined) seg.speaker = speaker;
      this.ctx.emit(seg);
      return true;
    }
    // unknown transcript.text.* events: raw, in the response.
    if (type?.startsWith(TRANSCRIPT_PREFIX) === true) {
      this.begin();
      this.raw(payload);
      return true;
    }
    return false;
  }
}

export const openaiTranscription = defineDialect({
  name: 'openai-transcription',
  family: 'transcription',
  // `transcript.text.delta` / `.segment` / `.done` (xAI's STT says `transcript.partial` / `transcript.done`).
  detect: (payload) => str(payload['type'])?.startsWith(TRANSCRIPT_PREFIX) === true,
  createResponse: (ctx) => new TranscriptionResponse(ctx),
});
