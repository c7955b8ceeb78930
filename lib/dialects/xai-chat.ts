/**
 * xAI Chat Completions: the OpenAI Chat chunk format (with `reasoning_content`
 * deltas and Live Search's top-level `citations` URL list on the last chunk,
 * handled there too), except that `completion_tokens` EXCLUDES
 * `reasoning_tokens`, so outputTokens = completion + reasoning.
 */
import { isGrok } from './detect.js';
import { chatHandlers, isChatChunk } from './openai-chat.js';
import { defineDialect } from './types.js';

export const xaiChat = defineDialect({
  name: 'xai-chat',
  family: 'chat',
  // A chat chunk naming a grok model (listed before openai-chat, which takes every chunk).
  detect: (payload) => isChatChunk(payload) && isGrok(payload['model']),
  doneSentinel: true,
  createResponse: chatHandlers({ completionExcludesReasoning: true }),
});
