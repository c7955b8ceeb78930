/** What the openai-chat target carries (lib/encode/targets/openai-chat.ts), as its tests expect it. */
import { contentLosses, view, type TargetExpectation } from '../../helpers/encode.js';

export const openaiChat: TargetExpectation = {
  readAs: 'openai-chat',
  sameFamily: (d) => d === 'openai-chat' || d === 'xai-chat',
  expected(f) {
    const v = view(f);
    v.reasoning = '';
    if (v.stopReason === 'other') v.stopReason = 'end';
    // the Chat reader reports a finish_reason 'stop' with tool calls as tool_use
    if (v.stopReason === 'end' && v.toolCalls.length > 0) v.stopReason = 'tool_use';
    return v;
  },
  mustReport(f) {
    const kinds = contentLosses(f, { providerCalls: false, citations: false });
    if (f.reasoning !== '') kinds.add('reasoning');
    return [...kinds];
  },
};
