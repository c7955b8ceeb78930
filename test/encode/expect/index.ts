/** Every target's expectations: a target without an entry here does not compile. */
import type { TargetName } from '../../../lib/encode/types.js';
import type { TargetExpectation } from '../../helpers/encode.js';
import { aiSdkUi } from './ai-sdk-ui.js';
import { anthropicMessages } from './anthropic-messages.js';
import { gemini, geminiJsonArray } from './gemini.js';
import { geminiInteractions } from './gemini-interactions.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';

export const EXPECTATIONS: Record<TargetName, TargetExpectation> = {
  'openai-chat': openaiChat,
  'anthropic-messages': anthropicMessages,
  'ai-sdk-ui': aiSdkUi,
  'openai-responses': openaiResponses,
  gemini,
  'gemini-json-array': geminiJsonArray,
  'gemini-interactions': geminiInteractions,
};
