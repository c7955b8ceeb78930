/**
 * Anthropic Messages / xAI Messages wire encoder: `event:` + `data:` SSE,
 * message_start → content blocks (start, deltas, stop) → message_delta →
 * message_stop (corpus: pydantic-ai--thinking-signature-text; xAI per
 * fixtures/xai-messages: no ping, index 0 reused for every block, deltas
 * without `index`).
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

type Flavor = 'anthropic-messages' | 'xai-messages';

function modelOf(flavor: Flavor, r: GenResponse): string {
  return flavor === 'xai-messages' ? `grok-4.3-${r.model}` : `claude-sonnet-4-${r.model}`;
}

function stopReasonOf(r: GenResponse): string {
  if (r.stop === 'max_tokens') return 'max_tokens';
  if (r.stop === 'refusal') return 'refusal';
  return toolsOf(r).length > 0 ? 'tool_use' : 'end_turn';
}

function encodeResponse(flavor: Flavor, r: GenResponse): string {
  const pick = layoutRng(r);
  const xai = flavor === 'xai-messages';
  let out = '';
  const emit = (type: string, fields: JsonObject): void => {
    out += sse(JSON.stringify({ type, ...fields }), type);
  };
  const ping = (): void => {
    // Anthropic pings anywhere (with a space after the colon, as recorded); xAI never does.
    if (!xai && pick() < 0.2) out += sse('{"type": "ping"}', 'ping');
  };
  const u = r.usage;
  const startUsage: JsonObject =
    u === null
      ? {}
      : xai
        ? { input_tokens: u.input, output_tokens: 0 }
        : {
            input_tokens: u.input - u.cached,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: u.cached,
            output_tokens: 1,
            service_tier: 'standard',
          };
  const message: JsonObject = {
    id: xai ? r.id : `msg_${r.id}`,
    type: 'message',
    role: 'assistant',
    model: modelOf(flavor, r),
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  if (u !== null) message['usage'] = startUsage;
  emit('message_start', { message });
  ping();
  r.blocks.forEach((b, i) => {
    const index = xai ? 0 : i;
    // xAI's deltas carry no index: they belong to the open block.
    const at: JsonObject = xai ? {} : { index };
    if (b.kind === 'tool') {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const f of b.fragments) emit('content_block_delta', { ...at, delta: { type: 'input_json_delta', partial_json: f } });
    } else if (b.kind === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const d of b.deltas) emit('content_block_delta', { ...at, delta: { type: 'text_delta', text: d } });
    } else {
      emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const d of b.deltas) emit('content_block_delta', { ...at, delta: { type: 'thinking_delta', thinking: d } });
      if (!xai && b.signature !== '') emit('content_block_delta', { ...at, delta: { type: 'signature_delta', signature: b.signature } });
    }
    ping();
    emit('content_block_stop', { index });
  });
  const deltaUsage: JsonObject = u === null ? {} : { output_tokens: u.output };
  // Newer Anthropic streams repeat the cumulative input counts in message_delta.
  if (u !== null && !xai && pick() < 0.5) {
    deltaUsage['input_tokens'] = u.input - u.cached;
    deltaUsage['cache_read_input_tokens'] = u.cached;
  }
  const md: JsonObject = { delta: { stop_reason: stopReasonOf(r), stop_sequence: null } };
  if (u !== null) md['usage'] = deltaUsage;
  emit('message_delta', md);
  emit('message_stop', {});
  return out;
}

function expectMessages(flavor: Flavor, r: GenResponse): ExpectedFinal {
  const reason = stopReasonOf(r);
  const stopReason = reason === 'end_turn' ? 'end' : reason === 'tool_use' ? 'tool_use' : reason === 'max_tokens' ? 'max_tokens' : 'refusal';
  const u = r.usage;
  const signatures: string[] = [];
  if (flavor === 'anthropic-messages') {
    for (const b of r.blocks) if (b.kind === 'reasoning' && b.signature !== '') signatures.push(b.signature);
  }
  return {
    id: flavor === 'xai-messages' ? r.id : `msg_${r.id}`,
    model: modelOf(flavor, r),
    text: textOf(r, 'text'),
    reasoning: textOf(r, 'reasoning'),
    toolCalls: expectedTools(r, true),
    stopReason,
    providerReason: reason,
    usage:
      u === null
        ? noUsage()
        : {
            inputTokens: u.input,
            outputTokens: u.output,
            totalTokens: u.input + u.output,
            // Anthropic reports no reasoning count; xAI's messages endpoint no cache count.
            reasoningTokens: null,
            cachedInputTokens: flavor === 'xai-messages' ? null : u.cached,
          },
    signatures,
  };
}

function messagesEncoder(flavor: Flavor): DialectEncoder {
  return {
    label: flavor,
    dialect: flavor,
    options: {},
    encode: (log) => Buffer.from(log.map((r) => encodeResponse(flavor, r)).join(''), 'utf8'),
    expect: (r) => expectMessages(flavor, r),
  };
}

export const anthropicMessagesEncoder = messagesEncoder('anthropic-messages');
export const xaiMessagesEncoder = messagesEncoder('xai-messages');
