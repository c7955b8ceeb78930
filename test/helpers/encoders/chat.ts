/**
 * OpenAI Chat Completions / xAI Chat wire encoder: `chat.completion.chunk`
 * objects in data-only SSE, a usage chunk with `choices: []`, then
 * `data: [DONE]` (corpus: openai-python--parallel-tool-calls, xai-chat/*).
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

type Flavor = 'openai-chat' | 'xai-chat';

function modelOf(flavor: Flavor, r: GenResponse): string {
  return flavor === 'xai-chat' ? `grok-3-mini-${r.model}` : `gpt-4o-${r.model}`;
}

function finishReason(r: GenResponse): string {
  if (r.stop === 'max_tokens') return 'length';
  if (r.stop === 'refusal') return 'content_filter';
  return toolsOf(r).length > 0 ? 'tool_calls' : 'stop';
}

function encodeResponse(flavor: Flavor, r: GenResponse): string {
  const pick = layoutRng(r);
  const model = modelOf(flavor, r);
  // OpenAI sends `"usage": null` on every chunk when include_usage is on.
  const nullUsage = r.usage !== null && pick() < 0.5;
  const chunk = (choices: JsonObject[], extra: JsonObject = {}): string => {
    const body: JsonObject = { id: `chatcmpl-${r.id}`, object: 'chat.completion.chunk', created: 1727346178, model };
    if (flavor === 'openai-chat') body['system_fingerprint'] = 'fp_5050236cbd';
    body['choices'] = choices;
    if (nullUsage) body['usage'] = null;
    return sse(JSON.stringify({ ...body, ...extra }));
  };
  const delta = (d: JsonObject): JsonObject => ({ index: 0, delta: d, logprobs: null, finish_reason: null });
  // DeepSeek/xAI say reasoning_content; OpenRouter/Groq say reasoning.
  const reasoningKey = flavor === 'xai-chat' || pick() < 0.5 ? 'reasoning_content' : 'reasoning';
  let out = chunk([delta({ role: 'assistant', content: '' })]);
  let toolIndex = 0;
  for (const b of r.blocks) {
    if (b.kind === 'tool') {
      const index = toolIndex++;
      if (pick() < 0.3) {
        // xAI (and some compat servers) deliver a whole call in one fragment.
        const whole = b.fragments.join('');
        out += chunk([delta({ tool_calls: [{ index, id: b.id, type: 'function', function: { name: b.name, arguments: whole } }] })]);
        continue;
      }
      out += chunk([delta({ tool_calls: [{ index, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] })]);
      for (const f of b.fragments) out += chunk([delta({ tool_calls: [{ index, function: { arguments: f } }] })]);
      continue;
    }
    for (const d of b.deltas) {
      out += chunk([delta(b.kind === 'text' ? { content: d } : { [reasoningKey]: d })]);
    }
  }
  out += chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(r) }]);
  if (r.usage !== null) {
    const u = r.usage;
    // xAI's completion_tokens exclude reasoning tokens; OpenAI's include them.
    const completion = flavor === 'xai-chat' ? u.output - u.reasoning : u.output;
    out += chunk([], {
      usage: {
        prompt_tokens: u.input,
        completion_tokens: completion,
        total_tokens: u.input + u.output,
        prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0 },
      },
    });
  }
  return out + sse('[DONE]');
}

function expectChat(flavor: Flavor, r: GenResponse): ExpectedFinal {
  const finish = finishReason(r);
  const tools = toolsOf(r).length > 0;
  const stopReason = finish === 'length' ? 'max_tokens' : finish === 'content_filter' ? 'refusal' : tools ? 'tool_use' : 'end';
  const u = r.usage;
  return {
    id: `chatcmpl-${r.id}`,
    model: modelOf(flavor, r),
    text: textOf(r, 'text'),
    reasoning: textOf(r, 'reasoning'),
    toolCalls: expectedTools(r, true),
    stopReason,
    providerReason: finish,
    usage:
      u === null
        ? noUsage()
        : {
            inputTokens: u.input,
            outputTokens: u.output,
            totalTokens: u.input + u.output,
            reasoningTokens: u.reasoning,
            cachedInputTokens: u.cached,
          },
  };
}

function chatEncoder(flavor: Flavor): DialectEncoder {
  return {
    label: flavor,
    dialect: flavor,
    options: {},
    encode: (log) => Buffer.from(log.map((r) => encodeResponse(flavor, r)).join(''), 'utf8'),
    expect: (r) => expectChat(flavor, r),
  };
}

export const openaiChatEncoder = chatEncoder('openai-chat');
export const xaiChatEncoder = chatEncoder('xai-chat');
