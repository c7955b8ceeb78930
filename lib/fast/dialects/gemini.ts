/**
 * Gemini streamGenerateContent fast path (SSE and the pretty-printed JSON
 * array alike): a chunk with one candidate holding one text or thought part,
 * e.g. `{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"usageMetadata":{…},"modelVersion":"…","responseId":"…"}`.
 * usageMetadata changes on every chunk: it is captured as JSON text and only
 * parsed if it turns out to be the last one (the handler keeps the last).
 * Anything that would make the chunk notable (raw), a finishReason, a
 * function call or a second part takes the parse path.
 */
import type { Json, JsonObject } from '../../events.js';
import type { GeminiResponse } from '../../dialects/gemini.js';
import type { FastDialect } from '../registry.js';
import { TemplateBuilder, type Template } from '../template.js';

const TEXT = 1;
const THOUGHT = 2;

const F_CANDIDATE = 0;
const F_TEXT = 1;
const F_SIGNATURE = 2;
/** usageMetadata, as JSON text */
const F_USAGE = 3;

/** Top-level keys the handler never reports (see QUIET_TOP in lib/dialects/gemini.ts). */
const QUIET_TOP = new Set(['modelVersion', 'responseId', 'createTime', 'turnToken']);
/** Candidate keys that are neither read nor reported (see QUIET_CANDIDATE in lib/dialects/gemini.ts). */
const QUIET_CANDIDATE = new Set(['avgLogprobs', 'tokenCount']);

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An empty value (null, [], {}) carries nothing: kept as a constant, so a non-empty one takes the parse path. */
function isEmpty(v: Json | undefined): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObj(v) && Object.keys(v).length === 0;
}

function learnGeminiTemplate(p: JsonObject): Template | null {
  const cands = p['candidates'];
  if (!Array.isArray(cands) || cands.length !== 1) return null;
  const cand = cands[0];
  if (!isObj(cand)) return null;
  const content = cand['content'];
  if (!isObj(content)) return null;
  const parts = content['parts'];
  if (!Array.isArray(parts) || parts.length !== 1) return null;
  const part = parts[0];
  if (!isObj(part) || typeof part['text'] !== 'string') return null;
  // the usual misses (a response's last chunk, a function call) are told apart before building anything
  const finish = cand['finishReason'];
  if (finish !== undefined && finish !== null && finish !== '') return null;
  const kind = part['thought'] === true ? THOUGHT : TEXT;
  const b = new TemplateBuilder(kind).open();
  for (const k in p) {
    const v = p[k];
    if (k === 'candidates') {
      b.key(k).openArray().element().open();
      for (const ck in cand) {
        const cv = cand[ck];
        if (ck === 'content') {
          b.key(ck).open();
          for (const tk in content) {
            if (tk === 'parts') {
              b.key(tk).openArray().element().open();
              for (const pk in part) {
                const pv = part[pk];
                if (pk === 'text') b.key(pk).string(F_TEXT, pv);
                else if (pk === 'thought') b.key(pk).constant(pv);
                else if (pk === 'thoughtSignature') b.key(pk).string(F_SIGNATURE, pv);
                else return null;
              }
              b.close().closeArray();
            } else b.key(tk).free(content[tk]); // role: never read
          }
          b.close();
        } else if (ck === 'index') b.key(ck).int(F_CANDIDATE, cv);
        else if (ck === 'finishReason') {
          if (cv !== null && cv !== '') return null;
          b.key(ck).constant(cv);
        } else if (QUIET_CANDIDATE.has(ck)) b.key(ck).free(cv);
        else if (isEmpty(cv)) b.key(ck).constant(cv);
        else return null;
      }
      b.close().closeArray();
    } else if (k === 'usageMetadata') {
      if (!isObj(v)) return null;
      b.key(k).json(F_USAGE, v);
    } else if (QUIET_TOP.has(k)) b.key(k).free(v);
    else if (isEmpty(v)) b.key(k).constant(v);
    else return null;
    if (b.failed) return null;
  }
  return b.close().build();
}

/**
 * What onPayload does for a one-candidate text or thought chunk a template
 * recognised; false for a chunk that would end the response or map to nothing.
 */
export const geminiFast: FastDialect<GeminiResponse> = {
  learnTemplate: learnGeminiTemplate,
  onTemplate(h, m, ctx) {
    if (!h.started) return false;
    if (!m.filled(F_TEXT)) return false;
    const k = m.int(F_CANDIDATE) ?? 0;
    // Not finishing: the response ends when every candidate has a finishReason, and this one gets none.
    const c = h.openCandidate(k);
    if (c === null) return false;
    const u = m.json(F_USAGE);
    if (u !== undefined) h.setUsage(u);
    const thought = m.kind === THOUGHT;
    const index = h.textBlock(c, thought);
    // candidate 0's text may go straight to a fused final accumulator, as its wire bytes
    if (!(k === 0 && ctx.takeText(thought, index, -1, m, F_TEXT))) h.textDelta(c, index, thought, m.str(F_TEXT)!);
    else if (!thought) {
      // the handler still keeps the answer text (references, no copy) for its citations' offsets
      const raw = m.raw(F_TEXT);
      if (raw !== undefined) h.keepText(c, index, raw, true);
      else h.keepText(c, index, m.str(F_TEXT)!, false);
    }
    const sig = m.str(F_SIGNATURE);
    if (sig !== undefined && sig !== '') h.signature(c, index, sig);
    return true;
  },
};
