/**
 * Gemini Interactions fast path: `step.delta` payloads carrying text, a
 * thought summary or a string arguments fragment, e.g.
 * `{"index":1,"delta":{"text":"Hi","type":"text"},"event_type":"step.delta","event_id":"…"}`.
 * `event_id` (string or number) becomes the cursor; keys the handler does not
 * read are free.
 */
import type { Json, JsonObject } from '../../events.js';
import type { InteractionsResponse } from '../../dialects/gemini-interactions.js';
import type { FastDialect } from '../registry.js';
import { TemplateBuilder, type Template } from '../template.js';

const TEXT = 1;
const THOUGHT = 2;
const ARGUMENTS = 3;

const F_INDEX = 0;
const F_TEXT = 1;
/** event_id when a string */
const F_EVENT_ID = 2;
/** event_id when a number */
const F_EVENT_NUMBER = 3;

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function learnInteractionsTemplate(p: JsonObject): Template | null {
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

/** What onPayload → stepDelta does for a step.delta a template recognised; false for what ends up raw. */
export const interactionsFast: FastDialect<InteractionsResponse> = {
  learnTemplate: learnInteractionsTemplate,
  onTemplate(h, m, ctx) {
    if (!h.started) return false;
    const index = m.int(F_INDEX);
    if (index === undefined || !m.filled(F_TEXT)) return false;
    switch (m.kind) {
      case TEXT:
      case THOUGHT: {
        const reasoning = m.kind === THOUGHT;
        h.at(m.str(F_EVENT_ID) ?? m.int(F_EVENT_NUMBER));
        // straight to a fused final accumulator, as its wire bytes, when it takes it
        if (!ctx.takeText(reasoning, index, -1, m, F_TEXT)) h.textDelta(index, reasoning, m.str(F_TEXT)!);
        else if (!reasoning) {
          // the handler still keeps the step's text (references, no copy) for its citations' offsets
          const raw = m.raw(F_TEXT);
          if (raw !== undefined) h.keepText(index, raw, true);
          else h.keepText(index, m.str(F_TEXT)!, false);
        }
        return true;
      }
      case ARGUMENTS: {
        const call = h.openCall(index);
        if (call === undefined) return false;
        h.at(m.str(F_EVENT_ID) ?? m.int(F_EVENT_NUMBER));
        h.argsDelta(index, call, m.str(F_TEXT)!);
        return true;
      }
      default:
        return false;
    }
  },
};
