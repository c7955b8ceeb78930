/**
 * xAI's deprecated Anthropic-compatible `/v1/messages`: Anthropic's event
 * names, no `ping`, and two quirks the shared handler already absorbs — the
 * text block reuses index 0 after the thinking block stopped (it gets a fresh
 * unified index), and deltas may carry no `index` (they belong to the most
 * recently started open block).
 */
import { createMessagesResponse } from './anthropic-messages.js';
import type { DialectDefinition } from './types.js';

export const xaiMessages: DialectDefinition = {
  name: 'xai-messages',
  createResponse: createMessagesResponse,
};
