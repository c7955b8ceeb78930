import { createHash } from 'node:crypto';
import t from 'tap';
import {
  FIXTURE_DIALECTS,
  FIXTURE_PROFILES,
  FIXTURE_SHAPES,
  fixtureName,
  formatSize,
  generateChunks,
  generateToBuffer,
  wirefoldOptions,
  parseSize,
  replayChunks,
  type FixtureDialect,
  type FixtureShape,
  type FixtureStats,
  type GenerateOptions,
} from '../../benchmarks/generate.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import type { UnifiedEvent } from '../../lib/events.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { finals } from '../../lib/pipeline/iterate.js';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

t.test('sizes parse in binary units and print back', async (t) => {
  t.equal(parseSize('5MB'), 5 * 1024 * 1024);
  t.equal(parseSize('512KiB'), 512 * 1024);
  t.equal(parseSize('1GB'), 1024 ** 3);
  t.equal(parseSize('1.5kb'), 1536);
  t.equal(parseSize('1048576'), 1048576);
  t.throws(() => parseSize('five'));
  t.equal(formatSize(50 * 1024 * 1024), '50MB');
  t.equal(formatSize(1536), '1536B');
});

t.test('the same seed gives the same bytes; another seed does not', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const a = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 42 });
      const b = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 42 });
      const c = generateToBuffer({ dialect, shape, size: 48 * 1024, seed: 43 });
      t.equal(sha256(a.data), sha256(b.data), `${dialect} ${shape}: stable`);
      t.same(a.stats, b.stats, `${dialect} ${shape}: same expectations`);
      t.not(sha256(a.data), sha256(c.data), `${dialect} ${shape}: seed matters`);
      t.equal(a.stats.bytes, a.data.length, `${dialect} ${shape}: byte count exact`);
      t.ok(a.data.length >= 48 * 1024 * 0.9, `${dialect} ${shape}: close to the requested size`);
    }
  }
});

t.test('a pinned fixture keeps its hash (changing the generator changes every benchmark input)', async (t) => {
  const { data } = generateToBuffer({ dialect: 'openai-chat', shape: 'log', size: 16 * 1024, seed: 1 });
  t.equal(sha256(data), 'fb8d05469b2ba30a0b38c11ff07df2fa4f2be544d6d783dd771895b0e80215d4', 'openai-chat log 16 KiB seed 1');
});

t.test('generateChunks yields the same bytes in exact chunk sizes', async (t) => {
  for (const dialect of ['anthropic-messages', 'gemini-json-array'] as const) {
    const whole = generateToBuffer({ dialect, shape: 'log', size: 600 * 1024, seed: 5 });
    const chunks = [...generateChunks({ dialect, shape: 'log', size: 600 * 1024, seed: 5 }, 1536)];
    t.ok(chunks.slice(0, -1).every((c) => c.length === 1536), `${dialect}: every chunk but the last is 1536 bytes`);
    t.equal(sha256(Buffer.concat(chunks)), sha256(whole.data), `${dialect}: same bytes`);
  }
});

t.test('replayChunks repeats a log segment and multiplies the expectations', async (t) => {
  const stats = { ...generateToBuffer({ dialect: 'openai-chat', shape: 'log', size: 100 * 1024, seed: 1 }).stats };
  const out: FixtureStats = { ...stats, bytes: 0, responses: 0, frames: 0, textDeltas: 0, textChars: 0, reasoningDeltas: 0, reasoningChars: 0, toolCalls: 0, toolArgDeltas: 0, toolArgChars: 0, firstResponseTextChars: 0 };
  const chunks = [...replayChunks({ dialect: 'openai-chat', shape: 'log', size: 250 * 1024, seed: 1 }, 100 * 1024, 4096, out)];
  const bytes = chunks.reduce((a, c) => a + c.length, 0);
  const replays = Math.ceil((250 * 1024) / stats.bytes);
  t.ok(replays >= 2);
  t.equal(out.bytes, bytes);
  t.equal(out.bytes, stats.bytes * replays);
  t.equal(out.responses, stats.responses * replays);
  t.equal(out.textChars, stats.textChars * replays);
  t.ok(chunks.every((c) => c.length <= 4096));
});

