/**
 * The official SDKs' own accumulators on what the encoders write: every
 * capture with one successful response, encoded to each target, must give
 * `finalChatCompletion()` / `finalMessage()` the text, tool calls (names and
 * parsed arguments), stop reason and usage of wirefold's final of the
 * original (less what the target cannot carry, as in round-trip.test.ts).
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { anthropicFinal, openaiChatFinal } from '../helpers/sdk.js';
import { captures, encode } from '../helpers/encode.js';
import { EXPECTATIONS } from './expect/index.js';

const CHAT_FINISH: Record<string, string> = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length', refusal: 'content_filter' };
const MESSAGES_STOP: Record<string, string> = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens', refusal: 'refusal' };

/** As FinalToolCall: parsed JSON, `{}` when empty, the text itself when it is not JSON. */
function parsed(text: string): Json {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

const singles = captures()
  .map((c) => ({ ...c, finals: runStage(createOutputStage({ output: 'final' }), [c.bytes]) as FinalResult[] }))
  .filter((c) => c.finals.length === 1 && c.finals[0]!.stopReason !== 'error');

t.test('openai: finalChatCompletion() of the encoded stream', async (t) => {
  let n = 0;
  for (const c of singles) {
    const f = c.finals[0]!;
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const { text } = encode(events, 'openai-chat');
    const out = await openaiChatFinal(new TextEncoder().encode(text));
    if (!t.ok(out.value, `${c.name}: the SDK accumulated it`, { error: out.error?.message })) continue;
    const want = EXPECTATIONS['openai-chat'].expected(f);
    const choice = out.value!.choices[0]!;
    t.equal(choice.message.content ?? '', want.text, `${c.name}: text`);
    t.equal(choice.message.refusal ?? null, want.refusal, `${c.name}: refusal`);
    t.strictSame(
      (choice.message.tool_calls ?? []).map((tc) => (tc.type === 'function' ? { id: tc.id, name: tc.function.name, arguments: parsed(tc.function.arguments) } : null)),
      want.toolCalls,
      `${c.name}: tool calls`,
    );
    const finish = f.stopReason === 'refusal' && f.refusal !== null ? 'stop' : (CHAT_FINISH[f.stopReason] ?? 'stop');
    if (f.dialect !== 'openai-chat' && f.dialect !== 'xai-chat') t.equal(choice.finish_reason, finish, `${c.name}: finish_reason`);
    t.equal(out.value!.usage?.prompt_tokens ?? null, want.usage.inputTokens, `${c.name}: prompt tokens`);
    t.equal(out.value!.usage?.completion_tokens ?? null, want.usage.outputTokens, `${c.name}: completion tokens`);
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});

t.test('anthropic: finalMessage() of the encoded stream', async (t) => {
  let n = 0;
  for (const c of singles) {
    const f = c.finals[0]!;
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const { text } = encode(events, 'anthropic-messages');
    const out = await anthropicFinal(new TextEncoder().encode(text));
    if (!t.ok(out.value, `${c.name}: the SDK accumulated it`, { error: out.error?.message })) continue;
    const want = EXPECTATIONS['anthropic-messages'].expected(f);
    const m = out.value!;
    const blocks = m.content as { type: string; text?: string; thinking?: string; id?: string; name?: string; input?: unknown }[];
    t.equal(blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''), want.text, `${c.name}: text`);
    t.equal(blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking).join(''), want.reasoning, `${c.name}: thinking`);
    // arguments cut short (max_tokens mid-input): we keep the text, the SDK partial-parses it (see test/parity)
    const cut = new Set(want.toolCalls.filter((c) => typeof c.arguments === 'string').map((c) => c.id));
    t.strictSame(
      blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: cut.has(b.id ?? '') ? '(cut)' : b.input })),
      want.toolCalls.map((c) => (cut.has(c.id) ? { ...c, arguments: '(cut)' } : c)),
      `${c.name}: tool calls`,
    );
    const same = f.dialect === 'anthropic-messages' || f.dialect === 'xai-messages';
    if (!same) t.equal(m.stop_reason, MESSAGES_STOP[f.stopReason] ?? 'end_turn', `${c.name}: stop_reason`);
    t.equal(m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0) + (same ? (m.usage.cache_creation_input_tokens ?? 0) : 0), want.usage.inputTokens, `${c.name}: input tokens`);
    t.equal(m.usage.output_tokens, want.usage.outputTokens, `${c.name}: output tokens`);
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});
