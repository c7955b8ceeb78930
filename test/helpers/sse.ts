/** SSE bodies built from payloads, the two ways providers frame them. */

/** Each payload as `event: <its type>` + `data:` (OpenAI Responses, Anthropic Messages and their xAI twins). */
export function typedSse(...payloads: object[]): string {
  return payloads.map((p) => `event: ${(p as { type?: string }).type ?? 'message'}\ndata: ${JSON.stringify(p)}\n\n`).join('');
}

/** Data-only events (Chat Completions); strings are sent as they are (e.g. `[DONE]`). */
export function dataSse(...payloads: (object | string)[]): string {
  return payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join('');
}
