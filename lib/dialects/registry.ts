/** Dialect name → definition. One file per dialect. */
import type { DialectName } from '../events.js';
import type { DialectDefinition } from './types.js';
import { anthropicMessages } from './anthropic-messages.js';
import { gemini } from './gemini.js';
import { geminiInteractions } from './gemini-interactions.js';
import { geminiLive } from './gemini-live.js';
import { openaiChat } from './openai-chat.js';
import { openaiRealtime } from './openai-realtime.js';
import { openaiResponses } from './openai-responses.js';
import { xaiChat } from './xai-chat.js';
import { xaiMessages } from './xai-messages.js';
import { xaiRealtime } from './xai-realtime.js';
import { xaiResponses } from './xai-responses.js';

export const dialects: Record<DialectName, DialectDefinition> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  'anthropic-messages': anthropicMessages,
  'xai-chat': xaiChat,
  'xai-responses': xaiResponses,
  'xai-messages': xaiMessages,
  gemini,
  'gemini-interactions': geminiInteractions,
  'gemini-live': geminiLive,
  'openai-realtime': openaiRealtime,
  'xai-realtime': xaiRealtime,
};

export const dialectNames = Object.keys(dialects) as DialectName[];
