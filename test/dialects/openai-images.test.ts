/**
 * OpenAI image generation and edits over SSE (`/v1/images/generations`,
 * `/v1/images/edits` with `stream: true`, `partial_images`). No capture
 * exists (the workplace's spec, shared/spec/next-wire.md A4): the fixtures are
 * hand-written from openai-node's ImageGen* / ImageEdit* stream event types
 * (src/resources/images.ts) and the API reference's Image Streaming page,
 * with tiny valid PNGs as the images.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { DialectOption, UnifiedEvent } from '../../lib/events.js';
import { imageMimeType } from '../../lib/dialects/openai-images.js';
import { createDiagnosis, formatReport } from '../../lib/doctor/index.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runStage } from '../../lib/stage.js';
import { runCli } from '../helpers/cli.js';
import { fixture, repoRoot } from '../helpers/corpus.js';
import { decodeEvents, detectedDialect, stable, type Input } from '../helpers/decode.js';
import { countType, ofType } from '../helpers/events.js';
import { dataSse } from '../helpers/sse.js';

const DIALECT = 'openai-images';
const decode = (input: Input, dialect: DialectOption = 'auto'): UnifiedEvent[] => decodeEvents(input, { dialect });
const finals = (input: Buffer | string): FinalResult[] => runStage(createOutputStage({ output: 'final' }), [typeof input === 'string' ? Buffer.from(input) : input]) as FinalResult[];

/** The decoded byte count of each file event, by decoding its base64. */
const decodedSizes = (events: UnifiedEvent[]): number[] => ofType(events, 'file').map((e) => Buffer.from(e.data, 'base64').length);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The usage event of a completed payload whose usage is `{input_tokens, input_tokens_details, output_tokens, total_tokens}`. */
const usageOf = (input: number, output: number, total: number, details: Record<string, number>): UnifiedEvent => ({
  type: 'usage',
  inputTokens: input,
  outputTokens: output,
  totalTokens: total,
  reasoningTokens: null,
  cachedInputTokens: null,
  raw: { input_tokens: input, input_tokens_details: details, output_tokens: output, total_tokens: total },
});

/** The fixture's payloads, parsed (to compare the events with what the wire said). */
const payloads = (name: string): Record<string, unknown>[] =>
  fixture(`${DIALECT}/${name}`)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

