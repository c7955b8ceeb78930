/**
 * Gemini Interactions API wire encoder: `event: <event_type>` + `data:` SSE,
 * interaction.created → status_update → steps (start, deltas, stop) →
 * interaction.completed → `event: done` / `data: [DONE]`
 * (corpus: vercel-ai--function-call, fixtures/gemini-interactions/*).
 */
import type { JsonObject } from '../../../lib/events.js';
import {
  expectedTools,
  layoutRng,
  noUsage,
  sse,
  textOf,
  toolsOf,
  type DialectEncoder,
  type ExpectedFinal,
  type GenResponse,
} from './model.js';

/** completed / requires_action / incomplete (the wire has no refusal status: a refusal ends as completed). */
function statusOf(r: GenResponse): string {
  if (r.stop === 'max_tokens') return 'incomplete';
  return toolsOf(r).length > 0 ? 'requires_action' : 'completed';
}

function encodeResponse(r: GenResponse): string {
  const pick = layoutRng(r);
  const withIds = pick() < 0.5;
  const id = `v1_${r.id}`;
  const model = `gemini-2.5-flash-${r.model}`;
  let n = 0;
  let out = '';
  const emit = (eventType: string, fields: JsonObject): void => {
    const body: JsonObject = { ...fields, event_type: eventType };
    n++;
    if (withIds) body['event_id'] = `e${n}`;
    out += sse(JSON.stringify(body), eventType);
  };
  emit('interaction.created', { interaction: { id, status: 'in_progress', object: 'interaction', model } });
  emit('interaction.status_update', { interaction_id: id, status: 'in_progress' });
  r.blocks.forEach((b, index) => {
    if (b.kind === 'tool') {
      if (pick() < 0.25) {
        // The whole arguments on step.start, no delta.
        emit('step.start', { index, step: { id: b.id, signature: '', type: 'function_call', name: b.name, arguments: b.args } });
      } else {
        emit('step.start', { index, step: { id: b.id, signature: '', type: 'function_call', name: b.name, arguments: {} } });
        for (const f of b.fragments) emit('step.delta', { index, delta: { arguments: f, type: 'arguments_delta' } });
      }
    } else if (b.kind === 'text') {
      emit('step.start', { index, step: { type: 'model_output' } });
      for (const d of b.deltas) emit('step.delta', { index, delta: { text: d, type: 'text' } });
    } else {
      emit('step.start', { index, step: { type: 'thought' } });
      for (const d of b.deltas) emit('step.delta', { index, delta: { content: { type: 'text', text: d }, type: 'thought_summary' } });
      if (b.signature !== '') emit('step.delta', { index, delta: { signature: b.signature, type: 'thought_signature' } });
    }
    emit('step.stop', { index });
  });
  const interaction: JsonObject = { id, status: statusOf(r) };
  const u = r.usage;
  if (u !== null) {
    interaction['usage'] = {
      total_tokens: u.input + u.output,
      total_input_tokens: u.input,
      input_tokens_by_modality: [{ modality: 'text', tokens: u.input }],
      total_cached_tokens: u.cached,
      total_output_tokens: u.output - u.reasoning,
      total_tool_use_tokens: 0,
      total_thought_tokens: u.reasoning,
    };
  }
  interaction['object'] = 'interaction';
  interaction['model'] = model;
  emit('interaction.completed', { interaction });
  return out + sse('[DONE]', 'done');
}

function expectInteractions(r: GenResponse): ExpectedFinal {
  const status = statusOf(r);
  const signatures: string[] = [];
  for (const b of r.blocks) if (b.kind === 'reasoning' && b.signature !== '') signatures.push(b.signature);
  return {
    id: `v1_${r.id}`,
    model: `gemini-2.5-flash-${r.model}`,
    text: textOf(r, 'text'),
    reasoning: textOf(r, 'reasoning'),
    toolCalls: expectedTools(r, true),
    stopReason: status === 'incomplete' ? 'max_tokens' : status === 'requires_action' ? 'tool_use' : 'end',
    providerReason: status,
    usage:
      r.usage === null
        ? noUsage()
        : {
            inputTokens: r.usage.input,
            outputTokens: r.usage.output,
            totalTokens: r.usage.input + r.usage.output,
            reasoningTokens: r.usage.reasoning,
            cachedInputTokens: r.usage.cached,
          },
    signatures,
  };
}

export const geminiInteractionsEncoder: DialectEncoder = {
  label: 'gemini-interactions',
  dialect: 'gemini-interactions',
  options: {},
  encode: (log) => Buffer.from(log.map(encodeResponse).join(''), 'utf8'),
  expect: expectInteractions,
};
