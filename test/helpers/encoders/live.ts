/**
 * Gemini Live wire encoder: a session log of server messages as JSON values
 * (pretty-printed like fixtures/gemini-live/*.json, or one per line):
 * setupComplete, then per turn `serverContent.modelTurn` parts (one per
 * message), top-level `toolCall` messages, and `turnComplete` with the
 * turn's usageMetadata. The wire has no max-tokens or refusal ending.
 */
import type { JsonObject } from '../../../lib/events.js';
import {
  expectedTools,
  layoutRng,
  noUsage,
  textOf,
  type DialectEncoder,
  type ExpectedFinal,
  type GenResponse,
} from './model.js';

/** The turn ends on a tool call nobody answered: no model output came after the last call. */
function endsOnToolCall(r: GenResponse): boolean {
  for (let i = r.blocks.length - 1; i >= 0; i--) {
    const b = r.blocks[i]!;
    if (b.kind === 'tool') return true;
    // Empty text parts carry nothing, so they do not count as output.
    if (b.deltas.some((d) => d !== '')) return false;
  }
  return false;
}

function sessionIdOf(log: GenResponse[]): string | null {
  const first = log[0];
  return first === undefined || first.layout % 3 === 0 ? null : `sess-${first.id}`;
}

function encodeLog(log: GenResponse[]): Buffer {
  const sessionId = sessionIdOf(log);
  let out = '';
  let pretty = true;
  const send = (m: JsonObject): void => {
    out += (pretty ? JSON.stringify(m, null, 2) : JSON.stringify(m)) + '\n';
  };
  send({ setupComplete: sessionId === null ? {} : { sessionId } });
  for (const r of log) {
    const pick = layoutRng(r);
    pretty = pick() < 0.5;
    for (const b of r.blocks) {
      if (b.kind === 'tool') {
        send({ toolCall: { functionCalls: [{ name: b.name, args: b.args, id: b.id }] } });
        continue;
      }
      for (const d of b.deltas) {
        const part: JsonObject = b.kind === 'reasoning' ? { text: d, thought: true } : { text: d };
        send({ serverContent: { modelTurn: { role: 'model', parts: [part] } } });
      }
    }
    if (pick() < 0.5) send({ serverContent: { generationComplete: true } });
    const last: JsonObject = { serverContent: { turnComplete: true } };
    const u = r.usage;
    if (u !== null) {
      const m: JsonObject = {
        promptTokenCount: u.input,
        responseTokenCount: u.output - u.reasoning,
        totalTokenCount: u.input + u.output,
      };
      if (u.reasoning > 0) m['thoughtsTokenCount'] = u.reasoning;
      if (u.cached > 0) m['cachedContentTokenCount'] = u.cached;
      last['usageMetadata'] = m;
    }
    send(last);
  }
  return Buffer.from(out, 'utf8');
}

export const geminiLiveEncoder: DialectEncoder = {
  label: 'gemini-live',
  dialect: 'gemini-live',
  options: {},
  encode: encodeLog,
  expect(r): ExpectedFinal {
    const u = r.usage;
    return {
      // `start` carries the log's session id, not the turn's: `id` is not checked per turn.
      model: null,
      text: textOf(r, 'text'),
      reasoning: textOf(r, 'reasoning'),
      toolCalls: expectedTools(r, true),
      stopReason: endsOnToolCall(r) ? 'tool_use' : 'end',
      providerReason: null,
      usage:
        u === null
          ? noUsage()
          : {
              inputTokens: u.input,
              outputTokens: u.output,
              totalTokens: u.input + u.output,
              reasoningTokens: u.reasoning > 0 ? u.reasoning : null,
              cachedInputTokens: u.cached > 0 ? u.cached : null,
            },
    };
  },
};
