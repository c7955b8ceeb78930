/**
 * OpenAI Realtime wire encoder: server events as NDJSON (fixtures/openai-realtime/*):
 * session.created, then per response response.created → output items
 * (message text or audio transcript, function_call arguments) →
 * response.done with status and usage, with session traffic in between.
 * The wire streams no reasoning: reasoning blocks are left out.
 */
import type { Json, JsonObject } from '../../../lib/events.js';
import {
  expectedTools,
  layoutRng,
  noUsage,
  textOf,
  toolsOf,
  type DialectEncoder,
  type ExpectedFinal,
  type GenResponse,
} from './model.js';

const MODEL = 'gpt-realtime';

function statusOf(r: GenResponse): { status: string; reason: string | null } {
  if (r.stop === 'max_tokens') return { status: 'incomplete', reason: 'max_output_tokens' };
  if (r.stop === 'refusal') return { status: 'incomplete', reason: 'content_filter' };
  return { status: 'completed', reason: null };
}

function encodeLog(log: GenResponse[]): Buffer {
  let n = 0;
  let out = '';
  const emit = (type: string, fields: JsonObject): void => {
    n++;
    out += JSON.stringify({ type, event_id: `event_${n}`, ...fields }) + '\n';
  };
  const session = {
    type: 'realtime',
    object: 'realtime.session',
    id: 'sess_P1',
    model: MODEL,
    output_modalities: ['text'],
    audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' } },
  };
  emit('session.created', { session });
  for (const r of log) {
    const pick = layoutRng(r);
    const id = `resp_${r.id}`;
    if (pick() < 0.5) {
      emit('conversation.item.added', {
        previous_item_id: null,
        item: { id: `item_u_${r.id}`, type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      });
    }
    const snapshot = (status: string, output: Json[], extra: JsonObject = {}): JsonObject => ({
      object: 'realtime.response',
      id,
      status,
      status_details: null,
      output,
      conversation_id: 'conv_P1',
      usage: null,
      ...extra,
    });
    emit('response.created', { response: snapshot('in_progress', []) });
    const output: Json[] = [];
    let k = 0;
    for (const b of r.blocks) {
      if (b.kind === 'reasoning') continue;
      const index = k++;
      const itemId = `item_${r.id}_${index}`;
      const at = { response_id: id, item_id: itemId, output_index: index };
      if (b.kind === 'tool') {
        const whole = b.fragments.join('');
        emit('response.output_item.added', {
          response_id: id,
          output_index: index,
          item: { id: itemId, type: 'function_call', status: 'in_progress', name: b.name, call_id: b.id, arguments: '' },
        });
        for (const f of b.fragments) emit('response.function_call_arguments.delta', { ...at, call_id: b.id, delta: f });
        emit('response.function_call_arguments.done', { ...at, call_id: b.id, name: b.name, arguments: whole });
        const item = { id: itemId, type: 'function_call', status: 'completed', name: b.name, call_id: b.id, arguments: whole };
        emit('response.output_item.done', { response_id: id, output_index: index, item });
        output.push(item);
        continue;
      }
      // Text goes out as output text or as an audio transcript (both are visible text).
      const audio = pick() < 0.3;
      const text = b.deltas.join('');
      emit('response.output_item.added', {
        response_id: id,
        output_index: index,
        item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      const part: JsonObject = audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' };
      emit('response.content_part.added', { ...at, content_index: 0, part });
      const deltaType = audio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta';
      for (const d of b.deltas) emit(deltaType, { ...at, content_index: 0, delta: d });
      emit(audio ? 'response.output_audio_transcript.done' : 'response.output_text.done', {
        ...at,
        content_index: 0,
        [audio ? 'transcript' : 'text']: text,
      });
      const donePart: JsonObject = audio ? { type: 'audio', transcript: text } : { type: 'text', text };
      emit('response.content_part.done', { ...at, content_index: 0, part: donePart });
      const item: JsonObject = {
        id: itemId,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }],
      };
      emit('response.output_item.done', { response_id: id, output_index: index, item });
      output.push(item);
    }
    const { status, reason } = statusOf(r);
    const u = r.usage;
    const usage: Json =
      u === null
        ? null
        : {
            total_tokens: u.input + u.output,
            input_tokens: u.input,
            output_tokens: u.output,
            input_token_details: { text_tokens: u.input, audio_tokens: 0, image_tokens: 0, cached_tokens: u.cached },
            output_token_details: { text_tokens: u.output, audio_tokens: 0 },
          };
    emit('response.done', {
      response: snapshot(status, output, { status_details: reason === null ? null : { type: 'incomplete', reason }, usage }),
    });
    if (pick() < 0.5) emit('rate_limits.updated', { rate_limits: [{ name: 'tokens', limit: 15000000, remaining: 14999000, reset_seconds: 0.004 }] });
  }
  return Buffer.from(out, 'utf8');
}

export const openaiRealtimeEncoder: DialectEncoder = {
  label: 'openai-realtime (ndjson)',
  dialect: 'openai-realtime',
  options: { framing: 'ndjson' },
  encode: encodeLog,
  expect(r): ExpectedFinal {
    const { reason } = statusOf(r);
    const u = r.usage;
    return {
      id: `resp_${r.id}`,
      model: MODEL,
      text: textOf(r, 'text'),
      reasoning: '',
      toolCalls: expectedTools(r, true),
      stopReason:
        reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : toolsOf(r).length > 0 ? 'tool_use' : 'end',
      providerReason: reason ?? 'completed',
      usage:
        u === null
          ? noUsage()
          : { inputTokens: u.input, outputTokens: u.output, totalTokens: u.input + u.output, reasoningTokens: null, cachedInputTokens: u.cached },
    };
  },
};