t.test('generation with 2 partial images: exact events at every chunking, byte counts, one file block in the final', (t) => {
  const bytes = fixture(`${DIALECT}/generation-partials.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  const [p0, p1, done] = payloads('generation-partials.sse');
  const { b64_json: image, ...meta } = done!;
  t.same(events, [
    { type: 'start', id: null, model: null, dialect: DIALECT },
    { type: 'file', index: 0, mimeType: 'image/png', data: p0!['b64_json'], partial: true },
    { type: 'file', index: 0, mimeType: 'image/png', data: p1!['b64_json'], partial: true },
    { type: 'raw', event: meta },
    { type: 'file', index: 0, mimeType: 'image/png', data: image },
    usageOf(50, 272, 322, { image_tokens: 0, text_tokens: 50 }),
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  t.notOk(JSON.stringify(ofType(events, 'raw')).includes(image as string), 'the raw metadata has no copy of the image');
  t.same(decodedSizes(events), [71, 73, 73]);
  t.ok(ofType(events, 'file').every((e) => Buffer.from(e.data, 'base64').subarray(0, 8).equals(PNG_SIGNATURE)), 'each decodes to a PNG');
  t.same(decode(bytes, DIALECT), events, 'forced: the same events');

  const [f, ...rest] = finals(bytes);
  t.same(rest, []);
  t.same(f!.content, [{ type: 'file', mimeType: 'image/png', data: image }], 'exactly one file block: the completed image, no preview');
  t.equal(JSON.stringify(f).split(image as string).length - 1, 1, 'the base64 appears once in the whole final');
  t.equal(f!.dialect, DIALECT);
  t.equal(f!.stopReason, 'end');
  t.same(f!.errors, []);
  t.same(f!.usage, { inputTokens: 50, outputTokens: 272, totalTokens: 322, reasoningTokens: null, cachedInputTokens: null });
  t.end();
});

t.test('edit with usage: exact events at every chunking, detected from image_edit.*', (t) => {
  const bytes = fixture(`${DIALECT}/edit-with-usage.sse`);
  t.equal(detectedDialect(bytes), DIALECT);
  const events = stable(t, bytes);
  const [p0, done] = payloads('edit-with-usage.sse');
  const { b64_json: image, ...meta } = done!;
  t.same(events, [
    { type: 'start', id: null, model: null, dialect: DIALECT },
    { type: 'file', index: 0, mimeType: 'image/png', data: p0!['b64_json'], partial: true },
    { type: 'raw', event: meta },
    { type: 'file', index: 0, mimeType: 'image/png', data: image },
    usageOf(323, 408, 731, { image_tokens: 258, text_tokens: 65 }),
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  t.same(decodedSizes(events), [73, 72]);
  const [f] = finals(bytes);
  t.equal(f!.content.filter((b) => b.type === 'file').length, 1);
  t.equal(f!.usage.totalTokens, 731);
  t.end();
});

t.test("the spec's verbatim example (placeholder base64, no other fields) is read and detected", (t) => {
  const spec = 'event: image_generation.partial_image\ndata: {"type":"image_generation.partial_image","b64_json":"...","partial_image_index":0}\n\n';
  t.equal(detectedDialect(spec), DIALECT);
  const events = decode(spec);
  t.same(
    events.map((e) => e.type),
    ['start', 'file', 'error', 'done'],
    'a preview, then the cut (no completed event): incomplete_stream',
  );
  t.match(ofType(events, 'file')[0], { mimeType: 'image/png', data: '...', partial: true });
  t.match(ofType(events, 'error'), [{ code: 'incomplete_stream', terminal: true }]);
  const [f] = finals(spec);
  t.same(f!.content, [], 'a preview is never in the final');
  t.equal(f!.stopReason, 'error');
  t.end();
});

t.test('MIME type: from output_format, png when absent, else from the first bytes, else null', (t) => {
  const png = 'iVBORw0KGgoAAAANSUhEUg';
  t.equal(imageMimeType(undefined, 'AAAA'), 'image/png');
  t.equal(imageMimeType('png', 'AAAA'), 'image/png');
  t.equal(imageMimeType('jpeg', 'AAAA'), 'image/jpeg');
  t.equal(imageMimeType('JPEG', 'AAAA'), 'image/jpeg');
  t.equal(imageMimeType('webp', 'AAAA'), 'image/webp');
  t.equal(imageMimeType('avif', png), 'image/png');
  t.equal(imageMimeType('avif', '/9j/4AAQ'), 'image/jpeg');
  t.equal(imageMimeType('avif', 'UklGRiQA'), 'image/webp');
  t.equal(imageMimeType('avif', 'R0lGODlh'), 'image/gif');
  t.equal(imageMimeType('avif', 'AAAA'), null);
  const events = decode(
    dataSse(
      { type: 'image_generation.partial_image', b64_json: 'AAAA', output_format: 'webp', partial_image_index: 0 },
      { type: 'image_generation.completed', b64_json: 'AAAA', output_format: 'jpeg' },
    ),
  );
  t.same(
    ofType(events, 'file').map((e) => e.mimeType),
    ['image/webp', 'image/jpeg'],
  );
  t.equal(countType(events, 'usage'), 0, 'no usage object: no usage event');
  t.end();
});

t.test('n > 1: one response and one final per completed image', (t) => {
  const one = (k: number): string =>
    dataSse(
      { type: 'image_generation.partial_image', b64_json: 'AAAA', partial_image_index: 0 },
      { type: 'image_generation.completed', b64_json: Buffer.from([k, k, k]).toString('base64'), usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } },
    );
  const fs = finals(one(1) + one(2));
  t.equal(fs.length, 2);
  t.same(
    fs.map((f) => f.content),
    [[{ type: 'file', mimeType: 'image/png', data: 'AQEB' }], [{ type: 'file', mimeType: 'image/png', data: 'AgIC' }]],
  );
  t.end();
});

t.test('an error event ends the response with stopReason error', (t) => {
  const input = dataSse(
    { type: 'image_generation.partial_image', b64_json: 'AAAA', partial_image_index: 0 },
    { type: 'error', error: { code: 'moderation_blocked', message: 'Your request was rejected by the safety system.' } },
  );
  const events = decode(input);
  t.same(
    events.map((e) => e.type),
    ['start', 'file', 'error', 'done'],
  );
  t.match(ofType(events, 'error')[0], { code: 'moderation_blocked', terminal: true });
  t.same(ofType(events, 'done'), [{ type: 'done', stopReason: 'error', providerReason: null }]);
  const [f] = finals(input);
  t.same(f!.content, []);
  t.equal(f!.stopReason, 'error');
  t.end();
});

t.test('[DONE] after the completed event is raw (the response is closed); before it, the cut is reported', (t) => {
  const completed = { type: 'image_edit.completed', b64_json: 'AAAA', usage: { input_tokens: 1, output_tokens: 2 } };
  const after = decode(dataSse(completed, '[DONE]'));
  t.same(after.at(-1), { type: 'raw', event: '[DONE]' });
  t.equal(ofType(after, 'usage')[0]!.totalTokens, 3, 'total: the sum when absent');
  const before = decode(dataSse({ type: 'image_edit.partial_image', b64_json: 'AAAA', partial_image_index: 0 }, '[DONE]'));
  t.match(ofType(before, 'error'), [{ code: 'incomplete_stream', terminal: true }]);
  t.same(ofType(before, 'done').map((e) => e.stopReason), ['error']);
  t.end();
});

t.test('bad input never throws: odd payloads become raw (without a second copy of an image)', (t) => {
  const input = dataSse(
    { type: 'image_generation.partial_image', b64_json: 'AAAA', partial_image_index: 0, moderation: 'low' },
    { type: 'image_generation.partial_image', b64_json: 42 },
    { type: 'image_generation.partial_image' },
    { type: 'image_generation.something_new', x: 1 },
    [1, 2],
    'null',
    { type: 'image_generation.completed', usage: 'none' },
  );
  const events = decode(input);
  t.same(
    events.map((e) => e.type),
    ['start', 'raw', 'file', 'raw', 'raw', 'raw', 'raw', 'raw', 'raw', 'done'],
  );
  t.same(events[1], { type: 'raw', event: { type: 'image_generation.partial_image', partial_image_index: 0, moderation: 'low' } }, 'an extra field: kept, the image not');
  t.equal(countType(events, 'usage'), 0);
  t.equal(countType(events, 'file'), 1);
  t.same(decode(input, DIALECT), events, 'forced: the same events');
  t.end();
});

t.test('--files-out writes the completed image, decoded; previews are not written', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'wirefold-images-'));
  const file = join(repoRoot, 'fixtures', DIALECT, 'generation-partials.sse');
  const r = await runCli(['--out', 'final', '--files-out', out, file]);
  t.equal(r.code, 0, r.stderr);
  const final = JSON.parse(r.stdout) as FinalResult;
  t.equal(final.content.filter((b) => b.type === 'file').length, 1);
  const files = readdirSync(out);
  t.equal(files.length, 1, 'one file: the completed image');
  t.match(files[0], /\.png$/);
  const written = readFileSync(join(out, files[0]!));
  const image = payloads('generation-partials.sse')[2]!['b64_json'] as string;
  t.ok(written.equals(Buffer.from(image, 'base64')), 'the decoded bytes');
  t.equal(written.length, 73);
  t.ok(written.subarray(0, 8).equals(PNG_SIGNATURE));
  t.end();
});

t.test('doctor: both fixtures are ok', (t) => {
  for (const name of ['generation-partials.sse', 'edit-with-usage.sse']) {
    const d = createDiagnosis({ name });
    d.push(fixture(`${DIALECT}/${name}`));
    const text = formatReport(d.end());
    t.match(text, /dialect openai-images, 1 response/, name);
    t.match(text, /result: ok/, name);
  }
  t.end();
});
