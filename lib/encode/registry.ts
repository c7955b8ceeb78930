/** The target wires an encoder writes: one file each, one line here. */
import { aiSdkUiTarget } from './targets/ai-sdk-ui.js';
import { anthropicMessagesTarget } from './targets/anthropic-messages.js';
import { geminiJsonArrayTarget, geminiTarget } from './targets/gemini.js';
import { geminiInteractionsTarget } from './targets/gemini-interactions.js';
import { openaiChatTarget } from './targets/openai-chat.js';
import { openaiResponsesTarget } from './targets/openai-responses.js';

export const TARGETS = [openaiChatTarget, anthropicMessagesTarget, aiSdkUiTarget, openaiResponsesTarget, geminiTarget, geminiJsonArrayTarget, geminiInteractionsTarget] as const;

export type TargetNameOf = (typeof TARGETS)[number]['name'];

export const targetNames: readonly TargetNameOf[] = TARGETS.map((t) => t.name);
