/**
 * xAI text-to-speech over WebSocket (`wss://api.x.ai/v1/tts?voice=…&codec=…
 * &sample_rate=…`; pipecat-ai/pipecat `src/pipecat/services/xai/tts.py`,
 * docs.x.ai's voice reference). The client sends `text.delta {delta}` …
 * `text.done` per utterance (in a capture: client messages, passed on as
 * `raw`); the server answers each utterance with `audio.delta` messages and
 * one `audio.done`, and the connection stays open for the next one. One
 * utterance is one response:
 *
 * - `audio.delta {delta: <base64>}` → `audio_delta` (index 0). A delta with
 *   `audio_timestamps` (character timings, `with_timestamps`) also passes its
 *   payload on as `raw` without the base64; one with no audio at all (timings
 *   alone) is `raw` only.
 * - `audio.done {trace_id}` → `raw` (for the trace id; a bare one is not
 *   repeated), then `done` (stopReason `end`, providerReason null).
 * - `error {message}` → terminal `error` (code `provider_error`) and `done`
 *   with stopReason `error` (the shared handling of openai-audio.ts): pipecat
 *   closes the utterance on it.
 * - `audio.clear` (the server's acknowledgement of the client's `text.clear`)
 *   and anything else → `raw`.
 *
 * No usage is sent: the final's usage stays all null (never 0). The codec
 * and sample rate are query parameters of the request, not on the wire: the
 * MIME type is sniffed from the first bytes as for OpenAI's speech stream
 * (mp3 → `audio/mpeg`, wav → `audio/wav`), and stays null for raw `pcm`,
 * `mulaw` and `alaw`, which have no signature (never guessed).
 */
import type { JsonObject } from '../events.js';
import { doneEvent, str } from './helpers.js';
import { OpenAIAudioResponse } from './openai-audio.js';
import { sniffAudioMimeType } from './openai-speech.js';
import { defineDialect } from './types.js';

class TtsUtterance extends OpenAIAudioResponse {
  /** Undefined until the first delta with data was sniffed. */
  private mimeType: string | null | undefined = undefined;

  protected onEvent(type: string | undefined, payload: JsonObject): boolean {
    switch (type) {
      case 'audio.delta': {
        const audio = str(payload['delta']);
        if (audio === undefined || audio === '') {
          // Timings alone: part of the utterance, nothing unified in it.
          this.begin();
          this.raw(payload);
          return true;
        }
        this.begin();
        if (this.mimeType === undefined) this.mimeType = sniffAudioMimeType(audio);
        this.ctx.emit({ type: 'audio_delta', index: 0, mimeType: this.mimeType, data: audio });
        if (Object.keys(payload).some((k) => k !== 'type' && k !== 'delta')) {
          const { delta: _audio, ...rest } = payload;
          this.raw(rest);
        }
        return true;
      }
      case 'audio.done':
        this.begin();
        if (Object.keys(payload).some((k) => k !== 'type')) this.raw(payload);
        this.ctx.emit(doneEvent('end', null));
        return true;
      default:
        return false;
    }
  }
}

export const xaiTts = defineDialect({
  name: 'xai-tts',
  family: 'xai-tts',
  // `audio.delta` / `audio.done` (bare: Realtime's are `response.…`); `error` alone tells nothing.
  detect: (payload) => {
    const type = payload['type'];
    return type === 'audio.delta' || type === 'audio.done';
  },
  session: true,
  createResponse: (ctx) => new TtsUtterance(ctx),
});
