/** xAI realtime (`wss://api.x.ai/v1/realtime`): OpenAI's Realtime vocabulary, same mapping (its input audio transcription, `grok-transcribe`, included). */
import { isGrok } from './detect.js';
import { obj, str } from './helpers.js';
import { createRealtimeResponse } from './openai-realtime.js';
import { defineDialect } from './types.js';

export const xaiRealtime = defineDialect({
  name: 'xai-realtime',
  family: 'realtime',
  // OpenAI's vocabulary (listed before openai-realtime): told by the model, or xAI-only habits.
  detect(payload) {
    const type = str(payload['type']);
    if (type === 'session.created' || type === 'session.updated') return isGrok(obj(payload['session'])?.['model']);
    if (type === 'conversation.created') {
      // OpenAI's (beta) conversation.created has an `event_…` id; xAI's ids are UUIDs.
      const id = str(payload['event_id']);
      return id !== undefined && !id.startsWith('event_');
    }
    // xAI's keep-alive carries an event_id and a timestamp; Anthropic's ping is bare.
    return type === 'ping' && ('event_id' in payload || 'timestamp' in payload);
  },
  readsClientMessages: true,
  session: true,
  createResponse: createRealtimeResponse,
});
