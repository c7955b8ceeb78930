/**
 * xAI Chat Completions: the OpenAI Chat chunk format (with `reasoning_content`
 * deltas, handled there too), except that `completion_tokens` EXCLUDES
 * `reasoning_tokens`, so outputTokens = completion + reasoning.
 */
import { createChatDialect } from './openai-chat.js';

export const xaiChat = createChatDialect('xai-chat', { completionExcludesReasoning: true });
