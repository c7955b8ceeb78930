/** `auto`: which dialect a payload belongs to, from its own fields (never the SSE event name). */
import type { DialectName, Json, JsonObject } from '../events.js';
import { isObject, obj, str } from './helpers.js';

const ANTHROPIC_TYPES = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
]);

const GEMINI_LIVE_KEYS = [
  'setupComplete',
  'serverContent',
  'toolCall',
  'toolCallCancellation',
  'goAway',
  'sessionResumptionUpdate',
  'filteredPrompt',
];

/** Realtime-only event prefixes; `response.*` alone is ambiguous with the Responses API. */
function isRealtimeType(type: string): boolean {
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
function isRealtimeEvent(payload: JsonObject): boolean {
  if (obj(payload['response'])?.['object'] === 'realtime.response') return true;
  return typeof payload['event_id'] === 'string' && !('sequence_number' in payload);
}

/** xAI's realtime endpoint speaks OpenAI's vocabulary: tell them apart by the model, or xAI-only habits. */
function realtimeFlavor(payload: JsonObject, type: string): DialectName {
  if (type === 'session.created' || type === 'session.updated') {
    return isGrok(str(obj(payload['session'])?.['model'])) ? 'xai-realtime' : 'openai-realtime';
  }
  if (type === 'conversation.created') {
    // OpenAI's (beta) conversation.created has an `event_…` id; xAI's ids are UUIDs.
    const id = str(payload['event_id']);
    return id !== undefined && !id.startsWith('event_') ? 'xai-realtime' : 'openai-realtime';
  }
  return 'openai-realtime';
}

function isGrok(model: string | undefined): boolean {
  return model !== undefined && model.toLowerCase().startsWith('grok');
}

/** Returns the dialect of `payload`, or null when the payload alone does not tell. */
export function detectDialect(payload: Json): DialectName | null {
  if (!isObject(payload)) return null;
  const type = str(payload['type']);
  if (payload['object'] === 'chat.completion.chunk' || Array.isArray(payload['choices'])) {
    const model = str(payload['model']);
    if (model === '' || (model === undefined && payload['object'] !== 'chat.completion.chunk')) {
      // Azure's first chunk has empty id/model/object: chat, but xAI cannot be told yet.
      return 'openai-chat';
    }
    return isGrok(model) ? 'xai-chat' : 'openai-chat';
  }
  if (typeof payload['event_type'] === 'string') return 'gemini-interactions';
  if (type !== undefined) {
    if (type.startsWith('interaction.') || type.startsWith('step.')) return 'gemini-interactions';
    if (isRealtimeType(type)) return realtimeFlavor(payload, type);
    if (type === 'ping' && ('event_id' in payload || 'timestamp' in payload)) return 'xai-realtime'; // Anthropic's ping is bare
    if (type === 'error' && isRealtimeEvent(payload)) return 'openai-realtime';
    if (type.startsWith('response.')) {
      if (isRealtimeEvent(payload)) return 'openai-realtime';
      const model = str(obj(payload['response'])?.['model']);
      return isGrok(model) ? 'xai-responses' : 'openai-responses';
    }
    if (ANTHROPIC_TYPES.has(type)) {
      if (type === 'ping') return null; // also xAI Realtime's keep-alive: wait for more
      const model = str(obj(payload['message'])?.['model']);
      return isGrok(model) ? 'xai-messages' : 'anthropic-messages';
    }
  }
  if ('candidates' in payload || 'usageMetadata' in payload || 'promptFeedback' in payload) {
    // Live sends usageMetadata next to serverContent; generateContent never has serverContent.
    for (const k of GEMINI_LIVE_KEYS) if (k in payload) return 'gemini-live';
    return 'gemini';
  }
  for (const k of GEMINI_LIVE_KEYS) if (k in payload) return 'gemini-live';
  return null;
}