/** What wirefold finds in a fixture, in the generator's terms. */
function tally(events: UnifiedEvent[]) {
  const s = { starts: 0, done: 0, textDeltas: 0, textChars: 0, reasoningChars: 0, toolCalls: 0, toolArgChars: 0, errors: [] as string[], firstText: 0 };
  for (const e of events) {
    switch (e.type) {
      case 'start':
        s.starts++;
        break;
      case 'done':
        s.done++;
        break;
      case 'text_delta':
        if (e.text.length > 0) s.textDeltas++;
        s.textChars += e.text.length;
        if (s.done === 0) s.firstText += e.text.length;
        break;
      case 'reasoning_delta':
        s.reasoningChars += e.text.length;
        break;
      case 'tool_call_done':
        s.toolCalls++;
        s.toolArgChars += e.arguments.length;
        break;
      case 'error':
        s.errors.push(`${e.code}: ${e.message}`);
        break;
      default:
        break;
    }
  }
  return s;
}

t.test('wirefold decodes every generated fixture into the expected events', async (t) => {
  for (const profile of FIXTURE_PROFILES) for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const size = shape === 'single' ? 200 * 1024 : 400 * 1024;
      const { data, stats } = generateToBuffer({ dialect, shape, size, seed: 3, profile });
      const name = `${dialect} ${shape} ${profile}`;
      const whole = tally(decodeAll([data], wirefoldOptions(dialect)));
      t.same(whole.errors, [], `${name}: no error events`);
      t.equal(whole.starts, stats.responses, `${name}: one start per response`);
      t.equal(whole.done, stats.responses, `${name}: one done per response`);
      t.equal(whole.textDeltas, stats.textDeltas, `${name}: text deltas`);
      t.equal(whole.textChars, stats.textChars, `${name}: text length`);
      t.equal(whole.reasoningChars, stats.reasoningChars, `${name}: reasoning length`);
      t.equal(whole.toolCalls, stats.toolCalls, `${name}: tool calls`);
      t.equal(whole.toolArgChars, stats.toolArgChars, `${name}: tool argument text`);
      t.equal(whole.firstText, stats.firstResponseTextChars, `${name}: first response's text`);
      if (shape === 'log') t.ok(stats.responses > (profile === 'english' ? 3 : 1), `${name}: a log holds many responses`);
      // 1.5 KiB cuts land inside code points, CRLF pairs and field names: same result
      const cut = tally(decodeAll(generateChunks({ dialect, shape, size, seed: 3, profile }, 1536), wirefoldOptions(dialect)));
      t.same(cut, whole, `${name}: same events at 1.5 KiB chunks`);
    }
  }
});

// ---------------------------------------------------------------------------
// The multilingual text profile

/** Generates a fixture and keeps what the generator says it wrote: each response's text and reasoning deltas. */
function generateRecorded(options: GenerateOptions) {
  const texts: string[][] = [];
  const reasoning: string[][] = [];
  const at = (xs: string[][], n: number): string[] => (xs[n - 1] ??= []);
  const { data, stats } = generateToBuffer(options, { text: (n, d) => at(texts, n).push(d), reasoning: (n, d) => at(reasoning, n).push(d) });
  return { data, stats, texts, reasoning };
}

/** Code points of a string, by kind. */
function census(s: string) {
  let codePoints = 0;
  let nonAscii = 0;
  let astral = 0;
  for (const ch of s) {
    codePoints++;
    const cp = ch.codePointAt(0)!;
    if (cp > 0x7f) nonAscii++;
    if (cp > 0xffff) astral++;
  }
  const bytes = Buffer.byteLength(s);
  const asciiBytes = codePoints - nonAscii;
  return { codePoints, nonAscii, astral, bytes, nonAsciiByteShare: (bytes - asciiBytes) / bytes };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

t.test('multilingual profile: the same seed gives the same bytes; another seed, or the English profile, does not', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const options = { dialect, shape, size: 64 * 1024, profile: 'multilingual' as const };
      const a = generateToBuffer({ ...options, seed: 42 });
      const b = generateToBuffer({ ...options, seed: 42 });
      const c = generateToBuffer({ ...options, seed: 43 });
      const english = generateToBuffer({ ...options, seed: 42, profile: 'english' });
      const name = `${dialect} ${shape}`;
      t.equal(sha256(a.data), sha256(b.data), `${name}: stable`);
      t.same(a.stats, b.stats, `${name}: same expectations`);
      t.not(sha256(a.data), sha256(c.data), `${name}: seed matters`);
      t.not(sha256(a.data), sha256(english.data), `${name}: not the English text`);
      t.equal(a.stats.profile, 'multilingual', `${name}: the stats say which profile`);
      t.equal(english.stats.profile, 'english');
      t.equal(a.stats.bytes, a.data.length, `${name}: byte count exact`);
      t.ok(a.data.length >= 64 * 1024 * 0.9, `${name}: close to the requested size`);
    }
  }
  t.equal(fixtureName('gemini-json-array', 'single', 8 << 20, 1, 'multilingual'), 'gemini-json-array.single.multilingual.8MB.json');
  t.equal(fixtureName('gemini-json-array', 'single', 8 << 20), 'gemini-json-array.single.8MB.json', 'English fixtures keep their names');
});

