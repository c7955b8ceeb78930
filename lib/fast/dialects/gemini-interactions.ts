/**
 * Gemini Interactions fast path: `step.delta` payloads carrying text, a
 * thought summary or a string arguments fragment, e.g.
 * `{"index":1,"delta":{"text":"Hi","type":"text"},"event_type":"step.delta","event_id":"…"}`.
 * `event_id` (string or number) becomes the cursor; keys the handler does not
 * read are free.
 */
import type { Json, JsonObject } from '../../events.js';
import { TemplateBuilder, type Template } from '../template.js';

export const TEXT = 1;
export const THOUGHT = 2;
export const ARGUMENTS = 3;

export const F_INDEX = 0;
export const F_TEXT = 1;
/** event_id when a string */
export const F_EVENT_ID = 2;
/** event_id when a number */
export const F_EVENT_NUMBER = 3;

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function learnInteractionsTemplate(p: JsonObject): Template | null {
  const eventType = p['event_type'];
  const type = typeof eventType === 'string' ? eventType : p['type'];
  if (type !== 'step.delta') return null;
  const delta = p['delta'];
  if (!isObj(delta)) return null;
  const dt = delta['type'];
  const kind = dt === 'text' ? TEXT : dt === 'thought_summary' ? THOUGHT : dt === 'arguments_delta' ? ARGUMENTS : 0;
  if (kind === 0) return null;
  const b = new TemplateBuilder(kind).open();
  for (const k in p) {
    const v = p[k];
    if (k === 'event_type') b.key(k).constant(v);
    else if (k === 'type') {
      if (typeof eventType === 'string') b.key(k).free(v);
      else b.key(k).constant(v);
    } else if (k === 'event_id') {
      if (typeof v === 'string') b.key(k).string(F_EVENT_ID, v);
      else b.key(k).int(F_EVENT_NUMBER, v);
    } else if (k === 'index') b.key(k).int(F_INDEX, v);
    else if (k === 'delta') {
      b.key(k).open();
      let sawValue = false;
      for (const dk in delta) {
        const dv = delta[dk];
        if (dk === 'type') b.key(dk).constant(dv);
        else if (kind === TEXT && dk === 'text') {
          b.key(dk).string(F_TEXT, dv);
          sawValue = true;
        } else if (kind === ARGUMENTS && dk === 'arguments') {
          b.key(dk).string(F_TEXT, dv);
          sawValue = true;
        } else if (kind === THOUGHT && dk === 'content') {
          // the summary text is content.text; a plain `text` beside it would be a second candidate
          if (!isObj(dv) || typeof dv['text'] !== 'string' || 'text' in delta) return null;
          b.key(dk).open();
          for (const ck in dv) {
            if (ck === 'text') b.key(ck).string(F_TEXT, dv[ck]);
            else b.key(ck).free(dv[ck]);
          }
          b.close();
          sawValue = true;
        } else if (kind === THOUGHT && dk === 'text') return null;
        else b.key(dk).free(dv);
      }
      if (!sawValue) return null;
      b.close();
    } else b.key(k).free(v);
    if (b.failed) return null;
  }
  return b.close().build();
}
