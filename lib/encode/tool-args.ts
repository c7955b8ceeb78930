/** A call's arguments for wires whose calls hold a JSON object (Gemini `args`, Interactions `arguments`). */
import { isObject } from '../dialects/helpers.js';
import type { Json, JsonObject } from '../events.js';

/**
 * The arguments text as a JSON object: `{}` for none, the object itself when
 * it is one, else `{"input": …}` holding the parsed value (a JSON array,
 * string…) or the text (free-form input, or JSON cut short): `wrapped`, which
 * the target reports as `tool_input`.
 */
export function argumentsObject(text: string): { args: JsonObject; wrapped: boolean } {
  if (text === '') return { args: {}, wrapped: false };
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return { args: { input: text }, wrapped: true };
  }
  return isObject(parsed) ? { args: parsed, wrapped: false } : { args: { input: parsed }, wrapped: true };
}
