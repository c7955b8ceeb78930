/**
 * Helpers the dialects' `detect` functions share. Detection itself is the
 * registry's loop (`detectDialect` in registry.ts): each dialect tells its
 * own payloads from its own fields (never the SSE event name), asked in the
 * registry's order.
 */
import type { Json, JsonObject } from '../events.js';
import { obj, str } from './helpers.js';

/** An xAI model (`grok-4`, `Grok-Voice`…): what tells xAI's OpenAI and Anthropic look-alikes apart. */
export function isGrok(model: Json | undefined): boolean {
  const m = str(model);
  return m !== undefined && m.toLowerCase().startsWith('grok');
}

/**
 * A bare keep-alive `{type: 'ping'}` (Anthropic's; xAI Realtime's carries
 * ids, see xai-realtime.ts): no dialect may claim it on its other fields, the
 * next payload will tell.
 */
export function isKeepAlive(payload: JsonObject): boolean {
  return payload['type'] === 'ping';
}

/** Realtime-only event types; `response.*` alone is ambiguous with the Responses API (see isRealtimeEvent). */
export function isRealtimeType(type: string): boolean {
  return (
    type.startsWith('session.') ||
    type.startsWith('conversation.') ||
    type.startsWith('input_audio_buffer.') ||
    type.startsWith('output_audio_buffer.') ||
    type === 'rate_limits.updated' ||
    type === 'response.done' ||
    type.startsWith('response.output_audio') ||
    type.startsWith('response.audio')
  );
}

/**
 * Realtime events carry `event_id` where Responses events carry
 * `sequence_number`; Realtime response objects say `realtime.response`.
 */
export function isRealtimeEvent(payload: JsonObject): boolean {
  if (obj(payload['response'])?.['object'] === 'realtime.response') return true;
  return typeof payload['event_id'] === 'string' && !('sequence_number' in payload);
}
