/**
 * xAI Responses API: OpenAI's event names and shapes, handled by the same code.
 * Observed differences, none of which needs its own mapping: `output_tokens`
 * already includes reasoning tokens (as on OpenAI, unlike xAI Chat), a function
 * call's whole JSON arrives in one arguments delta, snapshots carry
 * `created_at: 0`, there is no `[DONE]` and no background/resume mode. The one
 * behavioural difference: xAI's agent tools stream their sub-tool calls
 * (x_search: x_keyword_search, x_semantic_search, view_x_video…) as
 * `custom_tool_call` items that xAI runs itself. The wire shows it: their
 * names are not among the response's declared tools (`tools` lists only
 * `{type: "x_search"}`), their call ids are `xs_call_…` inside item ids
 * `ctc_<response id>_xs_call_…`, and the same response goes on to its text and
 * `completed` (usage counts them in `server_side_tool_usage_details`). So a
 * custom_tool_call is provider-executed here unless the response declares a
 * client function or custom tool of that name; its item carries no result,
 * so it has no tool_result. xAI's other server-side items
 * (web_search_call with `arguments`, image_generation_call, x_search_call,
 * code_execution_call, view_image_call, view_x_video_call) and its
 * response-level `citations` list are read by the shared handler.
 */
import { isGrok } from './detect.js';
import { obj } from './helpers.js';
import { isResponsesEvent, responsesHandlers } from './openai-responses.js';
import { responsesLanes } from './responses-lanes.js';
import { defineDialect } from './types.js';

export const xaiResponses = defineDialect({
  name: 'xai-responses',
  family: 'responses',
  // A Responses event whose response names a grok model (listed before openai-responses).
  detect: (payload) => isResponsesEvent(payload) && isGrok(obj(payload['response'])?.['model']),
  lanes: responsesLanes,
  createResponse: responsesHandlers({ hostedCustomToolCalls: true }),
});
