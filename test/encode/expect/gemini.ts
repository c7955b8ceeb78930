/** What the gemini and gemini-json-array targets carry (lib/encode/targets/gemini.ts), as their tests expect it. */
import type { FinalResult } from '../../../lib/accumulate/types.js';
import { isObject } from '../../../lib/dialects/helpers.js';
import type { Json, Usage } from '../../../lib/events.js';
import { contentLosses, view, type TargetExpectation } from '../../helpers/encode.js';

const sameFamily = (d: string | null): boolean => d === 'gemini' || d === 'gemini-live';

/** functionCall.args is an object: anything else is wrapped as {"input": …}. */
const wrapped = (a: Json): boolean => !isObject(a);

const sum = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

/** The usage read back from what the target writes (generateContent's own usageMetadata is written as it came). */
export function geminiUsageBack(f: FinalResult): Usage {
  const u = f.usage;
  if (f.dialect === 'gemini') return u;
  // thoughtsTokenCount is written only with an output count it is part of
  const reasoningTokens = u.outputTokens === null ? null : u.reasoningTokens;
  // no count known is no usage (as Vertex's {trafficType}-only chunks)
  if (u.inputTokens === null && u.outputTokens === null && u.totalTokens === null) {
    return { inputTokens: null, outputTokens: null, totalTokens: null, reasoningTokens: null, cachedInputTokens: null };
  }
  return { ...u, reasoningTokens, totalTokens: u.totalTokens ?? sum(u.inputTokens, u.outputTokens) };
}

export const gemini: TargetExpectation = {
  readAs: 'gemini',
  sameFamily,
  expected(f) {
    const v = view(f);
    // Gemini has no refusal channel: refusal text is text, in stream order
    v.text = f.content.map((b) => (b.type === 'text' || b.type === 'refusal' ? b.text : '')).join('');
    v.refusal = null;
    if (v.toolCalls.some((c) => wrapped(c.arguments))) {
      v.toolCalls = v.toolCalls.map((c) => (wrapped(c.arguments) ? { ...c, arguments: { input: c.arguments } } : c));
    }
    // every call written is an object: arguments cut short or not JSON are wrapped, no longer invalid
    v.errors = v.errors.filter((e) => e !== 'invalid_tool_arguments');
    // STOP is read as tool_use when a client call is in the candidate, else end
    if (v.stopReason === 'end' || v.stopReason === 'tool_use') v.stopReason = v.toolCalls.length > 0 ? 'tool_use' : 'end';
    v.usage = geminiUsageBack(f);
    return v;
  },
  mustReport(f) {
    const same = sameFamily(f.dialect);
    // generateContent's own hosted calls and results go out as the parts they came in
    const kinds = contentLosses(f, { providerCalls: f.dialect === 'gemini', citations: true });
    // citationSources hold a uri, a title and offsets: another family's cited text, or a source without a uri, is lost
    if (f.dialect !== 'gemini' && f.citations.some((c) => c.citedText !== undefined || (c.url === undefined && c.source !== undefined))) kinds.add('citation');
    if (f.dialect === 'gemini') kinds.delete('tool_result');
    // files are inlineData parts; audio too when typed audio/…
    kinds.delete('file');
    if (f.audio !== null && f.audio.mimeType !== null && f.audio.mimeType.startsWith('audio/')) kinds.delete('audio');
    if (f.toolCalls.some((c) => wrapped(c.arguments))) kinds.add('tool_input');
    if (f.signatures.some((s) => !same || s.kind !== 'thought_signature')) kinds.add('signature');
    return [...kinds];
  },
};

/** The same chunks in the JSON-array framing. */
export const geminiJsonArray: TargetExpectation = { ...gemini };
