/**
 * What the ai-sdk-ui target carries (lib/encode/targets/ai-sdk-ui.ts), as its tests expect it. No
 * dialect of ours reads this wire (`readBack: false`): test/encode/sdk-ai-sdk-ui.test.ts reads it
 * back with the `ai` package's own readUIMessageStream instead.
 */
import type { FinalResult } from '../../../lib/accumulate/types.js';
import type { LossKind } from '../../../lib/encode/types.js';
import { view, type TargetExpectation } from '../../helpers/encode.js';

const sameFamily = (d: string | null): boolean => d === 'anthropic-messages' || d === 'xai-messages';

/** The ids of the calls a final shows (a result can only attach to one of them). */
const callIds = (f: FinalResult): Set<string> => new Set(f.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : [])));

export const aiSdkUi: TargetExpectation = {
  readBack: false,
  sameFamily,
  expected(f) {
    const v = view(f);
    // refusal text is written as text, in stream order (finishReason content-filter)
    v.text = f.content.map((b) => (b.type === 'text' || b.type === 'refusal' ? b.text : '')).join('');
    v.refusal = null;
    // everything else carries: reasoning parts, tool parts (inputs as the final parses them), every stop
    // reason has a FinishReason, the usage rides in finish.messageMetadata.usage with unknowns left out
    return v;
  },
  mustReport(f) {
    const kinds = new Set<LossKind>();
    const ids = callIds(f);
    // a result whose call the response never showed has no tool part to attach to
    if (f.content.some((b) => b.type === 'tool_result' && !ids.has(b.id))) kinds.add('tool_result');
    // source parts have a URL or a title: the cited text and range are not carried
    if (f.citations.some((c) => c.citedText !== undefined || c.start !== undefined || c.end !== undefined)) kinds.add('citation');
    // signatures ride in providerMetadata.anthropic, from the Anthropic family only
    if (f.signatures.some((s) => !sameFamily(f.dialect) || s.kind === 'thought_signature' || s.kind === 'encrypted_content')) kinds.add('signature');
    if (f.audio !== null) kinds.add('audio');
    if ((f.choices?.length ?? 0) > 1) kinds.add('choice');
    return [...kinds];
  },
};
