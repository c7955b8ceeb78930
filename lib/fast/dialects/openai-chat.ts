/**
 * OpenAI-compatible Chat Completions fast path: a chunk with one choice whose
 * delta carries only text (`content`) and/or reasoning (`reasoning_content`,
 * `reasoning`), e.g.
 * `{"id":"chatcmpl-…","object":"chat.completion.chunk","created":1754693439,"model":"gpt-4o",…,"usage":null,"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"obfuscation":"…"}`.
 * Once `start` went out, the handler reads nothing but `choices`, `usage`,
 * `x_groq`, `error`, `citations` and `search_results`: every other key (id,
 * model, created, fingerprint, obfuscation…) is free. A finish_reason, a
 * usage object, citations, a choice's `message`, annotations, content parts
 * (an array), tool calls or a refusal take the parse path.
 */
import type { Json, JsonObject } from '../../events.js';
import type { ChatResponse } from '../../dialects/openai-chat.js';
import type { FastDialect } from '../registry.js';
import { TemplateBuilder, type Template } from '../template.js';

const DELTA = 1;
/** A tool call's argument fragment: `"tool_calls":[{"index":0,"function":{"arguments":"…"}}]` (no id or name: not a new call). */
const TOOL_ARGS = 2;

/** choices[0].index (absent: 0) */
const F_CHOICE = 0;
const F_CONTENT = 1;
const F_REASONING_CONTENT = 2;
const F_REASONING = 3;
/** tool_calls[0].index (absent: 0) */
const F_TOOL = 4;
const F_ARGUMENTS = 5;

const DELTA_FIELDS: Record<string, number> = { content: F_CONTENT, reasoning_content: F_REASONING_CONTENT, reasoning: F_REASONING };

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function learnChatTemplate(p: JsonObject): Template | null {
  const choices = p['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const c = choices[0];
  if (!isObj(c) || !isObj(c['delta'])) return null;
  // the usual misses (the finish chunk, the usage chunk) are told apart before building anything
  if (c['finish_reason'] !== undefined && c['finish_reason'] !== null) return null;
  const kind = Array.isArray(c['delta']['tool_calls']) ? TOOL_ARGS : DELTA;
  const b = new TemplateBuilder(kind).open();
  for (const k in p) {
    const v = p[k];
    if (k === 'choices') {
      b.key(k);
      if (!choice(b, c, kind)) return null;
    } else if (k === 'usage' || k === 'error' || k === 'citations' || k === 'search_results') {
      // (citations are read by the handler, and repeats dropped there: such chunks take the parse path)
      if (v !== null) return null;
      b.key(k).constant(v);
    } else if (k === 'x_groq') return null;
    else b.key(k).free(v);
    if (b.failed) return null;
  }
  return b.close().build();
}

/** `[{"index":0,"delta":{…},"finish_reason":null,…}]` */
function choice(b: TemplateBuilder, c: JsonObject, kind: number): boolean {
  b.openArray().element().open();
  let sawDelta = false;
  for (const k in c) {
    const v = c[k];
    if (k === 'index') b.key(k).int(F_CHOICE, v);
    else if (k === 'finish_reason' || k === 'message') {
      if (v !== null) return false;
      b.key(k).constant(v);
    } else if (k === 'delta') {
      b.key(k).open();
      const d = v as JsonObject;
      for (const dk in d) {
        const dv = d[dk];
        const f = DELTA_FIELDS[dk];
        if (f !== undefined) {
          if (typeof dv === 'string') {
            b.key(dk).string(f, dv);
            sawDelta = true;
          } else if (dv === null) b.key(dk).constant(dv);
          else return false;
        } else if (dk === 'role') b.key(dk).free(dv);
        else if (dk === 'tool_calls' && kind === TOOL_ARGS) {
          if (!toolCall(b.key(dk), dv)) return false;
          sawDelta = true;
        } else if (dk === 'refusal' || dk === 'tool_calls' || dk === 'function_call') {
          if (dv !== null) return false;
          b.key(dk).constant(dv);
        } else return false;
      }
      b.close();
    } else b.key(k).free(v);
    if (b.failed) return false;
  }
  b.close().closeArray();
  return sawDelta;
}

/** `[{"index":0,"function":{"arguments":"…"}}]`, `type` free; an id or a name would start a call. */
function toolCall(b: TemplateBuilder, calls: Json | undefined): boolean {
  if (!Array.isArray(calls) || calls.length !== 1) return false;
  const tc = calls[0];
  if (!isObj(tc)) return false;
  const fn = tc['function'];
  if (!isObj(fn) || typeof fn['arguments'] !== 'string') return false;
  b.openArray().element().open();
  for (const k in tc) {
    if (k === 'index') b.key(k).int(F_TOOL, tc[k]);
    else if (k === 'type') b.key(k).free(tc[k]);
    else if (k === 'function') {
      b.key(k).open();
      for (const fk in fn) {
        if (fk === 'arguments') b.key(fk).string(F_ARGUMENTS, fn[fk]);
        else return false;
      }
      b.close();
    } else return false;
  }
  b.close().closeArray();
  return !b.failed;
}

/**
 * What onPayload → onChoice does for a one-choice text/reasoning chunk or an
 * argument fragment once `start` went out; false for a chunk that maps to
 * nothing (raw) or would start a call.
 */
export const chatFast: FastDialect<ChatResponse> = {
  learnTemplate: learnChatTemplate,
  onTemplate(h, m, ctx) {
    if (!h.startEmitted) return false;
    if (m.kind === TOOL_ARGS) {
      const args = m.str(F_ARGUMENTS);
      if (args === undefined || args === '') return false;
      const k = m.int(F_CHOICE) ?? 0;
      const call = h.openCall(k, m.int(F_TOOL) ?? 0);
      if (call === undefined) return false;
      h.argsDelta(k, call, args);
      return true;
    }
    const reasoning = m.filled(F_REASONING_CONTENT) ? F_REASONING_CONTENT : m.filled(F_REASONING) ? F_REASONING : -1;
    const hasContent = m.filled(F_CONTENT);
    if (reasoning < 0 && !hasContent) return false;
    const k = m.int(F_CHOICE) ?? 0;
    const index = h.textIndex(k);
    // choice 0's text may go straight to a fused final accumulator, as its wire bytes
    if (reasoning >= 0 && !(k === 0 && ctx.takeText(true, index, -1, m, reasoning))) h.textDelta(k, index, true, m.str(reasoning)!);
    if (hasContent && !(k === 0 && ctx.takeText(false, index, -1, m, F_CONTENT))) h.textDelta(k, index, false, m.str(F_CONTENT)!);
    return true;
  },
};
