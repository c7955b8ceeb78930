/**
 * xAI Responses API: OpenAI's event names and shapes, handled by the same code.
 * Observed differences, none of which needs its own mapping: `output_tokens`
 * already includes reasoning tokens (as on OpenAI, unlike xAI Chat), a function
 * call's whole JSON arrives in one arguments delta, snapshots carry
 * `created_at: 0`, there is no `[DONE]` and no background/resume mode. The one
 * behavioural difference: server-side x_search tools stream as
 * `custom_tool_call` items, so those do not make a response end in `tool_use`.
 */
import { isGrok } from './detect.js';
import { obj } from './helpers.js';
import { isResponsesEvent, responsesHandlers } from './openai-responses.js';
import { defineDialect } from './types.js';

export const xaiResponses = defineDialect({
  name: 'xai-responses',
  family: 'responses',
  // A Responses event whose response names a grok model (listed before openai-responses).
  detect: (payload) => isResponsesEvent(payload) && isGrok(obj(payload['response'])?.['model']),
  createResponse: responsesHandlers({ hostedCustomToolCalls: true }),
});