t.test('a pinned multilingual fixture keeps its hash', async (t) => {
  const { data } = generateToBuffer({ dialect: 'anthropic-messages', shape: 'single', size: 16 * 1024, seed: 1, profile: 'multilingual' });
  t.equal(sha256(data), '3e5c427a4eb5cb16cbf5ecb2f0f066118d2775f513b928ea5ff5bf09361761b7', 'anthropic-messages single multilingual 16 KiB seed 1');
});

t.test('multilingual text is mostly non-ASCII, with astral characters, ZWJ sequences, modifiers, flags, combining marks and long deltas', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const { texts, stats } = generateRecorded({ dialect, shape: 'single', size: 512 * 1024, seed: 7, profile: 'multilingual' });
    const deltas = texts[0]!;
    const text = deltas.join('');
    const c = census(text);
    t.equal(text.length, stats.textChars, `${dialect}: textChars counts UTF-16 code units`);
    t.equal(deltas.length, stats.textDeltas, `${dialect}: one recorded delta per text delta`);
    t.ok(c.nonAscii / c.codePoints >= 0.5, `${dialect}: ${((100 * c.nonAscii) / c.codePoints).toFixed(1)} % of the code points are non-ASCII`);
    t.ok(c.nonAsciiByteShare >= 0.7, `${dialect}: ${(100 * c.nonAsciiByteShare).toFixed(1)} % of the UTF-8 bytes are non-ASCII`);
    t.ok(c.astral >= 50, `${dialect}: ${c.astral} astral code points`);
    t.ok(text.length > c.codePoints, `${dialect}: surrogate pairs in UTF-16`);
    t.match(text, /\u200D/, `${dialect}: ZWJ sequences`);
    t.match(text, /[\u{1F3FB}-\u{1F3FF}]/u, `${dialect}: skin-tone modifiers`);
    t.match(text, /[\u{1F1E6}-\u{1F1FF}]{2}/u, `${dialect}: flags`);
    t.match(text, /\p{Mn}/u, `${dialect}: combining marks`);
    t.match(text, /\p{Script=Han}/u, `${dialect}: CJK`);
    t.match(text, /\p{Script=Cyrillic}/u, `${dialect}: Cyrillic`);
    t.match(text, /\p{Script=Arabic}/u, `${dialect}: Arabic`);
    t.match(text, /\p{Script=Hebrew}/u, `${dialect}: Hebrew`);
    t.match(text, /[àâçéèêëîïôùûüÿœäöüßñáíóú]/u, `${dialect}: accented Latin`);
    t.notOk(deltas.some((d) => d.length === 0 || LONE_SURROGATE.test(d)), `${dialect}: no empty delta, none splits a surrogate pair`);
    const lengths = deltas.map((d) => [...d].length);
    t.ok(lengths.some((n) => n >= 300), `${dialect}: some deltas hold hundreds of characters (longest ${Math.max(...lengths)})`);
    const short = dialect.startsWith('gemini') ? 300 : dialect === 'anthropic-messages' ? 40 : 6;
    t.ok(lengths.filter((n) => n <= short).length >= deltas.length * 0.6, `${dialect}: most deltas stay short (at most ${short} code points)`);
  }
});

