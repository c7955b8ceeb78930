/**
 * xAI's deprecated Anthropic-compatible `/v1/messages`: Anthropic's event
 * names, no `ping`, and two quirks the shared handler already absorbs — the
 * text block reuses index 0 after the thinking block stopped (it gets a fresh
 * unified index), and deltas may carry no `index` (they belong to the most
 * recently started open block).
 */
import { createMessagesResponse, isMessagesEvent } from './anthropic-messages.js';
import { isGrok } from './detect.js';
import { obj } from './helpers.js';
import { defineDialect } from './types.js';

export const xaiMessages = defineDialect({
  name: 'xai-messages',
  family: 'messages',
  // A Messages event whose message names a grok model (listed before anthropic-messages).
  detect: (payload) => isMessagesEvent(payload) && isGrok(obj(payload['message'])?.['model']),
  createResponse: createMessagesResponse,
});
