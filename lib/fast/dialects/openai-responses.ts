/**
 * OpenAI / xAI Responses fast path: the streamed deltas (output text,
 * refusal, reasoning summary and reasoning text, tool-call arguments, code
 * interpreter code), e.g.
 * `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_…","output_index":1,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"…"}`.
 * Key orders differ between providers (and between OpenAI's own event kinds):
 * templates are learned in whatever order arrives. Keys the handler does not
 * read (item_id of text deltas, logprobs, obfuscation, any new one) are free.
 */
import type { JsonObject } from '../../events.js';
import type { ResponsesResponse } from '../../dialects/openai-responses.js';
import type { FastDialect } from '../registry.js';
import { TemplateBuilder, type Template } from '../template.js';

const TEXT = 1;
const REFUSAL = 2;
const REASONING = 3;
const FUNCTION_ARGS = 4;
const CUSTOM_INPUT = 5;
const MCP_ARGS = 6;
/** Code interpreter code (raw code, escaped into the call's JSON arguments by the handler). */
const CODE = 7;

const F_SEQ = 0;
const F_OUTPUT = 1;
/** content_index, or summary_index for reasoning summaries. */
const F_POSITION = 2;
const F_DELTA = 3;
/** item_id (tool-call deltas only). */
const F_ITEM = 4;

/** A Map: a wire `type` such as "toString" is no key of a plain object. */
const KINDS = new Map<string, [number, string | null]>([
  ['response.output_text.delta', [TEXT, 'content_index']],
  ['response.refusal.delta', [REFUSAL, 'content_index']],
  ['response.reasoning_summary_text.delta', [REASONING, 'summary_index']],
  ['response.reasoning_text.delta', [REASONING, 'content_index']],
  ['response.function_call_arguments.delta', [FUNCTION_ARGS, null]],
  ['response.custom_tool_call_input.delta', [CUSTOM_INPUT, null]],
  ['response.mcp_call_arguments.delta', [MCP_ARGS, null]],
  ['response.code_interpreter_call_code.delta', [CODE, null]],
]);

function learnResponsesTemplate(p: JsonObject): Template | null {
  const type = p['type'];
  const spec = typeof type === 'string' ? KINDS.get(type) : undefined;
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

/**
 * What onPayload → dispatch does for a delta a template recognised, decided
 * before any state changes; false for what ends up raw (or would open a call).
 */
export const responsesFast: FastDialect<ResponsesResponse> = {
  learnTemplate: learnResponsesTemplate,
  onTemplate(h, m, ctx) {
    if (!h.started) return false;
    if (!m.filled(F_DELTA)) return false;
    const kind = m.kind;
    if (kind === FUNCTION_ARGS || kind === CUSTOM_INPUT || kind === MCP_ARGS || kind === CODE) {
      const call = h.findCall(m.str(F_ITEM), m.int(F_OUTPUT));
      if (call === undefined || call.done) return false; // an orphan opens a call: left to the parse path
      h.sequence(m.int(F_SEQ));
      if (kind === CODE) h.codeDelta(call, m.str(F_DELTA)!);
      else h.argsDelta(call, m.str(F_DELTA)!);
      return true;
    }
    if (kind !== TEXT && kind !== REFUSAL && kind !== REASONING) return false;
    const index = m.int(F_OUTPUT) ?? 0;
    const contentIndex = m.int(F_POSITION);
    h.sequence(m.int(F_SEQ));
    // a text or reasoning delta may go straight to a fused final accumulator, as its wire bytes
    if (kind !== REFUSAL && ctx.takeText(kind === REASONING, index, contentIndex ?? -1, m, F_DELTA)) return true;
    h.textDelta(kind === REASONING, index, contentIndex, m.str(F_DELTA)!, kind === REFUSAL);
    return true;
  },
};
