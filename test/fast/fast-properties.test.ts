/**
 * The objects the hot path reads a property of per event or per chunk stay
 * in V8's fast mode. An object literal with a getter is kept in dictionary
 * mode: every read on it (ctx.takeText per delta, normalizer.pushEvent per event)
 * then goes through the generic inline cache as a hash lookup, which cost 9 %
 * of the instructions of a warm run on Anthropic at 1.5 KiB chunks and 11 %
 * on Interactions. A getter added back to one of them fails here.
 */
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInThisContext } from 'node:vm';
import { makeNormalizer, resolveNormalizerOptions } from '../../lib/dialects/normalizer.js';
import { createFrameDecoder } from '../../lib/dialects/decoder.js';
import { makeTextNormalizer } from '../../lib/fast/text-normalizer.js';
import { fastOf, type FastContext } from '../../lib/fast/registry.js';
import { dialects, dialectNames } from '../../lib/dialects/registry.js';
import type { DialectContext } from '../../lib/dialects/types.js';
import { createBomStripper } from '../../lib/framing/bytes.js';
import { createAutoFramer } from '../../lib/framing/detect.js';

setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = runInThisContext('(o) => %HasFastProperties(o)') as (o: object) => boolean;
hasFastProperties({}); // (compiled on its first call: while the flag is on)
setFlagsFromString('--no-allow-natives-syntax');

t.test('a getter on a plain object is what this test catches', async (t) => {
  t.equal(hasFastProperties({ a: 1, f: () => 1 }), true);
  t.equal(hasFastProperties({ get a() { return 1; } }), false);
});

t.test('the normalizer, before and after a response, and the context it gives the dialect', async (t) => {
  let ctx: DialectContext | null = null;
  const definition = dialects['anthropic-messages'];
  const create = definition.createResponse;
  definition.createResponse = (c) => {
    ctx = c;
    return create(c);
  };
  try {
    const n = makeNormalizer(resolveNormalizerOptions({ dialect: 'anthropic-messages' }));
    t.equal(hasFastProperties(n), true, 'normalizer');
    const payload = { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 1 } } };
    n.push({ kind: 'json', payload, event: 'message_start', frame: 0 }, () => {});
    t.not(ctx, null, 'the dialect got its context');
    t.equal(hasFastProperties(ctx!), true, 'context');
    t.equal(hasFastProperties(n), true, 'normalizer with a response open');
    t.equal(n.dialect, 'anthropic-messages');
  } finally {
    definition.createResponse = create;
  }
  const auto = makeNormalizer(resolveNormalizerOptions());
  auto.push({ kind: 'json', payload: { type: 'message_start', message: { id: 'msg_1' } }, event: 'message_start', frame: 0 }, () => {});
  t.equal(auto.dialect, 'anthropic-messages', 'a detected dialect is still readable');
  t.equal(hasFastProperties(auto), true, 'normalizer after detecting its dialect');
});

t.test("the fused pipeline's text normalizer, and the context it gives a fast twin", async (t) => {
  const twin = fastOf('anthropic-messages')!;
  const onTemplate = twin.onTemplate;
  let fctx: FastContext | null = null;
  twin.onTemplate = (h, m, c) => {
    fctx = c;
    return onTemplate.call(twin, h, m, c);
  };
  try {
    const n = makeTextNormalizer(resolveNormalizerOptions({ dialect: 'anthropic-messages' }));
    t.equal(hasFastProperties(n), true, 'text normalizer');
    n.setTextSink(() => true);
    const decoder = createFrameDecoder();
    const payloads = [
      '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"two"}}',
    ];
    for (const data of payloads) {
      const frame = { event: 'message', data, id: '' };
      const k = decoder.number(frame);
      if (!n.pushText(data, k, undefined, () => {})) decoder.decode(frame, k, (pe) => n.push(pe, () => {}));
    }
    t.not(fctx, null, 'a template matched');
    t.equal(hasFastProperties(fctx!), true, 'fast context');
    t.equal(hasFastProperties(n), true, 'text normalizer with a response open');
  } finally {
    twin.onTemplate = onTemplate;
  }
});

t.test('every dialect response handler, also once it has started', async (t) => {
  const ctx: DialectContext = { emit() {}, at: undefined, frame: 0 };
  for (const name of dialectNames) {
    const handler = dialects[name].createResponse(ctx);
    t.equal(hasFastProperties(handler), true, name);
    t.equal(handler.started, false, `${name}: not started`);
  }
  const handler = dialects['gemini-interactions'].createResponse(ctx);
  handler.onPayload({ event_type: 'interaction.created', interaction: { id: 'v1_x', model: 'm' } }, 'interaction.created');
  t.equal(handler.started, true, 'the started field follows the response');
  t.equal(hasFastProperties(handler), true, 'started handler');
});

t.test('the BOM stripper and the auto framer (read per chunk)', async (t) => {
  const bom = createBomStripper();
  t.equal(hasFastProperties(bom), true);
  bom.take(Buffer.from('\ufeffdata: 1\n\n'));
  t.equal(bom.stripped, 3);
  t.equal(hasFastProperties(bom), true, 'after stripping');
  const auto = createAutoFramer();
  t.equal(hasFastProperties(auto), true);
  auto.push(Buffer.from('data: {}\n\n'), () => {});
  t.equal(auto.framing, 'sse');
  t.equal(hasFastProperties(auto), true, 'after deciding');
});
