/** What the anthropic-messages target carries (lib/encode/targets/anthropic-messages.ts), as its tests expect it. */
import type { Json, Usage } from '../../../lib/events.js';
import { contentLosses, view, type TargetExpectation } from '../../helpers/encode.js';

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, reasoningTokens: null, cachedInputTokens: null };
/** Arguments that were text, not JSON, from the start (not a JSON object cut short). */
const isFreeform = (a: Json): a is string => typeof a === 'string' && !/^\s*\{/.test(a);
const sameFamily = (d: string | null): boolean => d === 'anthropic-messages' || d === 'xai-messages';

export const anthropicMessages: TargetExpectation = {
  readAs: 'anthropic-messages',
  sameFamily,
  expected(f) {
    const v = view(f);
    // refusal text is written as text, in stream order
    v.text = f.content.map((b) => (b.type === 'text' || b.type === 'refusal' ? b.text : '')).join('');
    v.refusal = null;
    // free-form input (an OpenAI custom tool) is wrapped as an object: input must be JSON here
    if (v.toolCalls.some((c) => isFreeform(c.arguments))) {
      v.toolCalls = v.toolCalls.map((c) => (isFreeform(c.arguments) ? { ...c, arguments: { input: c.arguments } } : c));
      // …which is valid JSON when read back
      if (!v.toolCalls.some((c) => typeof c.arguments === 'string')) v.errors = v.errors.filter((e) => e !== 'invalid_tool_arguments');
    }
    if (v.stopReason === 'other' && !sameFamily(f.dialect)) v.stopReason = 'end';
    const u = v.usage; // the token counts (view leaves out billed seconds, which no wire carries)
    if (v.stopReason === 'error' || Object.values(u).every((n) => n === null)) v.usage = ZERO;
    else {
      // numbers only, and no total on this wire: unknown input or output counts are written as 0 (and
      // reported), the reader adds input and output
      const inputTokens = u.inputTokens ?? 0;
      const outputTokens = u.outputTokens ?? 0;
      v.usage = { ...u, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
    }
    return v;
  },
  mustReport(f) {
    const same = sameFamily(f.dialect);
    const kinds = contentLosses(f, { providerCalls: same, citations: same });
    if (f.toolCalls.some((c) => isFreeform(c.arguments))) kinds.add('tool_input');
    return [...kinds];
  },
};
