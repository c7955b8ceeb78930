/**
 * Anthropic Messages fast path: `content_block_delta` payloads carrying a
 * text, thinking or input_json delta (the bulk of every stream), e.g.
 * `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}   }`
 * (Anthropic pads some payloads with spaces before the last brace).
 * Whether an input_json_delta's call is provider-executed (server_tool_use,
 * mcp_tool_use) is the handler's block state, read by argsDelta on both paths;
 * citations_delta and the rest go to the parse path.
 */
import type { JsonObject } from '../../events.js';
import type { MessagesResponse } from '../../dialects/anthropic-messages.js';
import type { FastDialect } from '../registry.js';
import { TemplateBuilder, type Template } from '../template.js';

const TEXT = 1;
const THINKING = 2;
const INPUT_JSON = 3;

/** Fields: the block index (may be absent: xAI), the delta's text. */
const F_INDEX = 0;
const F_VALUE = 1;

const VALUE_KEY: Record<string, [number, string]> = {
  text_delta: [TEXT, 'text'],
  thinking_delta: [THINKING, 'thinking'],
  input_json_delta: [INPUT_JSON, 'partial_json'],
};

function learnMessagesTemplate(p: JsonObject): Template | null {
  if (p['type'] !== 'content_block_delta') return null;
  const delta = p['delta'];
  if (typeof delta !== 'object' || delta === null || Array.isArray(delta)) return null;
  const dt = delta['type'];
  const spec = typeof dt === 'string' ? VALUE_KEY[dt] : undefined;
  if (spec === undefined) return null;
  const [kind, valueKey] = spec;
  const b = new TemplateBuilder(kind).open();
  for (const k in p) {
    if (k === 'type') b.key(k).constant(p[k]);
    else if (k === 'index') b.key(k).int(F_INDEX, p[k]);
    else if (k === 'delta') {
      b.key(k).open();
      for (const dk in delta) {
        if (dk === 'type') b.key(dk).constant(dt);
        else if (dk === valueKey) b.key(dk).string(F_VALUE, delta[dk]);
        else return null;
      }
      b.close();
    } else return null;
  }
  if (!(valueKey in delta)) return null;
  return b.close().build();
}

/** What onBlockDelta does for a delta a template recognised; false when the parse path must decide (raw). */
export const messagesFast: FastDialect<MessagesResponse> = {
  learnTemplate: learnMessagesTemplate,
  onTemplate(h, m, ctx) {
    if (!m.filled(F_VALUE)) return false;
    switch (m.kind) {
      case TEXT:
      case THINKING: {
        const reasoning = m.kind === THINKING;
        const index = h.blockIndex(m.int(F_INDEX));
        if (!ctx.takeText(reasoning, index, -1, m, F_VALUE)) h.textDelta(index, reasoning, m.str(F_VALUE)!);
        return true;
      }
      case INPUT_JSON: {
        const block = h.openTool(m.int(F_INDEX));
        if (block === undefined) return false;
        h.argsDelta(block, m.str(F_VALUE)!);
        return true;
      }
      default:
        return false;
    }
  },
};
