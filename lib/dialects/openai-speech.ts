/**
 * OpenAI text-to-speech streamed as SSE: `POST /v1/audio/speech` with
 * `stream_format: "sse"` (openai-openapi `SpeechAudioDeltaEvent`,
 * `SpeechAudioDoneEvent`). Data-only SSE, frames may end in CRLF, and a
 * `data: [DONE]` may follow the terminal event (the normalizer passes it on
 * as `raw`, the response being closed by then).
 *
 * - `speech.audio.delta {audio: <base64>}` → `audio_delta` (index 0);
 * - `speech.audio.done {usage: {input_tokens, output_tokens, total_tokens}}`
 *   → `usage` (the object has no `type` and no details) and `done` (the
 *   payload as `raw` first when it has no usage object or other fields)
 *   (stopReason `end`; the wire gives no reason string: providerReason null);
 * - an error payload (`{type: "error", error: {…}}` or `{error: {…}}`) →
 *   terminal `error` and `done` with stopReason `error`;
 * - anything else → `raw`.
 *
 * The MIME type: the request's `response_format` (mp3 by default; opus, aac,
 * flac, wav, pcm) is not on the wire, so it is sniffed from the first bytes
 * of the first delta that has any: an ID3 tag or an MPEG layer III frame
 * header → `audio/mpeg`, `RIFF…WAVE` → `audio/wav`, `OggS` (Opus) →
 * `audio/ogg`, `fLaC` → `audio/flac`, an ADTS header → `audio/aac`. Raw PCM
 * (24 kHz 16-bit mono, `pcm`) has no signature: its type stays null, never
 * guessed. The type found is set on every delta of the response.
 */
import type { JsonObject } from '../events.js';
import { base64 as base64Bytes, latin1 } from '../bytes/index.js';
import { doneEvent, obj, str, usageEvent } from './helpers.js';
import { OpenAIAudioResponse, tokenUsage } from './openai-audio.js';
import { defineDialect } from './types.js';

export const SPEECH_PREFIX = 'speech.audio.';

/** The MIME type the first bytes of an audio stream show, or null when they show none (raw PCM). */
export function sniffAudioMimeType(base64: string): string | null {
  // 16 base64 characters are 12 bytes: enough for every signature below.
  const head = base64Bytes(base64.slice(0, 16).replace(/-/g, '+').replace(/_/g, '/'));
  const ascii = (from: number, to: number): string => latin1(head, from, to);
  if (head.length >= 3 && ascii(0, 3) === 'ID3') return 'audio/mpeg';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (head.length >= 4 && ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (head.length >= 4 && ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (head.length >= 2 && head[0] === 0xff) {
    const b1 = head[1]!;
    if ((b1 & 0xf6) === 0xf0) return 'audio/aac'; // ADTS: 12 sync bits, layer 00
    if ((b1 & 0xe0) === 0xe0 && (b1 & 0x06) === 0x02) return 'audio/mpeg'; // MPEG audio layer III
  }
  return null;
}

class SpeechResponse extends OpenAIAudioResponse {
  /** Undefined until the first delta with data was sniffed. */
  private mimeType: string | null | undefined = undefined;

  protected onEvent(type: string | undefined, payload: JsonObject): boolean {
    if (type === 'speech.audio.delta') {
      const audio = str(payload['audio']);
      if (audio === undefined) return false;
      this.begin();
      if (this.mimeType === undefined && audio.length > 0) this.mimeType = sniffAudioMimeType(audio);
      this.ctx.emit({ type: 'audio_delta', index: 0, mimeType: this.mimeType ?? null, data: audio });
      return true;
    }
    if (type === 'speech.audio.done') {
      this.begin();
      const usage = obj(payload['usage']);
      // A done of another shape is kept whole (the response still ends).
      if (usage === undefined || Object.keys(payload).some((k) => k !== 'type' && k !== 'usage')) this.raw(payload);
      if (usage !== undefined) this.ctx.emit(usageEvent(tokenUsage(usage), usage));
      this.ctx.emit(doneEvent('end', null));
      return true;
    }
    return false;
  }
}

export const openaiSpeech = defineDialect({
  name: 'openai-speech',
  family: 'speech',
  // `speech.audio.delta` / `speech.audio.done`: no other dialect's payloads use the prefix.
  detect: (payload) => str(payload['type'])?.startsWith(SPEECH_PREFIX) === true,
  createResponse: (ctx) => new SpeechResponse(ctx),
});
