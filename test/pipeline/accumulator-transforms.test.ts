/**
 * The accumulator Transforms (textAccumulator(), toolArgsAccumulator(),
 * usageAccumulator(), signatureAccumulator()) in stream.pipeline after the
 * separate event stages: events pass through them unchanged and in order,
 * and the state each keeps on `.stage` is what its step code gives when fed
 * the same events directly. Over every corpus stream, at three chunkings.
 */
import t from 'tap';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UnifiedEvent } from '../../lib/events.js';
import { autoFramer, jsonArrayFramer, jsonValuesFramer, sseFramer } from '../../lib/pipeline/framers.js';
import { decoder, normalizer } from '../../lib/pipeline/stages.js';
import { signatureAccumulator, textAccumulator, toolArgsAccumulator, usageAccumulator } from '../../lib/pipeline/accumulators.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { createTextAccumulator } from '../../lib/accumulate/text.js';
import { createToolArgsAccumulator } from '../../lib/accumulate/tool-args.js';
import { createUsageAccumulator } from '../../lib/accumulate/usage.js';
import { createSignatureAccumulator } from '../../lib/accumulate/signatures.js';
import { runStage } from '../../lib/stage.js';
import { corpusFiles } from '../helpers/corpus.js';
import { randomChunks } from '../helpers/chunks.js';

/** What the four accumulators hold at the end (tool-call previews by id included). */
function stateOf(
  text: ReturnType<typeof createTextAccumulator>,
  tools: ReturnType<typeof createToolArgsAccumulator>,
  usage: ReturnType<typeof createUsageAccumulator>,
  sigs: ReturnType<typeof createSignatureAccumulator>,
): unknown {
  const calls = tools.calls();
  return {
    blocks: text.blocks(),
    text: text.text(),
    reasoning: text.reasoning(),
    refusal: text.refusal(),
    calls,
    previews: calls.map((c) => tools.preview(c.id)),
    toolErrors: tools.errors(),
    usage: usage.usage(),
    rawUsage: usage.raw(),
    signatures: sigs.all(),
    lastSignature: sigs.last(),
  };
}

const files = corpusFiles();

/** The framer `auto` picks for these bytes, by name (its first non-blank byte: see framing/detect.ts). */
function framerFor(bytes: Buffer): ReturnType<typeof autoFramer> {
  const first = bytes.toString('latin1').trimStart()[0];
  return first === '[' ? jsonArrayFramer() : first === '{' ? jsonValuesFramer() : sseFramer();
}

t.test('accumulator Transforms: events unchanged, state as their step code gives', async (t) => {
  let withTools = 0;
  let withSignatures = 0;
  for (const f of files) {
    const expected = decodeAll([f.bytes]);
    const text = createTextAccumulator();
    const tools = createToolArgsAccumulator();
    const usage = createUsageAccumulator();
    const sigs = createSignatureAccumulator();
    for (const stage of [text, tools, usage, sigs]) runStage(stage, expected);
    const want = stateOf(text, tools, usage, sigs);
    if (tools.calls().length > 0) withTools++;
    if (sigs.all().length > 0) withSignatures++;
    for (const [name, chunks] of [
      ['whole', [f.bytes]],
      ['random', randomChunks(f.bytes, f.bytes.length, 300)],
      ['1-byte', f.bytes.length <= 4096 ? [...f.bytes].map((b) => Buffer.from([b])) : randomChunks(f.bytes, 7, 8)],
      ['whole, its framing named', [f.bytes]],
    ] as const) {
      const accs = [textAccumulator(), toolArgsAccumulator(), usageAccumulator(), signatureAccumulator()] as const;
      const got: UnifiedEvent[] = [];
      await pipeline(
        Readable.from(chunks),
        name.endsWith('named') ? framerFor(f.bytes) : autoFramer(),
        decoder(),
        normalizer(),
        ...accs,
        new Writable({ objectMode: true, write: (ev: UnifiedEvent, _e, cb) => (got.push(ev), cb()) }),
      );
      t.same(got, expected, `${f.name} (${name}): events pass through unchanged`);
      t.same(stateOf(accs[0].stage, accs[1].stage, accs[2].stage, accs[3].stage), want, `${f.name} (${name}): state`);
    }
  }
  // the corpus exercises what the state readers report
  t.ok(withTools >= 10, `${withTools} streams with tool calls`);
  t.ok(withSignatures >= 10, `${withSignatures} streams with signatures`);
});
