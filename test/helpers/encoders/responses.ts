/**
 * OpenAI / xAI Responses API wire encoder: `event: <type>` + `data:` SSE with
 * `sequence_number` from 0, output items (reasoning summary, message,
 * function_call) and a response.completed / response.incomplete terminal;
 * no `[DONE]` (corpus: pydantic-ai--reasoning-summary, xai-responses/*).
 */
import type { Json, JsonObject } from '../../../lib/events.js';
import {
  expectedTools,
  fullUsage,
  layoutRng,
  noUsage,
  sse,
  textOf,
  toolsOf,
  type DialectEncoder,
  type ExpectedFinal,
  type GenResponse,
} from './model.js';

type Flavor = 'openai-responses' | 'xai-responses';

function modelOf(flavor: Flavor, r: GenResponse): string {
  return flavor === 'xai-responses' ? `grok-4-fast-${r.model}` : `gpt-5-${r.model}`;
}

/** The terminal event type and, for response.incomplete, its reason. */
function terminalOf(r: GenResponse): { type: string; reason: string | null } {
  if (r.stop === 'max_tokens') return { type: 'response.incomplete', reason: 'max_output_tokens' };
  if (r.stop === 'refusal') return { type: 'response.incomplete', reason: 'content_filter' };
  return { type: 'response.completed', reason: null };
}

function encodeResponse(flavor: Flavor, r: GenResponse): string {
  const pick = layoutRng(r);
  const model = modelOf(flavor, r);
  const id = `resp_${r.id}`;
  let seq = 0;
  let out = '';
  const emit = (type: string, fields: JsonObject): void => {
    // xAI puts sequence_number first, OpenAI type first: both orders occur on the wire.
    const body = flavor === 'xai-responses' ? { sequence_number: seq, type, ...fields } : { type, sequence_number: seq, ...fields };
    seq++;
    out += sse(JSON.stringify(body), type);
  };
  const snapshot = (status: string, output: Json[], extra: JsonObject = {}): JsonObject => ({
    id,
    object: 'response',
    created_at: flavor === 'xai-responses' ? 0 : 1758034836,
    status,
    model,
    output,
    usage: null,
    ...extra,
  });
  emit('response.created', { response: snapshot('in_progress', []) });
  emit('response.in_progress', { response: snapshot('in_progress', []) });
  const output: Json[] = [];
  r.blocks.forEach((b, k) => {
    if (b.kind === 'reasoning') {
      const itemId = `rs_${r.id}_${k}`;
      emit('response.output_item.added', { output_index: k, item: { id: itemId, type: 'reasoning', summary: [] } });
      emit('response.reasoning_summary_part.added', {
        item_id: itemId,
        output_index: k,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      for (const d of b.deltas) {
        emit('response.reasoning_summary_text.delta', { item_id: itemId, output_index: k, summary_index: 0, delta: d });
      }
      const text = b.deltas.join('');
      emit('response.reasoning_summary_text.done', { item_id: itemId, output_index: k, summary_index: 0, text });
      const item: JsonObject = { id: itemId, type: 'reasoning', summary: [{ type: 'summary_text', text }] };
      if (b.signature !== '') item['encrypted_content'] = b.signature;
      emit('response.output_item.done', { output_index: k, item });
      output.push(item);
    } else if (b.kind === 'text') {
      const itemId = `msg_${r.id}_${k}`;
      emit('response.output_item.added', {
        output_index: k,
        item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      emit('response.content_part.added', {
        item_id: itemId,
        output_index: k,
        content_index: 0,
        part: { type: 'output_text', annotations: [], text: '' },
      });
      for (const d of b.deltas) {
        emit('response.output_text.delta', { item_id: itemId, output_index: k, content_index: 0, delta: d, logprobs: [] });
      }
      const text = b.deltas.join('');
      emit('response.output_text.done', { item_id: itemId, output_index: k, content_index: 0, text, logprobs: [] });
      const part = { type: 'output_text', annotations: [], text };
      emit('response.content_part.done', { item_id: itemId, output_index: k, content_index: 0, part });
      const item: JsonObject = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
      emit('response.output_item.done', { output_index: k, item });
      output.push(item);
    } else if (b.kind === 'tool') {
      const itemId = `fc_${r.id}_${k}`;
      const whole = b.fragments.join('');
      emit('response.output_item.added', {
        output_index: k,
        item: { id: itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: b.id, name: b.name },
      });
      // xAI sends the whole JSON in one delta; OpenAI streams fragments.
      const fragments = flavor === 'xai-responses' ? [whole] : b.fragments;
      for (const f of fragments) emit('response.function_call_arguments.delta', { item_id: itemId, output_index: k, delta: f });
      emit('response.function_call_arguments.done', { item_id: itemId, output_index: k, arguments: whole });
      const item: JsonObject = { id: itemId, type: 'function_call', status: 'completed', arguments: whole, call_id: b.id, name: b.name };
      emit('response.output_item.done', { output_index: k, item });
      output.push(item);
    }
  });
  const u = r.usage;
  const usage: Json =
    u === null
      ? null
      : {
          input_tokens: u.input,
          input_tokens_details: { cached_tokens: u.cached },
          output_tokens: u.output,
          output_tokens_details: { reasoning_tokens: u.reasoning },
          total_tokens: u.input + u.output,
        };
  const { type, reason } = terminalOf(r);
  const status = reason === null ? 'completed' : 'incomplete';
  const extra: JsonObject = { usage, incomplete_details: reason === null ? null : { reason } };
  if (pick() < 0.5) extra['error'] = null;
  emit(type, { response: snapshot(status, output, extra) });
  return out;
}

function expectResponses(flavor: Flavor, r: GenResponse): ExpectedFinal {
  const { reason } = terminalOf(r);
  const stopReason =
    reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : toolsOf(r).length > 0 ? 'tool_use' : 'end';
  const signatures: string[] = [];
  for (const b of r.blocks) if (b.kind === 'reasoning' && b.signature !== '') signatures.push(b.signature);
  return {
    id: `resp_${r.id}`,
    model: modelOf(flavor, r),
    text: textOf(r, 'text'),
    reasoning: textOf(r, 'reasoning'),
    toolCalls: expectedTools(r, true),
    stopReason,
    providerReason: reason ?? 'completed',
    usage: r.usage === null ? noUsage() : fullUsage(r.usage),
    signatures,
  };
}

function responsesEncoder(flavor: Flavor): DialectEncoder {
  return {
    label: flavor,
    dialect: flavor,
    options: {},
    encode: (log) => Buffer.from(log.map((r) => encodeResponse(flavor, r)).join(''), 'utf8'),
    expect: (r) => expectResponses(flavor, r),
  };
}

export const openaiResponsesEncoder = responsesEncoder('openai-responses');
export const xaiResponsesEncoder = responsesEncoder('xai-responses');
