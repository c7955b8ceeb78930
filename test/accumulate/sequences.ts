/**
 * Hand-built unified event sequences, shaped the way each dialect maps its
 * wire events (see the brief's unified event semantics). The accumulator
 * tests drive their code with these, not with the dialect code.
 */
import type {
  AudioDeltaEvent,
  DialectName,
  DoneEvent,
  ErrorEvent,
  EventBase,
  Json,
  RawEvent,
  ReasoningDeltaEvent,
  SignatureEvent,
  SignatureKind,
  StartEvent,
  StopReason,
  TextDeltaEvent,
  ToolCallDeltaEvent,
  ToolCallDoneEvent,
  ToolCallStartEvent,
  UnifiedEvent,
  Usage,
  UsageEvent,
} from '../../lib/events.js';

type Extra = EventBase & { contentIndex?: number; refusal?: true; transcript?: true };

export function start(id: string | null, model: string | null, dialect?: DialectName): StartEvent {
  const ev: StartEvent = { type: 'start', id, model };
  if (dialect !== undefined) ev.dialect = dialect;
  return ev;
}
export function text(index: number, t: string, extra: Extra = {}): TextDeltaEvent {
  return { type: 'text_delta', index, text: t, ...extra };
}
export function reasoning(index: number, t: string, extra: EventBase & { contentIndex?: number } = {}): ReasoningDeltaEvent {
  return { type: 'reasoning_delta', index, text: t, ...extra };
}
export function toolStart(index: number, id: string, name: string, extra: EventBase = {}): ToolCallStartEvent {
  return { type: 'tool_call_start', index, id, name, ...extra };
}
export function toolDelta(index: number, id: string, argumentsDelta: string, extra: EventBase = {}): ToolCallDeltaEvent {
  return { type: 'tool_call_delta', index, id, argumentsDelta, ...extra };
}
export function toolDone(index: number, id: string, name: string, args: string, extra: EventBase = {}): ToolCallDoneEvent {
  return { type: 'tool_call_done', index, id, name, arguments: args, ...extra };
}
export function sig(index: number, signature: string, kind: SignatureKind, extra: EventBase = {}): SignatureEvent {
  return { type: 'signature', index, signature, kind, ...extra };
}
export function usage(u: Partial<Usage>, raw: Json = null, extra: EventBase = {}): UsageEvent {
  return {
    type: 'usage',
    inputTokens: u.inputTokens ?? null,
    outputTokens: u.outputTokens ?? null,
    totalTokens: u.totalTokens ?? null,
    reasoningTokens: u.reasoningTokens ?? null,
    cachedInputTokens: u.cachedInputTokens ?? null,
    raw,
    ...extra,
  };
}
export function done(stopReason: StopReason, providerReason: string | null, extra: EventBase = {}): DoneEvent {
  return { type: 'done', stopReason, providerReason, ...extra };
}
export function error(code: string, message: string, terminal: boolean, raw?: Json): ErrorEvent {
  const ev: ErrorEvent = { type: 'error', code, message, terminal };
  if (raw !== undefined) ev.raw = raw;
  return ev;
}
export function raw(event: Json): RawEvent {
  return { type: 'raw', event };
}
export function audio(index: number, mimeType: string | null, data: string): AudioDeltaEvent {
  return { type: 'audio_delta', index, mimeType, data };
}

/** OpenAI Chat: role chunk (raw), three content chunks, finish_reason stop, the include_usage chunk, [DONE]. */
export function openaiChatText(): UnifiedEvent[] {
  return [
    start('chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', 'gpt-4o-mini-2024-07-18', 'openai-chat'),
    raw({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }),
    text(0, 'Paris'),
    text(0, ' is the'),
    text(0, ' capital.'),
    usage(
      { inputTokens: 14, outputTokens: 4, totalTokens: 18, reasoningTokens: 0, cachedInputTokens: 0 },
      { prompt_tokens: 14, completion_tokens: 4, total_tokens: 18 },
    ),
    done('end', 'stop'),
  ];
}

