/** What the openai-responses target carries (lib/encode/targets/openai-responses.ts), as its tests expect it. */
import type { FinalResult } from '../../../lib/accumulate/types.js';
import { contentLosses, view, type TargetExpectation } from '../../helpers/encode.js';

const sameFamily = (d: string | null): boolean => d === 'openai-responses' || d === 'xai-responses';

/** A stop reason `other` the target writes as response.incomplete with the family's own reason (else completed). */
const keepsOther = (f: FinalResult): boolean =>
  sameFamily(f.dialect) && f.providerReason !== null && f.providerReason !== 'completed' && f.providerReason !== 'cancelled';

export const openaiResponses: TargetExpectation = {
  readAs: 'openai-responses',
  sameFamily,
  expected(f) {
    const v = view(f);
    // the reader says tool_use when a client call is in the output, and only then
    if (v.stopReason === 'end' && v.toolCalls.length > 0) v.stopReason = 'tool_use';
    if (v.stopReason === 'tool_use' && v.toolCalls.length === 0) v.stopReason = 'end';
    if (v.stopReason === 'other' && !keepsOther(f)) v.stopReason = v.toolCalls.length > 0 ? 'tool_use' : 'end';
    return v;
  },
  mustReport(f) {
    const same = sameFamily(f.dialect);
    // hosted calls from the family are written as their own items (with their results and images); xAI's
    // server-side custom_tool_call items are not, and are checked in sdk-openai-responses.test.ts
    const hostedItems = same;
    const kinds = contentLosses(f, { providerCalls: hostedItems, citations: true });
    if (hostedItems) {
      kinds.delete('tool_result');
      kinds.delete('file');
    }
    if (f.signatures.some((s) => !same || s.kind !== 'encrypted_content')) kinds.add('signature');
    if (!same && f.citations.some((c) => c.url === undefined)) kinds.add('citation');
    if (f.stopReason === 'tool_use' && f.toolCalls.length === 0) kinds.add('stop_reason');
    if (f.stopReason === 'other' && !keepsOther(f)) kinds.add('stop_reason');
    return [...kinds];
  },
};
