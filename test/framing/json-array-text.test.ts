/**
 * The JSON array framer reads large chunks as text (one decode per chunk,
 * elements sliced from it): the frames, their positions and the errors must
 * be what the bytes give, wherever the chunks end (inside a character too).
 * Inputs are built here, so every expected frame, offset and error comes from
 * the construction, not from the framer.
 */
import t, { type Test } from 'tap';
import { createJsonArrayFramer } from '../../lib/framing/json-array.js';
import type { Frame } from '../../lib/events.js';
import { fixedChunks, rng, splitAt } from '../helpers/chunks.js';
import { runChunks, summary } from '../helpers/run.js';

const WORDS = ['Größe', 'schön', '我们', '文本', 'модель', 'مرحبا', 'Tiếng', 'việt', '🇯🇵', '👩🏽‍💻', '1️⃣', 'naïve', 'e\u0301', 'x', 'ok', '𝄞'];

/** One Gemini-shaped pretty-printed element holding `text` (JSON.stringify escapes it as the wire does). */
function element(text: string, n: number): string {
  return `{\n  "candidates": [\n    {\n      "content": {\n        "parts": [\n          {\n            "text": ${JSON.stringify(text)}\n          }\n        ],\n        "role": "model"\n      },\n      "index": 0\n    }\n  ],\n  "usageMetadata": {"totalTokenCount": ${n}}\n}`;
}

function elements(seed: number, count: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = '';
    const words = 5 + Math.floor(r() * (r() < 0.2 ? 400 : 40));
    for (let w = 0; w < words; w++) text += WORDS[Math.floor(r() * WORDS.length)]! + (r() < 0.05 ? '\n"\\' : ' ');
    if (r() < 0.1) text += '\\'; // a string body ending in an escaped backslash
    out.push(element(text, i));
  }
  return out;
}

/** The array text and the byte offset of each element, as the wire has them. */
function array(items: string[]): { wire: Buffer; offsets: number[] } {
  let wire = '[';
  const offsets: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) wire += '\n,\r\n';
    offsets.push(Buffer.byteLength(wire));
    wire += items[i];
  }
  return { wire: Buffer.from(wire + '\n]'), offsets };
}

/** Chunkings around the text threshold, and chunk ends inside characters of every size. */
function chunkings(wire: Buffer): { name: string; chunks: Buffer[] }[] {
  const out = [{ name: 'whole', chunks: [wire] }];
  for (const size of [65536, 20000, 16385, 8192, 8191, 4096, 1536]) out.push({ name: `${size}-byte chunks`, chunks: fixedChunks(wire, size) });
  // every chunk end one to three bytes into a multi-byte character, chunks of 9-12 KiB
  const points: number[] = [];
  let p = 0;
  for (let k = 0; ; k++) {
    p += 9000 + ((k * 977) % 3000);
    while (p < wire.length && wire[p]! < 0xc0) p++;
    if (p >= wire.length - 4) break;
    points.push(p + 1 + (k % 3));
  }
  out.push({ name: 'chunks ending inside characters', chunks: splitAt(wire, points) });
  return out;
}

function check(t: Test, name: string, wire: Buffer, expected: Frame[], error: { code: string; offset: number } | null, options = {}): void {
  t.test(name, (t) => {
    for (const { name: how, chunks } of chunkings(wire)) {
      const r = summary(runChunks(createJsonArrayFramer(options), chunks));
      t.same(r.items, expected, how);
      if (error === null) t.equal(r.error, null, how);
      else t.match(r.error, error, how);
    }
    t.end();
  });
}

const frame = (data: string, offset?: number, n?: number): Frame => ({ event: 'message', data, id: '', ...(offset === undefined ? {} : { at: { frame: n!, offset } }) });

const items = elements(7, 300);
const { wire, offsets } = array(items);
t.ok(wire.length > 200_000, 'the input spans many large chunks');

check(t, 'multilingual elements, as the bytes give them', wire, items.map((d) => frame(d)), null);
check(t, 'positions: byte offsets', wire, items.map((d, i) => frame(d, offsets[i], i)), null, { positions: true });

// scalars, strings and nested arrays as elements, and back-to-back arrays, in a large chunk
const mixed = ['"日本語 \\"😀\\" é\\\\"', '12.5', '[1, ["ü", {"a": ["🇯🇵"]}]]', 'true', ...items.slice(0, 20), 'null'];
const two = Buffer.from(`[${mixed.join(' , ')}]\n[ ${mixed.join(',')} ]\n`);
check(t, 'scalars, strings, nested arrays, two arrays back to back', two, [...mixed, ...mixed].map((d) => frame(d)), null);

// garbage between two elements far into the input: the elements before it, then the error at its byte
const at = 80;
const bad = Buffer.concat([wire.subarray(0, offsets[at]! - 4), Buffer.from(' é'), wire.subarray(offsets[at]! - 4)]);
check(t, 'a non-ASCII byte between elements: a typed error at its offset', bad, items.slice(0, at).map((d) => frame(d)), {
  code: 'invalid_json_array',
  offset: offsets[at]! - 3,
});

const ascii = Buffer.concat([wire.subarray(0, offsets[at]! - 4), Buffer.from('x'), wire.subarray(offsets[at]! - 4)]);
check(t, 'an ASCII byte between elements: a typed error at its offset', ascii, items.slice(0, at).map((d) => frame(d)), {
  code: 'invalid_json_array',
  offset: offsets[at]! - 4,
});

// invalid UTF-8 in one element: that frame says where, the others read as before
const broken = Buffer.from(wire);
let hi = offsets[50]!;
while (broken[hi]! < 0xc0) hi++; // the first character of its text that is not ASCII
broken[hi] = 0xff;
const brokenEnd = offsets[50]! + Buffer.byteLength(items[50]!);
check(
  t,
  'invalid UTF-8 inside an element',
  broken,
  items.map((d, i) => (i === 50 ? { ...frame(broken.subarray(offsets[50]!, brokenEnd).toString('utf8')), invalidUtf8At: offsets[50]! } : frame(d))),
  null,
);

// an element over maxFrameBytes in the middle: the ones before it, then FrameTooLargeError at its offset
const sizes = items.map((d) => Buffer.byteLength(d));
const big = sizes.indexOf(Math.max(...sizes));
const max = Math.max(...sizes.filter((_, i) => i !== big));
t.ok(big > 0 && sizes[big]! > max, 'one element is larger than all others');
check(t, 'an element over maxFrameBytes', wire, items.slice(0, big).map((d) => frame(d)), { code: 'frame_too_large', offset: offsets[big]! }, { maxFrameBytes: max });
