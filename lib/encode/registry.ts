/** The target wires an encoder writes: one file each, one line here. */
import { anthropicMessagesTarget } from './targets/anthropic-messages.js';
import { openaiChatTarget } from './targets/openai-chat.js';

export const TARGETS = [openaiChatTarget, anthropicMessagesTarget] as const;

export type TargetNameOf = (typeof TARGETS)[number]['name'];

export const targetNames: readonly TargetNameOf[] = TARGETS.map((t) => t.name);
