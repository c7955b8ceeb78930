/** Every wire encoder of the round-trip property tests, one per dialect and framing. */
import { openaiChatEncoder, xaiChatEncoder } from './chat.js';
import { geminiJsonArrayEncoder, geminiSseEncoder, geminiVertexEncoder } from './gemini.js';
import { geminiInteractionsEncoder } from './interactions.js';
import { geminiLiveEncoder } from './live.js';
import { anthropicMessagesEncoder, xaiMessagesEncoder } from './messages.js';
import type { DialectEncoder } from './model.js';
import { openaiRealtimeEncoder } from './realtime.js';
import { openaiResponsesEncoder, xaiResponsesEncoder } from './responses.js';

export const encoders: DialectEncoder[] = [
  openaiChatEncoder,
  xaiChatEncoder,
  openaiResponsesEncoder,
  xaiResponsesEncoder,
  anthropicMessagesEncoder,
  xaiMessagesEncoder,
  geminiSseEncoder,
  geminiJsonArrayEncoder,
  geminiVertexEncoder,
  geminiInteractionsEncoder,
  geminiLiveEncoder,
  openaiRealtimeEncoder,
];
