/**
 * OpenAI / xAI Responses fast path: the streamed deltas (output text,
 * refusal, reasoning summary and reasoning text, tool-call arguments), e.g.
 * `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_…","output_index":1,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"…"}`.
 * Key orders differ between providers (and between OpenAI's own event kinds):
 * templates are learned in whatever order arrives. Keys the handler does not
 * read (item_id of text deltas, logprobs, obfuscation, any new one) are free.
 */
import type { JsonObject } from '../../events.js';
import { TemplateBuilder, type Template } from '../template.js';

export const TEXT = 1;
export const REFUSAL = 2;
export const REASONING = 3;
export const FUNCTION_ARGS = 4;
export const CUSTOM_INPUT = 5;
export const MCP_ARGS = 6;

export const F_SEQ = 0;
export const F_OUTPUT = 1;
/** content_index, or summary_index for reasoning summaries. */
export const F_POSITION = 2;
export const F_DELTA = 3;
/** item_id (tool-call deltas only). */
export const F_ITEM = 4;

const KINDS: Record<string, [number, string | null]> = {
  'response.output_text.delta': [TEXT, 'content_index'],
  'response.refusal.delta': [REFUSAL, 'content_index'],
  'response.reasoning_summary_text.delta': [REASONING, 'summary_index'],
  'response.reasoning_text.delta': [REASONING, 'content_index'],
  'response.function_call_arguments.delta': [FUNCTION_ARGS, null],
  'response.custom_tool_call_input.delta': [CUSTOM_INPUT, null],
  'response.mcp_call_arguments.delta': [MCP_ARGS, null],
};

export function learnResponsesTemplate(p: JsonObject): Template | null {
  const type = p['type'];
  const spec = typeof type === 'string' ? KINDS[type] : undefined;
  if (spec === undefined || typeof p['delta'] !== 'string') return null;
  const [kind, positionKey] = spec;
  const b = new TemplateBuilder(kind).open();
  for (const k in p) {
    const v = p[k];
    if (k === 'type') b.key(k).constant(v);
    else if (k === 'sequence_number') b.key(k).int(F_SEQ, v);
    else if (k === 'output_index') b.key(k).int(F_OUTPUT, v);
    else if (k === 'delta') b.key(k).string(F_DELTA, v);
    else if (positionKey !== null && k === positionKey) b.key(k).int(F_POSITION, v);
    else if (positionKey === null && k === 'item_id') b.key(k).string(F_ITEM, v);
    else b.key(k).free(v);
    if (b.failed) return null;
  }
  return b.close().build();
}
