/** What the encoder tests share: the captures, the view of a final, what reading back must give. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { StopReason, UnifiedEvent, Usage } from '../../lib/events.js';
import { runStage } from '../../lib/stage.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import type { LossKind, LossReport, TargetName } from '../../lib/encode/types.js';
import { corpusFiles, repoRoot } from './corpus.js';

export interface Capture {
  name: string;
  bytes: Buffer;
}

/** Every corpus capture and every hand-written fixture that is a stream (not an error body). */
export function captures(): Capture[] {
  const out: Capture[] = corpusFiles()
    .filter((f) => !f.name.endsWith('.body'))
    .map((f) => ({ name: f.name, bytes: f.bytes }));
  const fixtures = join(repoRoot, 'fixtures');
  for (const dir of readdirSync(fixtures).sort()) {
    if (dir === 'corpus' || dir === 'doctor' || dir === 'har' || !statSync(join(fixtures, dir)).isDirectory()) continue;
    for (const f of readdirSync(join(fixtures, dir)).sort()) {
      if (!/\.(sse|json|jsonl|ndjson)$/.test(f)) continue;
      out.push({ name: `${dir}/${f}`, bytes: readFileSync(join(fixtures, dir, f)) });
    }
  }
  return out;
}

export interface View {
  text: string;
  refusal: string | null;
  reasoning: string;
  toolCalls: FinalResult['toolCalls'];
  stopReason: StopReason;
  usage: Usage;
  errors: string[];
}

export const view = (f: FinalResult): View => ({
  text: f.text,
  refusal: f.refusal,
  reasoning: f.reasoning,
  toolCalls: f.toolCalls,
  stopReason: f.stopReason,
  usage: f.usage,
  errors: f.errors.map((e) => e.code),
});

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, reasoningTokens: null, cachedInputTokens: null };
export const ANTHROPIC = new Set(['anthropic-messages', 'xai-messages']);

/** What reading the target's bytes must give for one original final: the original, less what the target cannot carry. */
export function expected(f: FinalResult, to: TargetName): View {
  const v = view(f);
  if (to === 'openai-chat') {
    v.reasoning = '';
    if (v.stopReason === 'other') v.stopReason = 'end';
    // the Chat reader reports a finish_reason 'stop' with tool calls as tool_use
    if (v.stopReason === 'end' && v.toolCalls.length > 0) v.stopReason = 'tool_use';
    return v;
  }
  // anthropic-messages: refusal text is written as text, in stream order
  v.text = f.content.map((b) => (b.type === 'text' || b.type === 'refusal' ? b.text : '')).join('');
  v.refusal = null;
  if (v.stopReason === 'other' && !(f.dialect !== null && ANTHROPIC.has(f.dialect))) v.stopReason = 'end';
  const u = f.usage;
  if (v.stopReason === 'error' || Object.values(u).every((n) => n === null)) v.usage = ZERO;
  else {
    // numbers only, and no total on this wire: unknown input or output counts are written as 0 (and
    // reported), the reader adds input and output
    const inputTokens = u.inputTokens ?? 0;
    const outputTokens = u.outputTokens ?? 0;
    v.usage = { ...u, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  }
  return v;
}

/** The loss kinds a final's content obliges the report to name. */
export function mustReport(f: FinalResult, to: TargetName, sameFamily: boolean): LossKind[] {
  const kinds = new Set<LossKind>();
  if (to === 'openai-chat' && f.reasoning !== '') kinds.add('reasoning');
  for (const b of f.content) {
    if (b.type === 'tool_call' && b.providerExecuted === true && !(to === 'anthropic-messages' && sameFamily)) kinds.add('provider_tool_call');
    if (b.type === 'tool_result') kinds.add('tool_result');
    if (b.type === 'file') kinds.add('file');
  }
  if (f.citations.length > 0 && !(to === 'anthropic-messages' && sameFamily)) kinds.add('citation');
  if (f.audio !== null) kinds.add('audio');
  return [...kinds];
}

export function encode(events: UnifiedEvent[], to: TargetName): { text: string; losses: LossReport[] } {
  const losses: LossReport[] = [];
  const text = runStage(createEncoder({ to, onLoss: (r) => losses.push(r) }), events).join('');
  return { text, losses };
}

