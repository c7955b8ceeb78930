/** What the encoder tests share: the captures, the view of a final, what reading back must give. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectName, StopReason, UnifiedEvent, Usage } from '../../lib/events.js';
import { chain, runStage } from '../../lib/stage.js';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import { serializeLanes } from '../../lib/accumulate/lanes.js';
import { createEncoder } from '../../lib/encode/encoder.js';
import type { LossKind, LossReport, TargetName } from '../../lib/encode/types.js';
import { corpusFiles, repoRoot } from './corpus.js';

export interface Capture {
  name: string;
  bytes: Buffer;
}

/**
 * The finals of `events` as an encoder writes their responses: laned ones one
 * after another as they can be (serializeLanes), and no agent session summary
 * (`kind: 'session'`: no response wire has a place for a session, whose
 * events every target reports lost).
 */
export function wireFinals(events: UnifiedEvent[]): FinalResult[] {
  return (runStage(chain(serializeLanes(), createFinalAccumulator()), events) as FinalResult[]).filter((f) => f.kind !== 'session');
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

/** The token counts (a transcription's billed seconds no target carries: contentLosses requires them reported). */
function tokens(u: Usage): Usage {
  const { durationSeconds: _seconds, ...counts } = u;
  return counts;
}

export const view = (f: FinalResult): View => ({
  text: f.text,
  refusal: f.refusal,
  reasoning: f.reasoning,
  toolCalls: f.toolCalls,
  stopReason: f.stopReason,
  usage: tokens(f.usage),
  errors: f.errors.map((e) => e.code),
});

/** What one target's tests know about it (test/encode/expect/<target>.ts). */
export interface TargetExpectation {
  /** The dialect that reads the target's bytes back (none when `readBack` is false). */
  readAs?: DialectName;
  /** false: no dialect of ours reads this wire; round-trip.test.ts skips it (test/encode/sdk-<target>.test.ts reads it back). */
  readBack?: false;
  /** True when a final of this dialect is the target's own family (its signatures, citations and reasons carry as they came). */
  sameFamily(dialect: DialectName | null): boolean;
  /** What reading the target's bytes must give for one original final: the original, less what the target cannot carry. */
  expected(f: FinalResult): View;
  /** The loss kinds a final's content obliges the report to name. */
  mustReport(f: FinalResult): LossKind[];
}

/** Loss kinds every target without a place for them must report: hosted calls and results, files, citations, audio, transcription extras. */
export function contentLosses(f: FinalResult, carries: { providerCalls: boolean; citations: boolean }): Set<LossKind> {
  const kinds = new Set<LossKind>();
  for (const b of f.content) {
    if (b.type === 'tool_call' && b.providerExecuted === true && !carries.providerCalls) kinds.add('provider_tool_call');
    if (b.type === 'tool_result') kinds.add('tool_result');
    if (b.type === 'file') kinds.add('file');
  }
  if (f.citations.length > 0 && !carries.citations) kinds.add('citation');
  if (f.audio !== null) kinds.add('audio');
  // transcription and translation extras: no target has a place for them
  if (f.usage.durationSeconds !== undefined) kinds.add('usage');
  if (f.language !== undefined) kinds.add('language');
  if (f.segments !== undefined) kinds.add('segment');
  if (f.inputTranscript !== undefined) kinds.add('input_transcript');
  if (f.notices !== undefined) kinds.add('notice');
  return kinds;
}

export function encode(events: UnifiedEvent[], to: TargetName): { text: string; losses: LossReport[] } {
  const losses: LossReport[] = [];
  const text = runStage(createEncoder({ to, onLoss: (r) => losses.push(r) }), events).join('');
  return { text, losses };
}