t.test('multilingual fixtures keep each dialect\'s serialisation: raw UTF-8, Gemini\'s \\u003c/\\u003e, the pretty-printed array', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    const { data } = generateToBuffer({ dialect, shape: 'single', size: 256 * 1024, seed: 2, profile: 'multilingual' });
    const wire = data.toString('utf8');
    t.ok(/[\u{1F300}-\u{1FAFF}]/u.test(wire), `${dialect}: astral characters sent as raw UTF-8`);
    const escapes = new Set(wire.match(/\\u[0-9a-fA-F]{4}/g) ?? []);
    if (dialect === 'gemini-sse' || dialect === 'gemini-json-array') {
      t.same([...escapes].sort(), ['\\u003c', '\\u003e'], `${dialect}: the only \\u escapes are Gemini's for < and >`);
      t.notOk(/[<>]/.test(wire), `${dialect}: no raw < or >`);
    } else {
      t.same([...escapes], [], `${dialect}: no \\u escapes`);
      t.ok(/[<>]/.test(wire), `${dialect}: < and > sent raw`);
    }
  }
  const { data } = generateToBuffer({ dialect: 'gemini-json-array', shape: 'single', size: 64 * 1024, seed: 2, profile: 'multilingual' });
  const wire = data.toString('utf8');
  t.ok(wire.startsWith('[{\n  "candidates": [\n    {\n      "content": {\n        "parts": [\n          {\n            "text": "'), 'the array opens as the API writes it');
  t.ok(wire.includes('\n}\n,\r\n{\n  "candidates": ['), 'elements are separated by \\n,\\r\\n');
  t.ok(wire.endsWith('\n}\n]\n'), 'and the array closes');
  const elements = JSON.parse(wire) as unknown[];
  t.ok(elements.length > 5, 'the whole body is one JSON array');
});

/** Every final result of a byte source. */
async function allFinals(source: Iterable<Buffer>, dialect: FixtureDialect): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  for await (const r of finals(source, wirefoldOptions(dialect))) out.push(r);
  return out;
}

t.test('finals() reads back exactly the multilingual text the generator wrote, for every dialect', async (t) => {
  for (const dialect of FIXTURE_DIALECTS) {
    for (const shape of FIXTURE_SHAPES) {
      const options = { dialect, shape: shape as FixtureShape, size: shape === 'single' ? 300 * 1024 : 400 * 1024, seed: 11, profile: 'multilingual' as const };
      const { data, stats, texts, reasoning } = generateRecorded(options);
      const name = `${dialect} ${shape}`;
      for (const [how, source] of [
        ['whole', [data]],
        ['64 KiB chunks', [...generateChunks(options, 64 * 1024)]],
        ['1.5 KiB chunks', [...generateChunks(options, 1536)]],
        ['7-byte chunks', Array.from({ length: Math.ceil(data.length / 7) }, (_, i) => data.subarray(i * 7, i * 7 + 7))],
      ] as const) {
        if (how === '7-byte chunks' && shape === 'log') continue;
        const results = await allFinals(source, dialect);
        t.equal(results.length, stats.responses, `${name}, ${how}: one final per response`);
        t.same(results.flatMap((r) => r.errors.map((e) => `${e.code}: ${e.message}`)), [], `${name}, ${how}: no errors`);
        let textOk = 0;
        let reasoningOk = 0;
        let astral = 0;
        for (let i = 0; i < results.length; i++) {
          const want = (texts[i] ?? []).join('');
          const got = results[i]!.text;
          if (got === want) textOk++;
          else t.fail(`${name}, ${how}: response ${i + 1}'s text differs at code point ${[...got].findIndex((ch, k) => ch !== [...want][k])} (got ${got.length}, want ${want.length})`);
          if (results[i]!.reasoning === (reasoning[i] ?? []).join('')) reasoningOk++;
          astral += census(got).astral;
        }
        t.equal(textOk, results.length, `${name}, ${how}: every final text equals the generated text`);
        t.equal(reasoningOk, results.length, `${name}, ${how}: every final reasoning equals the generated reasoning`);
        t.equal(astral, census(texts.flat().join('')).astral, `${name}, ${how}: astral characters survive`);
        t.equal(results.reduce((a, r) => a + r.toolCalls.length, 0), stats.toolCalls, `${name}, ${how}: tool calls`);
      }
    }
  }
});
