/**
 * OpenAI Chat parity: our final vs `client.chat.completions.stream(...).finalChatCompletion()`
 * of the `openai` SDK on the same bytes (every corpus file and fixture).
 */
import t, { type Test } from 'tap';
import type { ChatCompletionSnapshot } from 'openai/lib/ChatCompletionStream';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { StopReason, Usage } from '../../lib/events.js';
import { bothRan, endsInError, failedAsDocumented, oneFinal } from '../helpers/parity.js';
import {
  NO_USAGE,
  type ChoiceView,
  type ChatOutcome,
  openaiChatFinal,
  ourChoice,
  ourFinals,
  parityInputs,
  parsedArguments,
} from '../helpers/sdk.js';

const inputs = parityInputs(['openai-chat'], ['openai-chat']);

// ---- the SDK's result, mapped to our semantics ----

/** finish_reason → StopReason (types.ts/events.ts: `stop` after tool calls is tool_use; content_filter is a refusal). */
function stopReasonOf(finish: string | null, hadToolCalls: boolean): StopReason | null {
  switch (finish) {
    case null:
      return null;
    case 'stop':
      return hadToolCalls ? 'tool_use' : 'end';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

/** OpenAI's `completion_tokens` already includes reasoning tokens; cached tokens are part of `prompt_tokens`. */
function usageOf(u: CompletionUsage | null | undefined): Usage {
  if (u === null || u === undefined) return NO_USAGE;
  return {
    inputTokens: u.prompt_tokens,
    outputTokens: u.completion_tokens,
    totalTokens: u.total_tokens,
    reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? null,
    cachedInputTokens: u.prompt_tokens_details?.cached_tokens ?? null,
  };
}

/**
 * Reasoning text of choice k. The SDK does not keep it: `reasoning_content`
 * (DeepSeek/xAI) and `reasoning` (OpenRouter/Groq) are not OpenAI fields, and
 * its snapshot `Object.assign`s every delta's unknown keys, so the message ends
 * with the LAST delta's value (`null` in the DeepSeek capture). The expected
 * text is therefore concatenated from the chunks the SDK parsed.
 */
function reasoningOf(chunks: ChatCompletionChunk[], k: number): string {
  let text = '';
  for (const chunk of chunks) {
    for (const c of chunk.choices) {
      if (c.index !== k || c.delta === undefined) continue;
      const d = c.delta as { reasoning_content?: unknown; reasoning?: unknown };
      // A server that sends both sends the same text twice: one of them counts.
      const r = typeof d.reasoning_content === 'string' && d.reasoning_content !== '' ? d.reasoning_content : d.reasoning;
      if (typeof r === 'string') text += r;
    }
  }
  return text;
}

/**
 * Mistral's `delta.content` part arrays (`{type:'text', text}`, `{type:'thinking',
 * thinking:[{type:'text', text}]}`) of choice k, as the SDK parsed them, or null when
 * there were none. The SDK concatenates `content` as a string, so its final holds
 * "[object Object]…" there: the expected text and reasoning are read from the parts.
 */
function contentParts(chunks: ChatCompletionChunk[], k: number): { text: string; reasoning: string } | null {
  let text = '';
  let reasoning = '';
  let found = false;
  for (const chunk of chunks) {
    for (const c of chunk.choices) {
      const content: unknown = c.index === k ? c.delta?.content : undefined;
      if (!Array.isArray(content)) {
        if (typeof content === 'string') text += content;
        continue;
      }
      found = true;
      for (const part of content as { type?: string; text?: string; thinking?: { type?: string; text?: string }[] }[]) {
        if (part.type === 'text') text += part.text ?? '';
        else if (part.type === 'thinking') for (const t of part.thinking ?? []) reasoning += t.type === 'text' ? (t.text ?? '') : '';
      }
    }
  }
  return found ? { text, reasoning } : null;
}

type SdkChoice = ChatCompletion.Choice | ChatCompletionSnapshot.Choice;

function choiceView(c: SdkChoice, chunks: ChatCompletionChunk[]): ChoiceView {
  const calls = c.message.tool_calls ?? [];
  const toolCalls = calls.map((tc) => {
    const fn = (tc as { function?: { name?: string; arguments?: string } }).function;
    return { id: tc.id ?? '', name: fn?.name ?? '', arguments: parsedArguments(fn?.arguments ?? '') };
  });
  const parts = contentParts(chunks, c.index);
  return {
    text: parts?.text ?? c.message.content ?? '',
    refusal: c.message.refusal ?? null,
    reasoning: reasoningOf(chunks, c.index) + (parts?.reasoning ?? ''),
    toolCalls,
    stopReason: stopReasonOf(c.finish_reason ?? null, toolCalls.length > 0),
    providerReason: c.finish_reason ?? null,
  };
}

/** The last non-null `usage` among the parsed chunks (what the provider reported). */
function reportedUsage(chunks: ChatCompletionChunk[]): CompletionUsage | null {
  let u: CompletionUsage | null = null;
  for (const c of chunks) if (c.usage !== null && c.usage !== undefined) u = c.usage;
  return u;
}

/** Every choice of our final against every choice of the SDK's, in index order. */
function compareChoices(tt: Test, ours: FinalResult, choices: SdkChoice[], chunks: ChatCompletionChunk[], context: string): void {
  const present = choices.filter((c) => c !== undefined);
  tt.equal(ours.choices?.length ?? 1, Math.max(1, present.length), `${context}: choice count`);
  for (const c of present) tt.strictSame(ourChoice(ours, c.index), choiceView(c, chunks), `${context}: choice ${c.index}`);
}

// ---- where the SDK throws, and why ----

interface SdkFailure {
  /** What the SDK's error says. */
  error: RegExp;
  /** Whether the stream is a failed response (we must report an error too) or a complete one the SDK rejects. */
  ours: 'error' | 'complete';
}

const SDK_FAILS: Record<string, SdkFailure> = {
  // HTTP 404 with a JSON error body.
  'openai-chat/mirascope--http404-error.body': { error: /^404\b/, ours: 'error' },
  // Groq: `event: error` with an `error` object, no [DONE]: the SDK throws an APIError.
  'openai-chat/pydantic-ai--compat-groq-error-event.sse': { error: /Tool call validation failed/, ours: 'error' },
  // OpenRouter: an `error` object inside an ordinary chunk.
  'openai-chat/pydantic-ai--compat-openrouter-error-chunk.sse': { error: /Token limit reached/, ours: 'error' },
  // OpenRouter never sends finish_reason, but the stream is complete (it ends with [DONE]). The SDK
  // refuses to finalize a choice without finish_reason; we infer tool_use from the tool call made
  // (openai-chat.ts finishDone) with providerReason null. Content is compared with the SDK's snapshot.
  'openai-chat/llm--compat-openrouter-repeated-tool-id.sse': { error: /missing finish_reason for choice 0/, ours: 'complete' },
  // Cut off after a tool-call fragment: no finish_reason, no [DONE]. The SDK cannot finalize it;
  // we report incomplete_stream.
  'fixtures/openai-chat/missing-done.sse': { error: /missing finish_reason for choice 0/, ours: 'error' },
};

// OpenRouter puts the usage into the very chunk that carries the `error` object; the SDK throws
// on that chunk before reading anything else from it, so only we have these counts. They are the
// chunk's own numbers (prompt 43, completion 10 including reasoning 11 as reported, total 53, cached 0).
const USAGE_IN_ERROR_CHUNK: Record<string, Usage> = {
  'openai-chat/pydantic-ai--compat-openrouter-error-chunk.sse': {
    inputTokens: 43,
    outputTokens: 10,
    totalTokens: 53,
    reasoningTokens: 11,
    cachedInputTokens: 0,
  },
};

// Complete without `data: [DONE]` (every finish_reason came): the SDK just ends; we add the
// non-terminal missing_terminal warning to the final's errors.
const NO_DONE_SENTINEL = new Set(['fixtures/openai-chat/no-done-after-finish.sse']);

// Text-generation-inference sends `"id": ""`: the SDK copies a chunk's top-level keys only when it
// has an id, so it keeps the first chunk's `"usage": null` and loses the usage of the last chunk;
// its id stays '' where we report none (null).
const EMPTY_ID = new Set(['fixtures/openai-chat/no-done-after-finish.sse']);

// The SDK's final copies each chunk's top-level keys over the snapshot, so the trailing
// `choices: []` chunk that carries `moderation` and `"usage": null` erases the usage reported
// one chunk earlier. We keep the reported usage.
const SDK_LOSES_USAGE = new Set(['openai-chat/pydantic-ai--moderation-field.sse']);

t.test('every openai-chat input: our final matches finalChatCompletion()', async (t) => {
  t.ok(inputs.length >= 24, `${inputs.length} inputs`);
  for (const input of inputs) {
    await t.test(input.name, async (tt) => {
      const sdk: ChatOutcome = await openaiChatFinal(input.bytes, input.http);
      const { finals, thrown } = await ourFinals(input.bytes, 'openai-chat', input.http);
      bothRan(tt, sdk.requests, thrown);
      const ours = oneFinal(tt, finals);
      const failure = SDK_FAILS[input.name];

      if (sdk.error !== undefined) {
        if (!failedAsDocumented(tt, sdk.error, failure)) return;
        if (failure.ours === 'error') {
          endsInError(tt, ours);
        } else {
          tt.strictSame(ours.errors, [], 'a complete stream: no error on our side');
        }
        // Whatever the SDK had accumulated before it gave up, we kept too.
        if (sdk.snapshot !== undefined) {
          const snapshot = sdk.snapshot.choices.filter((c) => c !== undefined);
          for (const c of snapshot) {
            const expected = choiceView(c, sdk.events);
            const mine = ourChoice(ours, c.index)!;
            tt.strictSame(
              { text: mine.text, refusal: mine.refusal, reasoning: mine.reasoning },
              { text: expected.text, refusal: expected.refusal, reasoning: expected.reasoning },
              `choice ${c.index}: the text the SDK saw before failing`,
            );
            // Cut arguments stay the raw text on both sides (ours: FinalToolCall keeps invalid JSON as text).
            tt.strictSame(mine.toolCalls, expected.toolCalls, `choice ${c.index}: tool calls`);
            if (failure.ours === 'complete') {
              // No finish_reason: inferred from the calls made.
              tt.equal(mine.stopReason, expected.toolCalls.length > 0 ? 'tool_use' : 'end', 'stop reason inferred');
              tt.equal(mine.providerReason, null, 'no provider reason');
            }
          }
          const inErrorChunk = USAGE_IN_ERROR_CHUNK[input.name];
          if (inErrorChunk === undefined) tt.strictSame(ours.usage, usageOf(reportedUsage(sdk.events)), 'usage reported before the failure');
          else {
            tt.equal(reportedUsage(sdk.events), null, 'the SDK never read the usage of the error chunk');
            tt.strictSame(ours.usage, inErrorChunk, 'we keep the usage of the error chunk');
          }
        }
        return;
      }

      tt.notOk(failure, 'the SDK did not fail');
      const value = sdk.value!;
      if (NO_DONE_SENTINEL.has(input.name)) tt.match(ours.errors, [{ code: 'missing_terminal' }], 'only the missing [DONE] is reported');
      else tt.strictSame(ours.errors, [], 'no errors');
      if (EMPTY_ID.has(input.name)) tt.same([value.id, ours.id], ['', null], 'an empty id is no id');
      else tt.equal(ours.id, value.id, 'id');
      tt.equal(ours.model, value.model, 'model');
      compareChoices(tt, ours, value.choices, sdk.events, 'final');
      const reported = reportedUsage(sdk.events);
      if (SDK_LOSES_USAGE.has(input.name) || EMPTY_ID.has(input.name)) {
        tt.equal(value.usage ?? null, null, "the SDK's final lost the usage");
        tt.not(reported, null, 'while a chunk reported it');
      } else {
        tt.strictSame(value.usage ?? null, reported, "the SDK's usage is the reported one");
      }
      tt.strictSame(ours.usage, usageOf(reported), 'usage');
    });
  }
});

t.test('the SDK sees every choice and every tool call we see (n > 1, parallel calls)', async (t) => {
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const n3 = byName.get('openai-chat/openai-python--multiple-choices.sse')!;
  const sdk = await openaiChatFinal(n3.bytes);
  const [ours] = (await ourFinals(n3.bytes, 'openai-chat')).finals;
  t.equal(sdk.value?.choices.length, 3, 'the SDK has three choices');
  t.equal(ours?.choices?.length, 3, 'so do we');
  const parallel = byName.get('openai-chat/openai-python--parallel-tool-calls.sse')!;
  const sdk2 = await openaiChatFinal(parallel.bytes);
  const [ours2] = (await ourFinals(parallel.bytes, 'openai-chat')).finals;
  t.equal(sdk2.value?.choices[0]?.message.tool_calls?.length, 2, 'the SDK has two tool calls');
  t.equal(ours2?.toolCalls.length, 2, 'so do we');
});

t.test('annotations: the url_citation list the SDK keeps on the message is our citations, one for one', async (t) => {
  const input = inputs.find((i) => i.name === 'fixtures/openai-chat/search-annotations.sse')!;
  const sdk = await openaiChatFinal(input.bytes);
  const [ours] = (await ourFinals(input.bytes, 'openai-chat')).finals;
  const annotations = sdk.value?.choices[0]?.message.annotations ?? [];
  t.equal(annotations.length, 2, 'the SDK has two annotations');
  t.same(
    ours?.citations,
    annotations.map((a) => ({
      index: 0,
      url: a.url_citation.url,
      title: a.url_citation.title,
      start: a.url_citation.start_index,
      end: a.url_citation.end_index,
    })),
    'the same citations, offsets as given',
  );
});

t.test('reasoning_content: the SDK keeps only the last delta, we keep the whole text', async (t) => {
  const input = inputs.find((i) => i.name === 'openai-chat/pydantic-ai--compat-deepseek-reasoning-content.sse')!;
  const sdk = await openaiChatFinal(input.bytes);
  const [ours] = (await ourFinals(input.bytes, 'openai-chat')).finals;
  const message = sdk.value?.choices[0]?.message as { reasoning_content?: unknown } | undefined;
  t.equal(message?.reasoning_content, null, "the SDK's final has the last delta's reasoning_content: null");
  const reasoning = reasoningOf(sdk.events, 0);
  t.ok(reasoning.length > 500, `the chunks it parsed hold ${reasoning.length} characters of reasoning`);
  t.equal(ours?.reasoning, reasoning, 'all of which we keep');
  t.same(ours?.content.map((b) => b.type), ['reasoning', 'text'], 'as a reasoning block before the text');
});
