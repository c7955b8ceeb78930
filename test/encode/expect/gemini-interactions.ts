/** What the gemini-interactions target carries (lib/encode/targets/gemini-interactions.ts), as its tests expect it. */
import type { FinalResult } from '../../../lib/accumulate/types.js';
import { isObject } from '../../../lib/dialects/helpers.js';
import type { Json, StopReason, Usage } from '../../../lib/events.js';
import { contentLosses, view, type TargetExpectation } from '../../helpers/encode.js';

const sameFamily = (d: string | null): boolean => d === 'gemini-interactions';

/** Arguments that stream as they are: an object, or JSON text of one cut short; anything else is wrapped as {"input": …}. */
const wrapped = (a: Json): boolean => !isObject(a) && !(typeof a === 'string' && /^\s*\{/.test(a));

/** Statuses of the family that read as `other` (written as they came). */
const OTHER_STATUSES = new Set(['cancelled', 'requires_continuation', 'in_progress']);

const sum = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

/** The stop reason read back: the status written (completed / requires_action / incomplete / failed). */
function stopBack(f: FinalResult, calls: number): StopReason {
  switch (f.stopReason) {
    case 'end':
    case 'tool_use':
      return calls > 0 ? 'tool_use' : 'end';
    case 'other':
      return sameFamily(f.dialect) && f.providerReason !== null && OTHER_STATUSES.has(f.providerReason) ? 'other' : 'end';
    case 'refusal':
      return 'end';
    default:
      return f.stopReason;
  }
}

const NO_USAGE: Usage = { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };

function usageBack(f: FinalResult): Usage {
  const u = view(f).usage; // the token counts (no wire carries a transcription's billed seconds)
  if (sameFamily(f.dialect)) return u;
  // an error event has no place for the usage
  if (f.stopReason === 'error') return NO_USAGE;
  if (u.inputTokens === null && u.outputTokens === null && u.totalTokens === null && u.cachedInputTokens === null && u.reasoningTokens === null) return u;
  // total_thought_tokens goes out only with an output count it is part of
  const reasoningTokens = u.outputTokens === null ? null : u.reasoningTokens;
  return { ...u, reasoningTokens, totalTokens: u.totalTokens ?? sum(u.inputTokens, u.outputTokens) };
}

export const geminiInteractions: TargetExpectation = {
  readAs: 'gemini-interactions',
  sameFamily,
  expected(f) {
    const v = view(f);
    // no refusal channel: refusal text is text, in stream order
    v.text = f.content.map((b) => (b.type === 'text' || b.type === 'refusal' ? b.text : '')).join('');
    v.refusal = null;
    if (v.toolCalls.some((c) => wrapped(c.arguments))) {
      v.toolCalls = v.toolCalls.map((c) => (wrapped(c.arguments) ? { ...c, arguments: { input: c.arguments } } : c));
      if (!v.toolCalls.some((c) => typeof c.arguments === 'string')) v.errors = v.errors.filter((e) => e !== 'invalid_tool_arguments');
    }
    v.stopReason = stopBack(f, v.toolCalls.length);
    v.usage = usageBack(f);
    return v;
  },
  mustReport(f) {
    const same = sameFamily(f.dialect);
    // the family's own server tool steps and results are written as such
    const kinds = contentLosses(f, { providerCalls: same, citations: true });
    if (same) kinds.delete('tool_result');
    // audio deltas carry; image files carry, other files do not
    kinds.delete('audio');
    if (!f.content.some((b) => b.type === 'file' && b.mimeType !== null && !b.mimeType.startsWith('image/'))) kinds.delete('file');
    if (f.toolCalls.some((c) => wrapped(c.arguments))) kinds.add('tool_input');
    if (f.signatures.some((s) => !same || s.kind !== 'thought_signature')) kinds.add('signature');
    if (!same && f.citations.some((c) => c.citedText !== undefined)) kinds.add('citation');
    if (f.stopReason === 'refusal' || (f.stopReason === 'other' && stopBack(f, f.toolCalls.length) !== 'other')) kinds.add('stop_reason');
    if (f.stopReason === 'tool_use' && f.toolCalls.length === 0) kinds.add('stop_reason');
    if (f.choices !== undefined && f.choices.length > 1) kinds.add('choice');
    if (!same && f.stopReason === 'error' && Object.values(f.usage).some((n) => n !== null)) kinds.add('usage');
    return [...kinds];
  },
};
