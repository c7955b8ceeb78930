/**
 * The OpenAI SDK's own accumulator on what the openai-responses target
 * writes: every capture with one successful response, encoded to the
 * Responses wire, must give `client.responses.stream().finalResponse()` the
 * text, refusal, reasoning summary, client calls (names and parsed
 * arguments), status / incomplete reason and usage of wirefold's final of the
 * original, less what the target cannot carry (test/encode/expect/openai-responses.ts).
 * The events the SDK parsed have a dense sequence_number from 0 and end with
 * the terminal event.
 */
import t from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { Json, StopReason, UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { openaiResponsesFinal } from '../helpers/sdk.js';
import { captures, encode } from '../helpers/encode.js';
import { openaiResponses } from './expect/openai-responses.js';

/** As FinalToolCall: parsed JSON, `{}` when empty, the text itself when it is not JSON. */
function parsed(text: string): Json {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** The status and incomplete reason the terminal response says for a stop reason (as read back). */
function statusOf(stop: StopReason, providerReason: string | null): { status: string; reason: string | null } {
  switch (stop) {
    case 'max_tokens':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    case 'refusal':
      return { status: 'incomplete', reason: 'content_filter' };
    case 'other':
      return { status: 'incomplete', reason: providerReason };
    default:
      return { status: 'completed', reason: null };
  }
}

const singles = captures()
  .map((c) => ({ ...c, finals: runStage(createOutputStage({ output: 'final' }), [c.bytes]) as FinalResult[] }))
  .filter((c) => c.finals.length === 1 && c.finals[0]!.stopReason !== 'error');

t.test('openai: responses.stream().finalResponse() of the encoded stream', async (t) => {
  let n = 0;
  for (const c of singles) {
    const f = c.finals[0]!;
    const events = runStage(createOutputStage({ output: 'events' }), [c.bytes]) as UnifiedEvent[];
    const { text } = encode(events, 'openai-responses');
    const out = await openaiResponsesFinal(new TextEncoder().encode(text));
    if (!t.ok(out.value, `${c.name}: the SDK accumulated it`, { error: out.error?.message })) continue;
    const want = openaiResponses.expected(f);
    const r = out.value!;
    t.strictSame(
      out.events.map((e) => e.sequence_number),
      out.events.map((_, i) => i),
      `${c.name}: sequence_number dense from 0`,
    );
    t.match(out.events.at(-1)?.type, /^response\.(completed|incomplete)$/, `${c.name}: the terminal event comes last`);
    t.equal(r.output_text, want.text, `${c.name}: output_text`);
    const parts = r.output.flatMap((item) => (item.type === 'message' ? item.content : []));
    const refusals = parts.flatMap((p) => (p.type === 'refusal' ? [p.refusal] : []));
    t.equal(refusals.length === 0 ? null : refusals.join(''), want.refusal, `${c.name}: refusal`);
    const summary = r.output.flatMap((item) => (item.type === 'reasoning' ? item.summary.map((s) => s.text) : []));
    t.equal(summary.join(''), want.reasoning, `${c.name}: reasoning summary`);
    t.strictSame(
      r.output.flatMap((item) =>
        item.type === 'function_call'
          ? [{ id: item.call_id, name: item.name, arguments: parsed(item.arguments) }]
          : item.type === 'custom_tool_call'
            ? [{ id: item.call_id, name: item.name, arguments: parsed(item.input) }]
            : [],
      ),
      want.toolCalls,
      `${c.name}: tool calls`,
    );
    const { status, reason } = statusOf(want.stopReason, f.providerReason);
    t.equal(r.status, status, `${c.name}: status`);
    t.equal(r.incomplete_details?.reason ?? null, reason, `${c.name}: incomplete reason`);
    const u = r.usage as Partial<NonNullable<typeof r.usage>> | undefined;
    t.equal(u?.input_tokens ?? null, want.usage.inputTokens, `${c.name}: input tokens`);
    t.equal(u?.input_tokens_details?.cached_tokens ?? null, want.usage.cachedInputTokens, `${c.name}: cached tokens`);
    t.equal(u?.output_tokens ?? null, want.usage.outputTokens, `${c.name}: output tokens`);
    t.equal(u?.output_tokens_details?.reasoning_tokens ?? null, want.usage.reasoningTokens, `${c.name}: reasoning tokens`);
    t.equal(u?.total_tokens ?? null, want.usage.totalTokens, `${c.name}: total tokens`);
    n++;
  }
  t.ok(n > 100, `${n} captures`);
});
