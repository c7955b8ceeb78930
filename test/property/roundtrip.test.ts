/**
 * Round-trip properties for every dialect: random valid responses in the
 * unified vocabulary are encoded in the dialect's exact wire form
 * (test/helpers/encoders), then
 * (a) decoding at random chunk boundaries gives exactly the events and
 *     finals of the whole-buffer decode;
 * (b) the finals carry what was generated: text, reasoning, tool calls,
 *     stop reason, usage, one final per response, no errors.
 * Seeded (PROPERTY_SEED, default fixed) so a failure reproduces; fast-check
 * prints the seed and the shrunk counterexample. PROPERTY_RUNS sets the runs
 * per dialect.
 */
import { deepStrictEqual, equal } from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import { createFinalAccumulator } from '../../lib/accumulate/final.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { decodeAll, type EventsStageOptions } from '../../lib/pipeline/events-stage.js';
import { runStage } from '../../lib/stage.js';
import { fixedChunks, splitAt } from '../helpers/chunks.js';
import { encoders } from '../helpers/encoders/index.js';
import { logArb, type DialectEncoder, type GenResponse } from '../helpers/encoders/model.js';

const SEED = Number(process.env['PROPERTY_SEED'] ?? 20251129);
const RUNS = Number(process.env['PROPERTY_RUNS'] ?? 60);

/** Cut points as fractions of the input (shrink towards fewer cuts). */
const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 24 });
/** A small fixed chunk size: cuts inside every field name, CRLF pair and multi-byte character. */
const tinyArb = fc.integer({ min: 1, max: 9 });

function splitByFractions(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((f) => Math.floor(f * buf.length)))].sort((a, b) => a - b);
  return splitAt(buf, points);
}

function finalsOf(chunks: Buffer[], options: EventsStageOptions): FinalResult[] {
  return runStage(createOutputStage({ ...options, output: 'final' }), chunks) as FinalResult[];
}

/** The part of a final that the generator determines, in the shape of the expectation. */
function comparable(enc: DialectEncoder, r: GenResponse, final: FinalResult): { got: unknown; want: unknown } {
  const want = enc.expect(r);
  const got: Record<string, unknown> = {
    dialect: final.dialect,
    model: final.model,
    text: final.text,
    reasoning: final.reasoning,
    toolCalls: final.toolCalls.map((tc, i) =>
      want.toolCalls[i]?.id === undefined ? { name: tc.name, arguments: tc.arguments } : { id: tc.id, name: tc.name, arguments: tc.arguments },
    ),
    stopReason: final.stopReason,
    providerReason: final.providerReason,
    usage: final.usage,
    errors: final.errors,
  };
  const expected: Record<string, unknown> = {
    dialect: enc.dialect,
    model: want.model,
    text: want.text,
    reasoning: want.reasoning,
    toolCalls: want.toolCalls,
    stopReason: want.stopReason,
    providerReason: want.providerReason,
    usage: want.usage,
    errors: [],
  };
  if (want.id !== undefined) {
    got['id'] = final.id;
    expected['id'] = want.id;
  }
  if (want.signatures !== undefined) {
    got['signatures'] = final.signatures.map((s) => s.signature);
    expected['signatures'] = want.signatures;
  }
  return { got, want: expected };
}

function roundTrip(enc: DialectEncoder, log: GenResponse[], cuts: number[], tiny: number): void {
  const bytes = enc.encode(log);
  const options: EventsStageOptions = { dialect: 'auto', ...enc.options };
  const withPositions: EventsStageOptions = { ...options, positions: true };

  // (a) chunk boundaries change nothing: events (with positions) and finals.
  const whole = decodeAll([bytes], withPositions);
  deepStrictEqual(decodeAll(splitByFractions(bytes, cuts), withPositions), whole, 'events at random cuts');
  deepStrictEqual(decodeAll(fixedChunks(bytes, tiny), withPositions), whole, `events in ${tiny}-byte chunks`);
  const finals = runStage(createFinalAccumulator(), whole);
  deepStrictEqual(finalsOf(splitByFractions(bytes, cuts), options), finals, 'finals at random cuts');

  // (b) what was generated comes back.
  const errors = whole.filter((e): e is UnifiedEvent & { type: 'error' } => e.type === 'error');
  deepStrictEqual(errors, [], 'a valid stream produces no error event');
  equal(finals.length, log.length, 'one final per response');
  log.forEach((r, i) => {
    const { got, want } = comparable(enc, r, finals[i]!);
    deepStrictEqual(got, want, `response ${i}`);
  });
}

for (const enc of encoders) {
  t.test(enc.label, async (tt) => {
    const property = fc.property(logArb, cutsArb, tinyArb, (log, cuts, tiny) => roundTrip(enc, log, cuts, tiny));
    try {
      fc.assert(property, { seed: SEED, numRuns: RUNS });
      tt.pass(`${RUNS} random logs round-trip (seed ${SEED})`);
    } catch (err) {
      tt.fail((err as Error).message);
    }
  });
}
