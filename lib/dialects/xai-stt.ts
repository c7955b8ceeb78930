/**
 * xAI speech-to-text over WebSocket (`wss://api.x.ai/v1/stt?sample_rate&
 * encoding&interim_results&endpointing&multichannel&diarize…`; pipecat
 * `src/pipecat/services/xai/stt.py`, vercel/ai `packages/xai/src/
 * xai-transcription-model.ts` and its CHANGELOG e193290). The client sends
 * the audio as binary frames, then `{"type":"audio.done"}`; a session is one
 * response, from `transcript.created` (or its first transcript) to
 * `transcript.done`.
 *
 * - `transcript.created` → `start` (the server is ready for audio).
 * - `transcript.partial {text, words, is_final, speech_final, start,
 *   duration, channel_index?}`: only `is_final && speech_final` ends an
 *   utterance. xAI re-sends a finalized chunk with `speech_final: false`
 *   first, and later merges and re-punctuates finalized fragments into the
 *   `speech_final` text, so anything else (interim results, `is_final`
 *   fragments) is provisional: `raw`, and the channel's latest such text is
 *   kept as its pending tail. An utterance → `text_delta` (`transcript:
 *   true`, index 0 for every channel: one transcript in arrival order, a
 *   space before every utterance but the first) and `segment {text, start, end: start + duration, speaker (when
 *   every word names the same one), channel}`; the same utterance (start and
 *   text) sent again is `raw`. A revised or re-sent fragment therefore never
 *   adds text twice.
 * - `transcript.done {text, duration, channel_index?}`: the channel's
 *   pending tail (text that never got its `speech_final`) becomes one more
 *   utterance when the done text is empty, as it usually is; a non-empty done
 *   text is authoritative: its missing rest is one more delta, or, when it
 *   says something else, a non-terminal `transcript_mismatch` error (the
 *   deltas' text stays; the done text is in the error's raw). An empty done
 *   text never erases anything. Then `usage` with `durationSeconds` (the
 *   audio's duration: STT is billed by time; no token counts) and, once every
 *   channel seen has had its done, `done` (stopReason `end`).
 * - `error {message}` → terminal `error`, `done` with stopReason `error`
 *   (the shared handling of openai-audio.ts).
 */
import type { Json, JsonObject, SegmentEvent } from '../events.js';
import { arr, doneEvent, errorEvent, num, obj, str, usageEvent } from './helpers.js';
import { OpenAIAudioResponse } from './openai-audio.js';
import { defineDialect } from './types.js';

interface Channel {
  /** The utterances' text so far, as emitted. */
  text: string;
  /** The latest provisional text since the last utterance ('' when none). */
  pending: string;
  /** The last utterance's start and text: the same one sent again is no new utterance. */
  last: string | null;
  done: boolean;
}

class SttSession extends OpenAIAudioResponse {
  private readonly channels = new Map<number, Channel>();
  /** Some text was emitted (the next utterance is preceded by a space). */
  private spoken = false;

  private channel(payload: JsonObject): [number, Channel] {
    const index = num(payload['channel_index']) ?? 0;
    let c = this.channels.get(index);
    if (c === undefined) {
      c = { text: '', pending: '', last: null, done: false };
      this.channels.set(index, c);
    }
    return [index, c];
  }

  /** Appends one utterance's text to the channel's and to the transcript (a space between utterances). */
  private utterance(c: Channel, text: string): void {
    if (text === '') return;
    c.text += c.text === '' ? text : ` ${text}`;
    this.delta(this.spoken ? ` ${text}` : text);
  }

  private delta(text: string): void {
    this.spoken = true;
    this.ctx.emit({ type: 'text_delta', index: 0, text, transcript: true });
  }

  protected onEvent(type: string | undefined, payload: JsonObject): boolean {
    switch (type) {
      case 'transcript.created':
        this.begin();
        this.raw(payload);
        return true;
      case 'transcript.partial':
        return this.partial(payload);
      case 'transcript.done':
        return this.done(payload);
      default:
        return false;
    }
  }

  private partial(payload: JsonObject): boolean {
    const text = str(payload['text']);
    if (text === undefined) return false;
    this.begin();
    const [index, c] = this.channel(payload);
    if (payload['is_final'] !== true || payload['speech_final'] !== true) {
      c.pending = text;
      this.raw(payload);
      return true;
    }
    const start = num(payload['start']);
    const key = `${start}|${text}`;
    if (key === c.last) {
      this.raw(payload); // the utterance again, word for word
      return true;
    }
    c.last = key;
    c.pending = '';
    this.utterance(c, text);
    const seg: SegmentEvent = { type: 'segment', text };
    const duration = num(payload['duration']);
    if (start !== undefined) seg.start = start;
    if (start !== undefined && duration !== undefined) seg.end = start + duration;
    const speaker = speakerOf(payload['words']);
    if (speaker !== undefined) seg.speaker = speaker;
    if (payload['channel_index'] !== undefined) seg.channel = index;
    this.ctx.emit(seg);
    return true;
  }

  private done(payload: JsonObject): boolean {
    this.begin();
    const [, c] = this.channel(payload);
    const text = str(payload['text']) ?? '';
    if (text === '') {
      // xAI's done text is empty when the utterances covered everything: what never got its speech_final is the tail.
      this.utterance(c, c.pending);
    } else if (text !== c.text) {
      if (text.startsWith(c.text)) {
        const rest = text.slice(c.text.length);
        this.delta(c.text === '' && this.spoken ? ` ${rest}` : rest);
        c.text = text;
      } else {
        this.ctx.emit(
          errorEvent(
            'transcript_mismatch',
            `transcript.done's text (${text.length} characters) differs from the utterances' (${c.text.length} characters): the final keeps the utterances' text, the done text is in this error's raw`,
            false,
            payload,
          ),
        );
      }
    }
    c.pending = '';
    c.done = true;
    const duration = num(payload['duration']);
    if (duration !== undefined) {
      const usage = usageEvent({ inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null }, { duration });
      usage.durationSeconds = duration;
      this.ctx.emit(usage);
    } else this.raw(payload);
    for (const ch of this.channels.values()) if (!ch.done) return true;
    this.ctx.emit(doneEvent('end', null));
    return true;
  }
}

/** The speaker every word names, when they all name the same one (diarization). */
function speakerOf(words: Json | undefined): string | undefined {
  let speaker: string | undefined;
  for (const w of arr(words) ?? []) {
    const s = obj(w)?.['speaker'];
    const name = typeof s === 'number' ? String(s) : str(s);
    if (name === undefined || (speaker !== undefined && name !== speaker)) return undefined;
    speaker = name;
  }
  return speaker;
}

export const xaiStt = defineDialect({
  name: 'xai-stt',
  family: 'xai-stt',
  // `transcript.created` / `.partial` / `.done` (OpenAI's transcription says `transcript.text.…`).
  detect: (payload) => {
    const type = payload['type'];
    return type === 'transcript.created' || type === 'transcript.partial' || type === 'transcript.done';
  },
  session: true,
  createResponse: (ctx) => new SttSession(ctx),
});