/** OpenAI Chat n=2: choice 1's events carry `choice: 1`; choice 1 stops on length before the final done. */
export function openaiChatTwoChoices(): UnifiedEvent[] {
  return [
    start('chatcmpl-n2', 'gpt-4o-mini', 'openai-chat'),
    text(0, 'Red'),
    text(0, 'Blue', { choice: 1 }),
    text(0, ' apples', { choice: 1 }),
    text(0, ' roses'),
    usage({ inputTokens: 9, outputTokens: 5, totalTokens: 14 }),
    // One done for the response; each choice's stop in `choices`.
    {
      ...done('end', 'stop'),
      choices: [
        { choice: 0, stopReason: 'end', providerReason: 'stop' },
        { choice: 1, stopReason: 'max_tokens', providerReason: 'length' },
      ],
    },
  ];
}

/** OpenAI Chat: two parallel tool calls, arguments fragmented and interleaved; ids/names only on first fragments. */
export function openaiChatParallelTools(): UnifiedEvent[] {
  return [
    start('chatcmpl-tools', 'gpt-4o', 'openai-chat'),
    toolStart(0, 'call_weather', 'get_weather'),
    toolDelta(0, 'call_weather', '{"loc'),
    toolStart(1, 'call_time', 'get_time'),
    toolDelta(1, 'call_time', '{"tz": '),
    toolDelta(0, 'call_weather', 'ation": "Par'),
    toolDelta(1, 'call_time', '"Europe/Paris", "fmt": [24, '),
    toolDelta(0, 'call_weather', 'is", "days": 3}'),
    toolDelta(1, 'call_time', 'true]}'),
    toolDone(0, 'call_weather', 'get_weather', '{"location": "Paris", "days": 3}'),
    toolDone(1, 'call_time', 'get_time', '{"tz": "Europe/Paris", "fmt": [24, true]}'),
    usage({ inputTokens: 80, outputTokens: 40, totalTokens: 120 }),
    done('tool_use', 'tool_calls'),
  ];
}

