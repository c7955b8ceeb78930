/**
 * xAI Responses API: OpenAI's event names and shapes, handled by the same code.
 * Observed differences, none of which needs its own mapping: `output_tokens`
 * already includes reasoning tokens (as on OpenAI, unlike xAI Chat), a function
 * call's whole JSON arrives in one arguments delta, snapshots carry
 * `created_at: 0`, there is no `[DONE]` and no background/resume mode. The one
 * behavioural difference: server-side x_search tools stream as
 * `custom_tool_call` items, so those do not make a response end in `tool_use`.
 */
import { createResponsesDialect } from './openai-responses.js';

export const xaiResponses = createResponsesDialect({ name: 'xai-responses', hostedCustomToolCalls: true });