/** Anthropic: thinking (with signature_delta), text, tool_use with input_json_delta fragments, ping as raw. */
export function anthropicThinkingToolUse(): UnifiedEvent[] {
  return [
    start('msg_01AbCdEf', 'claude-sonnet-4-5-20250929', 'anthropic-messages'),
    reasoning(0, 'The user wants the weather'),
    raw({ type: 'ping' }),
    reasoning(0, ' in San Francisco.'),
    sig(0, 'EqQBCkgIARABGAIiQL', 'signature_delta'),
    text(1, 'Let me check'),
    text(1, ' the weather.'),
    toolStart(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'get_weather'),
    toolDelta(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', ''),
    toolDelta(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', '{"location": "San'),
    toolDelta(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', ' Francisco, CA", "unit": "f'),
    toolDelta(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'ahrenheit"}'),
    toolDone(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'get_weather', '{"location": "San Francisco, CA", "unit": "fahrenheit"}'),
    usage(
      { inputTokens: 2679, outputTokens: 103, totalTokens: 2782, cachedInputTokens: 2048 },
      { input_tokens: 631, cache_read_input_tokens: 2048, output_tokens: 103 },
    ),
    done('tool_use', 'tool_use'),
  ];
}

/** Gemini 3: text chunks, then the last chunk's EMPTY-text part carrying the thoughtSignature. */
export function geminiEmptyTextSignature(): UnifiedEvent[] {
  return [
    start('resp-gem-1', 'gemini-3-pro-preview', 'gemini'),
    text(0, 'Two plus two'),
    text(0, ' is four.'),
    sig(0, 'CiQB0e2Kb3Z0aG91Z2h0LXNpZw==', 'thought_signature'),
    usage(
      { inputTokens: 8, outputTokens: 61, totalTokens: 69, reasoningTokens: 55 },
      { promptTokenCount: 8, candidatesTokenCount: 6, thoughtsTokenCount: 55, totalTokenCount: 69 },
    ),
    done('end', 'STOP'),
  ];
}

/** Gemini: thought summary, then a whole functionCall part (one delta holding it all) with its own signature. */
export function geminiThoughtFunctionCall(): UnifiedEvent[] {
  return [
    start('resp-gem-2', 'gemini-2.5-flash', 'gemini'),
    reasoning(0, '**Looking up the weather**'),
    toolStart(0, 'call_0', 'get_current_weather'),
    toolDelta(0, 'call_0', '{"location":"Boston, MA"}'),
    toolDone(0, 'call_0', 'get_current_weather', '{"location":"Boston, MA"}'),
    sig(0, 'Cs0BAdHtim9fc2lnbmF0dXJl', 'thought_signature'),
    usage({ inputTokens: 50, outputTokens: 30, totalTokens: 80, reasoningTokens: 20 }),
    done('tool_use', 'STOP'),
  ];
}

/** OpenAI Responses: reasoning summary (2 parts) + encrypted_content, output text, sequence numbers as cursors. */
export function openaiResponsesReasoning(): UnifiedEvent[] {
  return [
    start('resp_67ccd2bed1ec8190', 'o4-mini-2025-04-16', 'openai-responses'),
    raw({ type: 'response.in_progress', sequence_number: 1 }),
    reasoning(0, '**Planning**', { contentIndex: 0, cursor: 4 }),
    reasoning(0, ' the answer.', { contentIndex: 0, cursor: 5 }),
    reasoning(0, '**Checking**', { contentIndex: 1, cursor: 8 }),
    sig(0, 'gAAAAABoEncrypted', 'encrypted_content', { cursor: 11 }),
    text(1, 'Hello', { contentIndex: 0, cursor: 14 }),
    text(1, ' there.', { contentIndex: 0, cursor: 15 }),
    usage(
      { inputTokens: 20, outputTokens: 150, totalTokens: 170, reasoningTokens: 128, cachedInputTokens: 0 },
      { input_tokens: 20, output_tokens: 150, output_tokens_details: { reasoning_tokens: 128 } },
      { cursor: 19 },
    ),
    done('end', 'completed', { cursor: 19 }),
  ];
}

/** OpenAI Responses: the refusal channel. */
export function openaiResponsesRefusal(): UnifiedEvent[] {
  return [
    start('resp_refusal', 'gpt-4o', 'openai-responses'),
    text(0, "I'm sorry,", { contentIndex: 0, refusal: true, cursor: 4 }),
    text(0, " I can't help with that.", { contentIndex: 0, refusal: true, cursor: 5 }),
    done('end', 'completed', { cursor: 8 }),
  ];
}

/** Anthropic: max_tokens hit inside a tool input; the dialect closes the call with its incomplete text. */
export function anthropicMaxTokensMidTool(): UnifiedEvent[] {
  return [
    start('msg_cut', 'claude-haiku-4-5', 'anthropic-messages'),
    text(0, 'Writing the file.'),
    toolStart(1, 'toolu_write', 'write_file'),
    toolDelta(1, 'toolu_write', '{"path": "notes.txt", "content": "Hel'),
    toolDone(1, 'toolu_write', 'write_file', '{"path": "notes.txt", "content": "Hel'),
    usage({ inputTokens: 400, outputTokens: 16, totalTokens: 416 }),
    done('max_tokens', 'max_tokens'),
  ];
}

/** Anthropic: a tool_use block with no input deltas at all (the dialect gives ""). */
export function anthropicToolNoArgs(): UnifiedEvent[] {
  return [
    start('msg_noargs', 'claude-sonnet-4-5', 'anthropic-messages'),
    toolStart(0, 'toolu_now', 'get_current_time'),
    toolDone(0, 'toolu_now', 'get_current_time', ''),
    done('tool_use', 'tool_use'),
  ];
}

/** Anthropic: thinking with signature, a redacted_thinking block, then text. */
export function anthropicRedactedThinking(): UnifiedEvent[] {
  return [
    start('msg_redacted', 'claude-3-7-sonnet-20250219', 'anthropic-messages'),
    reasoning(0, 'Thinking it over.'),
    sig(0, 'ErUBCkYIBRgCIkB', 'signature_delta'),
    sig(1, 'EmwKAhgBEgy3va3pzix/LafPsn4a', 'redacted_thinking'),
    text(2, 'Done.'),
    done('end', 'end_turn'),
  ];
}
