/**
 * Seeded generator of large benchmark fixtures in the real wire shapes of
 * each provider stream (copied from the captures in fixtures/corpus, never the
 * files themselves): (a) one very long response, (b) a log of many responses
 * back to back. The same seed, dialect, shape and size always give the same
 * bytes and the same expectations (`FixtureStats`), which every benchmark
 * method checks its output against.
 *
 * CLI (`npm run bench:generate -- --size 5MB --dialect openai-chat --shape single [--profile multilingual]`):
 * writes `benchmarks/.fixtures/<dialect>.<shape>[.<profile>].<size>.<ext>` plus a
 * `.stats.json` sidecar. Two text profiles (`FIXTURE_PROFILES`): English
 * words (the default) and multilingual prose with long deltas. Also usable as a library: `generateChunks()` yields
 * Buffers without holding the fixture (the 1 GB memory run), `fixtureReadable()`
 * wraps that in a Readable.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIALECTS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini-sse',
  'gemini-json-array',
  'xai-chat',
  'gemini-interactions',
] as const;
export type FixtureDialect = (typeof FIXTURE_DIALECTS)[number];
export const FIXTURE_SHAPES = ['single', 'log'] as const;
export type FixtureShape = (typeof FIXTURE_SHAPES)[number];
/**
 * What the visible text is made of (the wire shapes are the same):
 * - `english`: English words with ~4 % non-ASCII tokens (accents, CJK,
 *   Cyrillic, two emoji), deltas of a few tokens (Gemini: a sentence).
 * - `multilingual`: mostly non-ASCII prose (accented Latin, Vietnamese partly
 *   in combining marks, CJK, Hangul, Cyrillic, Greek, Arabic, Hebrew,
 *   Devanagari, Thai; emoji with ZWJ sequences, skin tones, flags, keycaps;
 *   other astral characters), cut into deltas at code points (so grapheme
 *   clusters are split as tokenizers split them) of the usual short sizes and,
 *   some of the time, hundreds of characters.
 */
export const FIXTURE_PROFILES = ['english', 'multilingual'] as const;
export type FixtureProfile = (typeof FIXTURE_PROFILES)[number];

export interface GenerateOptions {
  dialect: FixtureDialect;
  shape: FixtureShape;
  /** Target size in bytes (the result lands within a few KiB above it). */
  size: number;
  /** @defaultValue 1 */
  seed?: number;
  /** @defaultValue 'english' */
  profile?: FixtureProfile;
}

/** What a correct parser must find in a fixture. */
export interface FixtureStats {
  dialect: FixtureDialect;
  shape: FixtureShape;
  /** Absent in sidecars written before profiles existed: `english` (see {@link profileOf}). */
  profile?: FixtureProfile;
  seed: number;
  /** Exact byte length. */
  bytes: number;
  /** Responses (one `done` each). */
  responses: number;
  /** SSE events carrying data (pings and `[DONE]` included) or JSON array elements. */
  frames: number;
  /** Non-empty visible-text deltas on the wire (Gemini: text parts). */
  textDeltas: number;
  /** Total visible text, in UTF-16 code units (JavaScript string length). */
  textChars: number;
  /** Non-empty reasoning deltas (summary / thinking / thought parts / reasoning_content). */
  reasoningDeltas: number;
  reasoningChars: number;
  /** Tool calls (one `tool_call_done` each). */
  toolCalls: number;
  /** Tool-call argument fragments on the wire (a whole-arguments delivery counts 1). */
  toolArgDeltas: number;
  /** Total length of all complete argument JSON texts. */
  toolArgChars: number;
  /** Visible text length of the first response (the whole text for a single-response fixture). */
  firstResponseTextChars: number;
}

/** A fixture's text profile (`english` for stats written before profiles existed). */
export function profileOf(stats: Pick<FixtureStats, 'profile'>): FixtureProfile {
  return stats.profile ?? 'english';
}

/** How wirefold is told to read a fixture. */
export function wirefoldOptions(dialect: FixtureDialect): { dialect: 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'xai-chat' | 'gemini-interactions'; framing: 'sse' | 'json-array' } {
  switch (dialect) {
    case 'gemini-sse':
      return { dialect: 'gemini', framing: 'sse' };
    case 'gemini-json-array':
      return { dialect: 'gemini', framing: 'json-array' };
    default:
      return { dialect, framing: 'sse' };
  }
}

export function fixtureExtension(dialect: FixtureDialect): string {
  return dialect === 'gemini-json-array' ? 'json' : 'sse';
}

// ---------------------------------------------------------------------------
// Deterministic randomness

/** mulberry32: small, fast, good enough for shaping test data. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Random string over an alphabet. */
  str(n: number, alphabet = ALNUM): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = ALNUM + '+/';
const B64URL = ALNUM + '-_';

const WORDS = [
  'the', 'stream', 'parser', 'token', 'response', 'model', 'reads', 'bytes', 'and', 'emits', 'events', 'for', 'each',
  'delta', 'with', 'a', 'final', 'result', 'that', 'holds', 'text', 'tool', 'calls', 'usage', 'in', 'one', 'place',
  'while', 'keeping', 'memory', 'flat', 'over', 'long', 'logs', 'of', 'many', 'responses', 'so', 'throughput', 'stays',
  'near', 'floor', 'JSON', 'framing', 'is', 'cheap', 'but', 'objects', 'cost', 'allocation', 'per', 'chunk',
];
/** Multi-byte UTF-8 (2, 3 and 4 bytes, surrogate pairs) so chunk cuts land inside code points. */
const WORDS_UNICODE = ['café', 'naïve', 'résumé', 'über', 'größe', 'señal', 'Straße', '東京', '数据', 'поток', 'données', '—', '…', '→', '✓', '🙂', '🚀'];
const PUNCT = ['.', ',', '!', '?', ':', ';'];

/** A token-sized piece of prose: mostly ` word`, sometimes punctuation, quotes or line breaks (JSON escapes). */
function token(rng: Rng): string {
  const r = rng.next();
  if (r < 0.06) return rng.pick(PUNCT);
  if (r < 0.08) return '\n\n';
  if (r < 0.09) return ' "' + rng.pick(WORDS) + '"';
  if (r < 0.095) return ' \\' + rng.pick(WORDS);
  if (r < 0.1) return '\n- ' + rng.pick(WORDS);
  if (r < 0.14) return ' ' + rng.pick(WORDS_UNICODE);
  return ' ' + rng.pick(WORDS);
}

/** A delta of 1..maxTokens tokens. */
function prose(rng: Rng, minTokens: number, maxTokens: number): string {
  let s = '';
  const n = rng.int(minTokens, maxTokens);
  for (let i = 0; i < n; i++) s += token(rng);
  return s;
}

// ---------------------------------------------------------------------------
// Multilingual text (the `multilingual` profile)

interface Language {
  words: readonly string[];
  /** Words are joined without spaces (CJK, Thai). */
  noSpaces?: boolean;
  /** Sentence ends. */
  ends: readonly string[];
  /** Inside a sentence, now and then. */
  comma: string;
  /** Quotation marks around a word. */
  quotes: readonly [string, string];
  weight: number;
  /** Share of sentences written decomposed (NFD: base letters + combining marks). */
  nfd?: number;
}

const LANGUAGES: readonly Language[] = [
  { weight: 8, words: ['déjà', 'élève', 'où', 'façon', 'crème', 'être', 'français', 'garçon', 'naïveté', 'cœur', 'Noël', 'très', 'hôpital', 'forêt', 'château', 'réponse', 'données', 'flux', 'lecture', 'à', 'le', 'la', 'et', 'ça', 'après', 'été', 'reçu', 'dernière', 'modèle', 'fenêtre'], ends: ['.', ' !', ' ?', '…'], comma: ',', quotes: ['« ', ' »'], nfd: 0.1 },
  { weight: 6, words: ['Größe', 'Straße', 'über', 'Mädchen', 'schön', 'Grüße', 'Bären', 'fließend', 'Äpfel', 'Übersetzung', 'Datenstrom', 'und', 'die', 'der', 'müssen', 'Lösung', 'während', 'größer', 'Antwort', 'natürlich', 'Öl', 'heiß'], ends: ['.', '!', '?'], comma: ',', quotes: ['„', '“'] },
  { weight: 6, words: ['niño', 'año', 'señal', 'corazón', 'mañana', 'canción', 'está', 'respuesta', 'también', 'información', 'pequeño', 'el', 'la', 'de', 'según', 'Perú', 'acción', 'últimos', 'después', 'pingüino'], ends: ['.', '.', '!'], comma: ',', quotes: ['«', '»'] },
  { weight: 8, words: ['Tiếng', 'Việt', 'người', 'dữ', 'liệu', 'được', 'những', 'trả', 'lời', 'mô', 'hình', 'luồng', 'phản', 'hồi', 'của', 'và', 'Hà', 'Nội', 'thường', 'xuyên', 'đọc', 'nhanh', 'chóng', 'ở', 'đây', 'chữ', 'quốc', 'ngữ'], ends: ['.', '!', '?'], comma: ',', quotes: ['“', '”'], nfd: 0.5 },
  { weight: 12, noSpaces: true, words: ['数据', '流', '解析器', '模型', '响应', '每个', '事件', '最终', '结果', '文本', '工具', '调用', '内存', '保持', '稳定', '我们', '可以', '读取', '字节', '中文', '处理', '速度', '北京', '上海', '的', '是', '了', '很'], ends: ['。', '！', '？'], comma: '，', quotes: ['“', '”'] },
  { weight: 10, noSpaces: true, words: ['東京', 'で', 'は', 'ストリーム', 'を', '読み', '込みます', 'データ', 'の', '解析', 'が', '速い', 'です', 'ひらがな', 'カタカナ', '漢字', '今日', '天気', 'とても', 'ありがとう', '日本語', 'テキスト', 'ｶﾀｶﾅ'], ends: ['。', '！', '？'], comma: '、', quotes: ['「', '」'] },
  { weight: 6, words: ['스트림', '파서', '데이터', '응답', '모델이', '텍스트를', '읽고', '결과를', '만듭니다', '한국어', '서울', '빠르게', '처리', '안녕하세요', '토큰', '메모리'], ends: ['.', '!', '?'], comma: ',', quotes: ['“', '”'] },
  { weight: 10, words: ['поток', 'данные', 'обработка', 'ответ', 'модель', 'читает', 'байты', 'и', 'в', 'на', 'текст', 'результат', 'быстро', 'память', 'Москва', 'съешь', 'ещё', 'этих', 'мягких', 'французских', 'булок', 'їжак', 'європейський', 'ґанок', 'Київ', 'Ђорђе', 'Љубљана'], ends: ['.', '!', '?', '…'], comma: ',', quotes: ['«', '»'] },
  { weight: 4, words: ['δεδομένα', 'ροή', 'απάντηση', 'μοντέλο', 'κείμενο', 'γρήγορα', 'μνήμη', 'Αθήνα', 'και', 'το', 'η', 'αποτέλεσμα', 'ΐ', 'ϋ'], ends: ['.', ';', '!'], comma: ',', quotes: ['«', '»'] },
  { weight: 7, words: ['البيانات', 'مرحبا', 'النموذج', 'الاستجابة', 'نص', 'في', 'من', 'على', 'سريع', 'الذاكرة', 'اللغة', 'العربية', 'كل', 'حدث', 'النتيجة', 'النهائية', 'القاهرة', 'شُكْرًا', 'مَرْحَبًا'], ends: ['.', '؟', '!'], comma: '،', quotes: ['«', '»'] },
  { weight: 5, words: ['שלום', 'נתונים', 'מודל', 'תשובה', 'טקסט', 'של', 'זרם', 'מהיר', 'זיכרון', 'עברית', 'ירושלים', 'כל', 'אירוע', 'תוצאה', 'שָׁלוֹם'], ends: ['.', '!', '?'], comma: ',', quotes: ['“', '”'] },
  { weight: 5, words: ['नमस्ते', 'डेटा', 'मॉडल', 'जवाब', 'पाठ', 'हिन्दी', 'धारा', 'तेज़', 'स्मृति', 'परिणाम', 'और', 'का', 'में', 'दिल्ली', 'क्षत्रिय'], ends: ['।', '?', '!'], comma: ',', quotes: ['“', '”'] },
  { weight: 3, noSpaces: true, words: ['ภาษาไทย', 'ข้อมูล', 'สตรีม', 'โมเดล', 'คำตอบ', 'ข้อความ', 'รวดเร็ว', 'กรุงเทพฯ', 'ที่', 'และ', 'น้ำ'], ends: [' ', '!'], comma: ' ', quotes: ['“', '”'] },
  { weight: 5, words: WORDS, ends: ['.', '!', '?', ':'], comma: ',', quotes: ['"', '"'] },
];
const LANGUAGE_WEIGHT = LANGUAGES.reduce((a, l) => a + l.weight, 0);

/** Emoji and other astral-plane characters (surrogate pairs in UTF-16), with what makes each hard. */
const EMOJI = [
  '\u{1F642}', '\u{1F680}', '\u{1F389}', '\u{1F525}', '\u{1F916}', '\u{1F4E6}', '\u{1F9EA}', '\u{1F30D}', '\u{1F4A1}', '\u{1F600}', // single astral code points
  '\u2728', '\u2764\uFE0F', '\u2705', '\u26A0\uFE0F', // BMP, with and without VS16
  '\u{1F469}\u200D\u{1F4BB}', // woman technologist (ZWJ)
  '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}', // family: four people, three ZWJs
  '\u{1F3F3}\uFE0F\u200D\u{1F308}', // rainbow flag (VS16 + ZWJ)
  '\u{1F9D1}\u200D\u{1F680}', // astronaut
  '\u{1F43B}\u200D\u2744\uFE0F', // polar bear
  '\u{1F44D}\u{1F3FD}', '\u{1F44B}\u{1F3FF}', '\u{1F64C}\u{1F3FB}', // skin-tone modifiers
  '\u{1F9D1}\u{1F3FE}\u200D\u{1F4BB}', // skin tone + ZWJ
  '\u{1F1EB}\u{1F1F7}', '\u{1F1EF}\u{1F1F5}', '\u{1F1FA}\u{1F1E6}', '\u{1F1E7}\u{1F1F7}', '\u{1F1E9}\u{1F1EA}', '\u{1F1FB}\u{1F1F3}', // flags (regional indicator pairs)
  '1\uFE0F\u20E3', '2\uFE0F\u20E3', '#\uFE0F\u20E3', // keycaps
];
const ASTRAL_OTHER = ['\u{1D518}\u{1D52B}\u{1D526}\u{1D520}\u{1D52C}\u{1D521}\u{1D522}', '\u{2000B}', '\u{1D11E}', '\u{10348}', '\u{1F100}'];
const SYMBOLS = ['—', '–', '…', '→', '≥', '≤', '€', '°C', '±', '×', '½', '™', '§', '¶', '•', '✓'];
/**
 * `<` and `>` in text: Gemini's generateContent serialiser writes them as
 * `\u003c` / `\u003e` (see `htmlSafe`); the other dialects send them raw.
 */
const MARKUP = [' `a < b`', ' <br>', ' x > 0', ' <b>', '</b>', ' `Vec<u8>`', ' ->', ' <=>'];

/**
 * An endless stream of multilingual prose, handed out in deltas cut at code
 * points (never inside a surrogate pair: raw UTF-8 cannot split a code point;
 * grapheme clusters, combining marks after their base and ZWJ sequences are
 * split as tokenizers split them).
 */
class MultilingualText {
  private buf = '';
  private pos = 0;
  constructor(private readonly rng: Rng) {}

  private language(): Language {
    let r = this.rng.next() * LANGUAGE_WEIGHT;
    for (const l of LANGUAGES) {
      r -= l.weight;
      if (r < 0) return l;
    }
    return LANGUAGES[LANGUAGES.length - 1]!;
  }

  private sentence(): string {
    const rng = this.rng;
    const lang = this.language();
    const n = rng.int(4, 16);
    let s = '';
    for (let i = 0; i < n; i++) {
      let w = rng.pick(lang.words);
      const r = rng.next();
      if (r < 0.05) w = lang.quotes[0] + w + lang.quotes[1];
      else if (r < 0.07) w = '**' + w + '**';
      else if (r < 0.1) w += lang.comma;
      if (i > 0 && lang.noSpaces !== true) s += ' ';
      s += w;
      const e = rng.next();
      if (e < 0.04) s += ' ' + rng.pick(EMOJI);
      else if (e < 0.05) s += ' ' + rng.pick(SYMBOLS) + ' ';
      else if (e < 0.055) s += ' ' + rng.pick(ASTRAL_OTHER);
      else if (e < 0.06) s += rng.pick(MARKUP);
      else if (e < 0.062) s += ' \\' + rng.pick(WORDS);
    }
    s += rng.pick(lang.ends);
    if (rng.chance(0.25)) s += ' ' + rng.pick(EMOJI);
    if (lang.nfd !== undefined && rng.chance(lang.nfd)) s = s.normalize('NFD');
    return s;
  }

  private refill(units: number): void {
    if (this.pos > 0) {
      this.buf = this.buf.slice(this.pos);
      this.pos = 0;
    }
    while (this.buf.length < units) {
      const r = this.rng.next();
      if (r < 0.1) this.buf += '\n\n';
      else if (r < 0.14) this.buf += '\n- ' + this.rng.pick(EMOJI) + ' ';
      else if (this.buf.length > 0 && !this.buf.endsWith('\n') && !this.buf.endsWith(' ')) this.buf += ' ';
      this.buf += this.sentence();
    }
  }

  /** The next `codePoints` code points. */
  take(codePoints: number): string {
    if (this.buf.length - this.pos < 2 * codePoints + 1) this.refill(2 * codePoints + 1024);
    const start = this.pos;
    let p = start;
    for (let i = 0; i < codePoints; i++) {
      const c = this.buf.charCodeAt(p);
      p += c >= 0xd800 && c < 0xdc00 ? 2 : 1;
    }
    this.pos = p;
    return this.buf.slice(start, p);
  }
}

/**
 * Delta lengths in code points for the multilingual profile: the usual short
 * ones (OpenAI and xAI a token, Anthropic a few, Gemini sentences) and, some
 * of the time, long ones of hundreds of characters.
 */
function multilingualDeltaLength(rng: Rng, dialect: FixtureDialect): number {
  switch (dialect) {
    case 'openai-chat':
    case 'openai-responses':
    case 'xai-chat':
      return rng.chance(0.06) ? rng.int(100, 700) : rng.int(1, 6);
    case 'anthropic-messages':
      return rng.chance(0.12) ? rng.int(150, 900) : rng.int(1, 40);
    case 'gemini-sse':
    case 'gemini-json-array':
    case 'gemini-interactions':
      return rng.chance(0.25) ? rng.int(300, 2000) : rng.int(20, 300);
  }
}

/** Gemini's generateContent JSON (SSE and array alike) escapes `<` and `>` (seen in the corpus captures: `\u003c/style\u003e`); Interactions does not. */
function htmlSafe(json: string): string {
  return json.includes('<') || json.includes('>') ? json.replace(/[<>]/g, (c) => (c === '<' ? '\\u003c' : '\\u003e')) : json;
}

const TOOL_NAMES = ['get_weather', 'search_documents', 'run_query', 'create_ticket', 'lookup_order'];

/** Argument JSON text of a tool call (ASCII and BMP only, so fragments never split a surrogate pair). */
function toolArguments(rng: Rng, approxChars: number): string {
  const args: Record<string, unknown> = {
    location: rng.pick(['Paris', 'San Francisco', 'Zürich', 'São Paulo', '東京']), // BMP only: fragments never split a surrogate pair
    units: rng.pick(['celsius', 'fahrenheit']),
    days: rng.int(1, 14),
    include: ['hourly', 'alerts'],
  };
  let note = '';
  while (note.length < approxChars - 80) note += ' ' + rng.pick(WORDS);
  args['notes'] = note.trim() + ' "quoted" \\ end';
  return JSON.stringify(args);
}

/** Cuts a string into fragments of 1..max UTF-16 units (no surrogate pairs in tool args). */
function fragments(rng: Rng, s: string, max: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const n = rng.int(1, max);
    out.push(s.slice(i, i + n));
    i += n;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Responses as plans, written by one writer per dialect

interface ToolPlan {
  id: string;
  name: string;
  args: string;
  /** Fragments as the provider would split the arguments. */
  fragments: string[];
}

type StopKind = 'stop' | 'tool_calls' | 'length';

interface Usage {
  input: number;
  output: number;
  reasoning: number;
  cached: number;
}

/** Emits the wire form of one response, piece by piece, into `out`. */
interface Writer {
  start(): void;
  reasoning(deltas: string[]): void;
  textOpen(): void;
  textDelta(text: string): void;
  textClose(): void;
  tool(call: ToolPlan): void;
  finish(stop: StopKind, usage: Usage): void;
  /** Bytes still to come for the open response beyond its deltas (to size single responses). */
  trailerEstimate(): number;
}

interface Sink {
  /** Wire strings produced so far and not yet taken. */
  out: string[];
  frames: number;
}

function sseEvent(sink: Sink, event: string | null, data: string, eol = '\n'): void {
  sink.frames++;
  sink.out.push(event === null ? `data: ${data}${eol}${eol}` : `event: ${event}${eol}data: ${data}${eol}${eol}`);
}

interface WriterContext {
  rng: Rng;
  sink: Sink;
  /** Response number within the fixture (ids, timestamps). */
  n: number;
  /** JSON-array framing state for gemini-json-array. */
  arrayOpen: { value: boolean };
  /** What a piece of text weighs on the wire, roughly (to size single responses). */
  weigh: (text: string) => number;
}

function createWriter(dialect: FixtureDialect, ctx: WriterContext): Writer {
  switch (dialect) {
    case 'openai-chat':
      return openaiChatWriter(ctx, false);
    case 'xai-chat':
      return openaiChatWriter(ctx, true);
    case 'openai-responses':
      return openaiResponsesWriter(ctx);
    case 'anthropic-messages':
      return anthropicWriter(ctx);
    case 'gemini-sse':
      return geminiWriter(ctx, false);
    case 'gemini-json-array':
      return geminiWriter(ctx, true);
    case 'gemini-interactions':
      return interactionsWriter(ctx);
  }
}

/** OpenAI Chat Completions (obfuscation, `"usage":null`, usage chunk with `choices: []`, `[DONE]`) and xAI chat (reasoning_content, whole tool calls). */
function openaiChatWriter({ rng, sink, n }: WriterContext, xai: boolean): Writer {
  const id = xai ? `${rng.str(8, '0123456789abcdef')}-${rng.str(4, '0123456789abcdef')}-${rng.str(4, '0123456789abcdef')}-${rng.str(4, '0123456789abcdef')}-${rng.str(12, '0123456789abcdef')}` : `chatcmpl-${rng.str(29)}`;
  const created = 1754693439 + n;
  const model = xai ? 'grok-3-mini' : 'gpt-4o-2024-08-06';
  const fingerprint = xai ? 'fp_2a885414fb' : 'fp_07871e2ad8';
  let toolIndex = 0;

  function chunk(delta: object, finish: string | null = null): void {
    if (xai) {
      const choice: Record<string, unknown> = { index: 0, delta };
      if (finish !== null) choice['finish_reason'] = finish;
      sseEvent(sink, null, JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [choice], system_fingerprint: fingerprint }));
    } else {
      sseEvent(
        sink,
        null,
        JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          service_tier: 'default',
          system_fingerprint: fingerprint,
          usage: null,
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
          obfuscation: rng.str(rng.int(2, 15)),
        }),
      );
    }
  }

  return {
    start() {
      if (!xai) chunk({ role: 'assistant', content: '', refusal: null });
    },
    reasoning(deltas) {
      if (!xai) return; // OpenAI chat does not stream reasoning
      deltas.forEach((d, i) => chunk(i === 0 ? { reasoning_content: d, role: 'assistant' } : { reasoning_content: d }));
    },
    textOpen() {},
    textDelta(text) {
      chunk({ content: text });
    },
    textClose() {},
    tool(call) {
      const index = toolIndex++;
      if (xai) {
        chunk({ tool_calls: [{ id: call.id, function: { name: call.name, arguments: call.args }, index, type: 'function' }] });
        return;
      }
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const f of call.fragments) chunk({ tool_calls: [{ index, function: { arguments: f } }] });
    },
    finish(stop, usage) {
      const usageObj = {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: usage.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      };
      if (xai) {
        chunk({}, stop);
        sseEvent(sink, null, JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usageObj, num_sources_used: 0, cost_in_usd_ticks: usage.output * 5000 }, system_fingerprint: fingerprint }));
      } else {
        sseEvent(
          sink,
          null,
          JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            service_tier: 'default',
            system_fingerprint: fingerprint,
            choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: stop }],
            usage: null,
            obfuscation: rng.str(rng.int(2, 15)),
          }),
        );
        sseEvent(
          sink,
          null,
          JSON.stringify({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: fingerprint, choices: [], usage: usageObj, obfuscation: rng.str(rng.int(2, 15)) }),
        );
      }
      sseEvent(sink, null, '[DONE]');
    },
    trailerEstimate() {
      return 1500;
    },
  };
}

/** OpenAI Responses: `event:` lines, sequence_number, `*.done` events repeating the whole text, response.completed with output and usage. */
function openaiResponsesWriter({ rng, sink, n, weigh }: WriterContext): Writer {
  const respId = `resp_${rng.str(50, '0123456789abcdef')}`;
  const createdAt = 1778037177 + n;
  let seq = 0;
  const output: object[] = [];
  let textItemId = '';
  let textIndex = -1;
  const textParts: string[] = [];
  let textLen = 0;

  function ev(type: string, body: Record<string, unknown>): void {
    sseEvent(sink, type, JSON.stringify({ type, ...body, sequence_number: seq++ }));
  }
  function response(status: string, out: object[], usage: object | null, completedAt: number | null): object {
    return {
      id: respId,
      object: 'response',
      created_at: createdAt,
      status,
      background: false,
      completed_at: completedAt,
      error: null,
      frequency_penalty: 0.0,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: null,
      max_output_tokens: null,
      max_tool_calls: null,
      model: 'gpt-5.5-2026-04-23',
      moderation: null,
      output: out,
      parallel_tool_calls: true,
      presence_penalty: 0.0,
      previous_response_id: null,
      prompt_cache_key: null,
      prompt_cache_retention: '24h',
      reasoning: { effort: 'low', summary: 'auto' },
      safety_identifier: null,
      service_tier: 'auto',
      store: false,
      temperature: 1.0,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: 'auto',
      tools: [],
      top_logprobs: 0,
      top_p: 0.98,
      truncation: 'disabled',
      usage,
      user: null,
      metadata: {},
    };
  }

  return {
    start() {
      const r = response('in_progress', [], null, null);
      ev('response.created', { response: r });
      ev('response.in_progress', { response: r });
    },
    reasoning(deltas) {
      const itemId = `rs_${rng.str(48, '0123456789abcdef')}`;
      const outputIndex = output.length;
      const encrypted = 'gAAAAAB' + rng.str(600, B64URL);
      ev('response.output_item.added', { item: { id: itemId, type: 'reasoning', encrypted_content: encrypted, summary: [] }, output_index: outputIndex });
      ev('response.reasoning_summary_part.added', { item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const d of deltas) ev('response.reasoning_summary_text.delta', { item_id: itemId, output_index: outputIndex, summary_index: 0, delta: d, obfuscation: rng.str(rng.int(2, 14)) });
      const text = deltas.join('');
      ev('response.reasoning_summary_text.done', { item_id: itemId, output_index: outputIndex, summary_index: 0, text });
      ev('response.reasoning_summary_part.done', { item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text } });
      const item = { id: itemId, type: 'reasoning', encrypted_content: encrypted, summary: [{ type: 'summary_text', text }] };
      ev('response.output_item.done', { item, output_index: outputIndex });
      output.push(item);
    },
    textOpen() {
      textItemId = `msg_${rng.str(48, '0123456789abcdef')}`;
      textIndex = output.length;
      textParts.length = 0;
      textLen = 0;
      ev('response.output_item.added', { item: { id: textItemId, type: 'message', status: 'in_progress', content: [], phase: 'final_answer', role: 'assistant' }, output_index: textIndex });
      ev('response.content_part.added', { content_index: 0, item_id: textItemId, output_index: textIndex, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
    },
    textDelta(text) {
      textParts.push(text);
      textLen += weigh(text);
      ev('response.output_text.delta', { content_index: 0, delta: text, item_id: textItemId, logprobs: [], obfuscation: rng.str(rng.int(2, 14)), output_index: textIndex });
    },
    textClose() {
      const text = textParts.join('');
      textParts.length = 0;
      textParts.push(text);
      ev('response.output_text.done', { content_index: 0, item_id: textItemId, logprobs: [], output_index: textIndex, text });
      const part = { type: 'output_text', annotations: [], logprobs: [], text };
      ev('response.content_part.done', { content_index: 0, item_id: textItemId, output_index: textIndex, part });
      const item = { id: textItemId, type: 'message', status: 'completed', content: [part], phase: 'final_answer', role: 'assistant' };
      ev('response.output_item.done', { item, output_index: textIndex });
      output.push(item);
      textIndex = -1;
    },
    tool(call) {
      const itemId = `fc_${rng.str(48, '0123456789abcdef')}`;
      const outputIndex = output.length;
      ev('response.output_item.added', { item: { id: itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: call.id, name: call.name }, output_index: outputIndex });
      for (const f of call.fragments) ev('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: f, obfuscation: rng.str(rng.int(2, 14)) });
      ev('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, arguments: call.args });
      const item = { id: itemId, type: 'function_call', status: 'completed', arguments: call.args, call_id: call.id, name: call.name };
      ev('response.output_item.done', { item, output_index: outputIndex });
      output.push(item);
    },
    finish(stop, usage) {
      const status = stop === 'length' ? 'incomplete' : 'completed';
      ev(`response.${status}`, {
        response: response(
          status,
          output,
          {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: usage.reasoning },
            total_tokens: usage.input + usage.output,
          },
          createdAt + 1,
        ),
      });
    },
    trailerEstimate() {
      // done, part.done, item.done and completed each repeat the whole text (escaping grows it a little)
      return 4 * Math.ceil(textLen * 1.15) + 6000;
    },
  };
}

/** Anthropic Messages: padding spaces before the closing brace, pings, thinking + signature, input_json_delta, message_delta usage. */
function anthropicWriter({ rng, sink }: WriterContext): Writer {
  const id = `msg_${rng.str(24)}`;
  let index = 0;
  function ev(type: string, body: Record<string, unknown>): void {
    let data = JSON.stringify({ type, ...body });
    if (rng.chance(0.3)) data = data.slice(0, -1) + ' '.repeat(rng.int(1, 16)) + '}';
    sseEvent(sink, type, data);
  }
  function maybePing(): void {
    if (rng.chance(0.002)) {
      sink.frames++;
      sink.out.push('event: ping\ndata: {"type": "ping"}\n\n');
    }
  }
  return {
    start() {
      ev('message_start', {
        message: {
          model: 'claude-sonnet-4-5-20250929',
          id,
          type: 'message',
          role: 'assistant',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 377, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: 1, service_tier: 'standard' },
        },
      });
    },
    reasoning(deltas) {
      ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      sink.frames++;
      sink.out.push('event: ping\ndata: {"type": "ping"}\n\n');
      for (const d of deltas) {
        ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: d } });
        maybePing();
      }
      ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: rng.str(400, B64) + '==' } });
      ev('content_block_stop', { index });
      index++;
    },
    textOpen() {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) {
        sink.frames++;
        sink.out.push('event: ping\ndata: {"type": "ping"}\n\n');
      }
    },
    textDelta(text) {
      ev('content_block_delta', { index, delta: { type: 'text_delta', text } });
      maybePing();
    },
    textClose() {
      ev('content_block_stop', { index });
      index++;
    },
    tool(call) {
      ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const f of call.fragments) ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: f } });
      ev('content_block_stop', { index });
      index++;
    },
    finish(stop, usage) {
      const reason = stop === 'tool_calls' ? 'tool_use' : stop === 'length' ? 'max_tokens' : 'end_turn';
      ev('message_delta', { delta: { stop_reason: reason, stop_sequence: null }, usage: { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cached, output_tokens: usage.output } });
      ev('message_stop', {});
    },
    trailerEstimate() {
      return 600;
    },
  };
}

/**
 * Gemini streamGenerateContent: `?alt=sse` (data-only SSE, CRLF) or the default
 * pretty-printed JSON array (`[{`…`\n,\r\n`…`\n]`). usageMetadata on every
 * chunk, functionCall parts complete, thoughtSignature on the final empty-text part.
 */
function geminiWriter({ rng, sink, arrayOpen }: WriterContext, array: boolean): Writer {
  const responseId = rng.str(22, B64URL);
  let candidatesTokens = 0;
  let thoughtsTokens = 0;
  const promptTokens = rng.int(9, 400);
  function usageMetadata(): object {
    const u: Record<string, unknown> = {
      promptTokenCount: promptTokens,
      candidatesTokenCount: candidatesTokens,
      totalTokenCount: promptTokens + candidatesTokens + thoughtsTokens,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
    };
    if (thoughtsTokens > 0) u['thoughtsTokenCount'] = thoughtsTokens;
    return u;
  }
  function chunk(parts: object[], finishReason?: string): void {
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' } };
    if (finishReason !== undefined) candidate['finishReason'] = finishReason;
    candidate['index'] = 0;
    const obj = { candidates: [candidate], usageMetadata: usageMetadata(), modelVersion: 'gemini-3-flash-preview', responseId };
    sink.frames++;
    if (array) {
      const text = htmlSafe(JSON.stringify(obj, null, 2));
      if (!arrayOpen.value) {
        arrayOpen.value = true;
        sink.out.push('[' + text);
      } else sink.out.push('\n,\r\n' + text);
    } else sink.out.push(`data: ${htmlSafe(JSON.stringify(obj))}\r\n\r\n`);
  }
  return {
    start() {},
    reasoning(deltas) {
      for (const d of deltas) {
        thoughtsTokens += Math.ceil(d.length / 4);
        chunk([{ text: d, thought: true }]);
      }
    },
    textOpen() {},
    textDelta(text) {
      candidatesTokens += Math.ceil(text.length / 4);
      chunk([{ text }]);
    },
    textClose() {},
    tool(call) {
      candidatesTokens += 10;
      chunk([{ functionCall: { name: call.name, args: JSON.parse(call.args) as object }, thoughtSignature: rng.str(200, B64) + '=' }]);
    },
    finish(stop) {
      chunk([{ text: '', thoughtSignature: rng.str(rng.int(300, 1200), B64) + '=' }], stop === 'length' ? 'MAX_TOKENS' : 'STOP');
      if (array) {
        sink.out.push('\n]\n');
        arrayOpen.value = false;
      }
    },
    trailerEstimate() {
      return 2500;
    },
  };
}

/** Gemini Interactions: interaction.* and step.* events with event_type, then `event: done` / `[DONE]`. */
function interactionsWriter({ rng, sink }: WriterContext): Writer {
  const id = `v1_${rng.str(70, B64URL)}`;
  let index = 0;
  let status = 'completed';
  function ev(type: string, body: Record<string, unknown>): void {
    sseEvent(sink, type, JSON.stringify({ ...body, event_type: type }));
  }
  return {
    start() {
      ev('interaction.created', { interaction: { id, status: 'in_progress', object: 'interaction', model: 'gemini-2.5-flash' } });
      ev('interaction.status_update', { interaction_id: id, status: 'in_progress' });
    },
    reasoning(deltas) {
      ev('step.start', { index, step: { type: 'thought' } });
      for (const d of deltas) ev('step.delta', { index, delta: { type: 'thought_summary', content: { text: d } } });
      ev('step.delta', { index, delta: { signature: rng.str(300, B64) + '=', type: 'thought_signature' } });
      ev('step.stop', { index });
      index++;
    },
    textOpen() {
      ev('step.start', { index, step: { type: 'model_output' } });
    },
    textDelta(text) {
      ev('step.delta', { index, delta: { text, type: 'text' } });
    },
    textClose() {
      ev('step.stop', { index });
      index++;
    },
    tool(call) {
      status = 'requires_action';
      ev('step.start', { index, step: { id: call.id, signature: '', type: 'function_call', name: call.name, arguments: {} } });
      for (const f of call.fragments) ev('step.delta', { index, delta: { arguments: f, type: 'arguments_delta' } });
      ev('step.stop', { index });
      index++;
    },
    finish(stop, usage) {
      ev('interaction.completed', {
        interaction: {
          id,
          status: stop === 'length' ? 'incomplete' : status,
          usage: {
            total_tokens: usage.input + usage.output,
            total_input_tokens: usage.input,
            input_tokens_by_modality: [{ modality: 'text', tokens: usage.input }],
            total_cached_tokens: usage.cached,
            total_output_tokens: usage.output - usage.reasoning,
            total_tool_use_tokens: 0,
            total_thought_tokens: usage.reasoning,
          },
          created: '2026-05-15T18:51:57Z',
          updated: '2026-05-15T18:51:57Z',
          service_tier: 'standard',
          object: 'interaction',
          model: 'gemini-2.5-flash',
        },
      });
      sseEvent(sink, 'done', '[DONE]');
    },
    trailerEstimate() {
      return 1200;
    },
  };
}

// ---------------------------------------------------------------------------
// Driving the writers

/** Delta sizes per dialect (tokens per delta): OpenAI/xAI ~1 token, Anthropic a few, Gemini whole sentences. */
function deltaTokens(dialect: FixtureDialect): [number, number] {
  switch (dialect) {
    case 'openai-chat':
    case 'openai-responses':
    case 'xai-chat':
      return [1, 2];
    case 'anthropic-messages':
      return [1, 8];
    case 'gemini-sse':
    case 'gemini-json-array':
    case 'gemini-interactions':
      return [8, 60];
  }
}

function argFragmentMax(dialect: FixtureDialect): number {
  return dialect === 'anthropic-messages' ? 24 : dialect === 'gemini-interactions' ? 120 : 8;
}

/** Does this dialect carry tool arguments as fragments (else as one whole delivery)? */
function fragmentsArgs(dialect: FixtureDialect): boolean {
  return dialect === 'openai-chat' || dialect === 'openai-responses' || dialect === 'anthropic-messages' || dialect === 'gemini-interactions';
}

/** Told every text and reasoning delta the generator writes (tests compare them with what a reader finds). */
export interface TextRecorder {
  /** `response` counts from 1. */
  text(response: number, delta: string): void;
  reasoning(response: number, delta: string): void;
}

/**
 * Yields the fixture as wire strings (one or a few events each) and fills
 * `stats` as it goes; `stats.bytes` is exact once the generator is done.
 */
export function* generatePieces(options: GenerateOptions, stats: FixtureStats = emptyStats(options), recorder?: TextRecorder): Generator<string, FixtureStats> {
  const { dialect, shape, size } = options;
  const profile = options.profile ?? 'english';
  // (the english profile keeps the seed it had before profiles existed: same bytes)
  const rng = new Rng(((options.seed ?? 1) * 2654435761) ^ hashString(profile === 'english' ? `${dialect}/${shape}` : `${dialect}/${shape}/${profile}`));
  const sink: Sink = { out: [], frames: 0 };
  const arrayOpen = { value: false };
  const [minTok, maxTok] = deltaTokens(dialect);
  const multilingual = profile === 'multilingual' ? new MultilingualText(rng) : null;
  // (Responses' trailer repeats the text 4 times and adds 15 % for JSON escapes, which multilingual text has few of)
  const weigh = multilingual === null ? (t: string): number => t.length : (t: string): number => Buffer.byteLength(t) / 1.12;
  /** One delta of visible text or reasoning. */
  const delta = (): string => (multilingual === null ? prose(rng, minTok, maxTok) : multilingual.take(multilingualDeltaLength(rng, dialect)));
  let bytes = 0;
  let responseNo = 0;

  function* drain(): Generator<string> {
    for (const s of sink.out) {
      bytes += Buffer.byteLength(s);
      yield s;
    }
    sink.out.length = 0;
  }

  function makeTool(approxArgs: number): ToolPlan {
    const args = toolArguments(rng, approxArgs);
    const id = dialect === 'anthropic-messages' ? `toolu_${rng.str(24)}` : dialect === 'gemini-interactions' ? rng.str(8, '0123456789abcdefghijklmnopqrstuvwxyz') : `call_${rng.str(24)}`;
    const parts = fragmentsArgs(dialect) ? fragments(rng, args, argFragmentMax(dialect)) : [args];
    return { id, name: rng.pick(TOOL_NAMES), args, fragments: parts };
  }

  function countTool(call: ToolPlan): void {
    stats.toolCalls++;
    stats.toolArgChars += call.args.length;
    stats.toolArgDeltas += call.fragments.length;
  }

  function reasoningDeltas(count: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const d = i === 0 ? '**' + (multilingual === null ? rng.pick(WORDS) : multilingual.take(rng.int(2, 12))) + '**' : delta();
      out.push(d);
      stats.reasoningDeltas++;
      stats.reasoningChars += d.length;
      recorder?.reasoning(responseNo, d);
    }
    return out;
  }

  function nextText(): string {
    const t = delta();
    recorder?.text(responseNo, t);
    stats.textDeltas++;
    stats.textChars += t.length;
    if (responseNo === 1) stats.firstResponseTextChars += t.length;
    return t;
  }

  const hasReasoning = dialect !== 'openai-chat';

  if (shape === 'single') {
    responseNo = 1;
    const w = createWriter(dialect, { rng, sink, n: 0, arrayOpen, weigh });
    const before = { ...stats };
    const tools = [makeTool(Math.max(100, Math.min(2000, Math.floor(size / 1000)))), makeTool(Math.max(60, Math.min(200, Math.floor(size / 10000))))];
    // what the tool calls will weigh on the wire: render them once with a throwaway writer
    const scratch: Sink = { out: [], frames: 0 };
    const probe = createWriter(dialect, { rng: new Rng(0), sink: scratch, n: 0, arrayOpen: { value: true }, weigh });
    for (const t of tools) probe.tool(t);
    const toolBytes = scratch.out.reduce((a, s) => a + Buffer.byteLength(s), 0);
    w.start();
    if (hasReasoning) w.reasoning(reasoningDeltas(Math.max(10, Math.min(2000, Math.floor(size / 200_000)))));
    w.textOpen();
    yield* drain();
    while (bytes + w.trailerEstimate() + toolBytes < size) {
      w.textDelta(nextText());
      yield* drain();
    }
    w.textClose();
    for (const t of tools) {
      w.tool(t);
      countTool(t);
    }
    w.finish('tool_calls', usageFor(stats, before));
    stats.responses++;
    yield* drain();
  } else {
    while (bytes < size) {
      responseNo++;
      const w = createWriter(dialect, { rng, sink, n: responseNo, arrayOpen, weigh });
      const r = rng.next();
      const withText = r < 0.85;
      const toolCount = r < 0.6 ? 0 : rng.int(1, 3);
      const textDeltas = rng.chance(0.2) ? rng.int(300, 3000) : rng.int(5, 300);
      // (multilingual deltas are about 3 times as long on average: a third as many keeps the responses' sizes alike)
      const scaled = Math.max(1, Math.round(textDeltas / (maxTok / 2) / (multilingual === null ? 1 : 3)));
      const before = { ...stats };
      w.start();
      if (hasReasoning && rng.chance(0.3)) w.reasoning(reasoningDeltas(rng.int(3, 120)));
      if (withText) {
        w.textOpen();
        for (let i = 0; i < scaled; i++) w.textDelta(nextText());
        w.textClose();
      }
      for (let i = 0; i < toolCount; i++) {
        const t = makeTool(rng.int(30, 600));
        w.tool(t);
        countTool(t);
      }
      const stop: StopKind = toolCount > 0 ? 'tool_calls' : rng.chance(0.05) ? 'length' : 'stop';
      w.finish(stop, usageFor(stats, before));
      stats.responses++;
      yield* drain();
    }
  }
  stats.bytes = bytes;
  stats.frames = sink.frames;
  return stats;
}

/** Plausible token counts for the response written since `before`. */
function usageFor(stats: FixtureStats, before: FixtureStats): Usage {
  const output = Math.ceil((stats.textChars - before.textChars + stats.toolArgChars - before.toolArgChars) / 4);
  const reasoning = Math.ceil((stats.reasoningChars - before.reasoningChars) / 4);
  return { input: 377, output: output + reasoning, reasoning, cached: 0 };
}

export function emptyStats(options: GenerateOptions): FixtureStats {
  return {
    dialect: options.dialect,
    shape: options.shape,
    profile: options.profile ?? 'english',
    seed: options.seed ?? 1,
    bytes: 0,
    responses: 0,
    frames: 0,
    textDeltas: 0,
    textChars: 0,
    reasoningDeltas: 0,
    reasoningChars: 0,
    toolCalls: 0,
    toolArgDeltas: 0,
    toolArgChars: 0,
    firstResponseTextChars: 0,
  };
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Yields the fixture as Buffers of exactly `chunkSize` bytes (the last one
 * shorter), holding at most one batch of pieces in memory. `stats` is filled
 * as the chunks go out and complete when the generator ends.
 */
export function* generateChunks(options: GenerateOptions, chunkSize = 64 * 1024, stats: FixtureStats = emptyStats(options)): Generator<Buffer, FixtureStats> {
  const batch: string[] = [];
  let batchLen = 0;
  let carry: Buffer | null = null;
  const target = Math.max(chunkSize, 256 * 1024);
  function* flush(final: boolean): Generator<Buffer> {
    let buf = Buffer.from(batch.join(''), 'utf8');
    batch.length = 0;
    batchLen = 0;
    if (carry !== null) {
      buf = Buffer.concat([carry, buf]);
      carry = null;
    }
    let pos = 0;
    while (buf.length - pos >= chunkSize) {
      yield buf.subarray(pos, pos + chunkSize);
      pos += chunkSize;
    }
    if (pos < buf.length) {
      if (final) yield buf.subarray(pos);
      else carry = buf.subarray(pos);
    }
  }
  const it = generatePieces(options, stats);
  for (;;) {
    const r = it.next();
    if (r.done === true) break;
    batch.push(r.value);
    batchLen += r.value.length;
    if (batchLen >= target) yield* flush(false);
  }
  yield* flush(true);
  return stats;
}

/**
 * A log of at least `options.size` bytes made by generating one log segment
 * of `segmentSize` bytes once and replaying it back to back (each segment ends
 * on a response boundary, so the result is a valid log), as zero-copy chunk
 * views. Allocates nothing per chunk, so a memory measurement sees the
 * consumer's memory and not the generator's garbage. `stats` grows by the
 * segment's stats at every replay.
 */
export function* replayChunks(options: GenerateOptions, segmentSize = 8 << 20, chunkSize = 64 * 1024, stats: FixtureStats = emptyStats(options)): Generator<Buffer, FixtureStats> {
  const { data, stats: seg } = generateToBuffer({ ...options, shape: 'log', size: segmentSize });
  let total = 0;
  while (total < options.size) {
    for (let pos = 0; pos < data.length; pos += chunkSize) yield data.subarray(pos, Math.min(pos + chunkSize, data.length));
    total += data.length;
    for (const k of ['bytes', 'responses', 'frames', 'textDeltas', 'textChars', 'reasoningDeltas', 'reasoningChars', 'toolCalls', 'toolArgDeltas', 'toolArgChars'] as const) stats[k] += seg[k];
    if (stats.firstResponseTextChars === 0) stats.firstResponseTextChars = seg.firstResponseTextChars;
  }
  return stats;
}

/** A Readable of the fixture generated on the fly (nothing held but the current batch). */
export function fixtureReadable(options: GenerateOptions, chunkSize = 64 * 1024, stats?: FixtureStats): Readable {
  return Readable.from(generateChunks(options, chunkSize, stats), { objectMode: false });
}

/** The whole fixture in memory (tests, small sizes). */
export function generateToBuffer(options: GenerateOptions, recorder?: TextRecorder): { data: Buffer; stats: FixtureStats } {
  const stats = emptyStats(options);
  const parts: string[] = [];
  for (const s of generatePieces(options, stats, recorder)) parts.push(s);
  return { data: Buffer.from(parts.join(''), 'utf8'), stats };
}

// ---------------------------------------------------------------------------
// Files

export const benchmarksDir = dirname(fileURLToPath(import.meta.url));
export const defaultFixtureDir = join(benchmarksDir, '.fixtures');

export function fixtureName(dialect: FixtureDialect, shape: FixtureShape, size: number, seed = 1, profile: FixtureProfile = 'english'): string {
  return `${dialect}.${shape}${profile === 'english' ? '' : `.${profile}`}.${formatSize(size)}${seed === 1 ? '' : `.seed${seed}`}.${fixtureExtension(dialect)}`;
}

export interface FixtureFile {
  path: string;
  statsPath: string;
  stats: FixtureStats;
}

/** Writes one fixture (and its `.stats.json`) unless it is already there. */
export function writeFixture(options: GenerateOptions, dir = defaultFixtureDir, force = false): FixtureFile {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, fixtureName(options.dialect, options.shape, options.size, options.seed ?? 1, options.profile ?? 'english'));
  const statsPath = path + '.stats.json';
  if (!force && existsSync(path) && existsSync(statsPath)) {
    return { path, statsPath, stats: JSON.parse(readFileSync(statsPath, 'utf8')) as FixtureStats };
  }
  const tmp = path + '.tmp';
  const fd = openSync(tmp, 'w');
  const stats = emptyStats(options);
  try {
    const batch: string[] = [];
    let len = 0;
    for (const s of generatePieces(options, stats)) {
      batch.push(s);
      len += s.length;
      if (len >= 1 << 20) {
        writeSync(fd, batch.join(''));
        batch.length = 0;
        len = 0;
      }
    }
    writeSync(fd, batch.join(''));
  } finally {
    closeSync(fd);
  }
  writeFileSync(statsPath, JSON.stringify(stats, null, 2) + '\n');
  renameSync(tmp, path);
  return { path, statsPath, stats };
}

/** `5MB`, `512KiB`, `1GB`, `1048576` → bytes (binary units: 1 MB = 1 MiB here). */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(i?b)?\s*$/i.exec(text);
  if (m === null) throw new Error(`not a size: ${text} (try 5MB, 512KB, 1GB)`);
  const unit = (m[2] ?? '').toLowerCase();
  const mult = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Math.round(Number(m[1]) * mult);
}

export function formatSize(bytes: number): string {
  if (bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3}GB`;
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes}B`;
}

// ---------------------------------------------------------------------------
// CLI

export const DEFAULT_SIZE = 50 * 1024 * 1024;

function listArg(args: string[], name: string): string[] | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined) throw new Error(`${name} needs a value`);
  return v.split(',').filter((s) => s !== '');
}

function main(argv: string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: tsx benchmarks/generate.ts [--size 50MB] [--seed 1] [--dialect a,b] [--shape single,log] [--profile english,multilingual] [--out dir] [--force]\n' +
        `dialects: ${FIXTURE_DIALECTS.join(', ')}\nprofiles: ${FIXTURE_PROFILES.join(', ')} (default: english)\n`,
    );
    return;
  }
  const size = parseSize(listArg(argv, '--size')?.[0] ?? String(DEFAULT_SIZE));
  const seed = Number(listArg(argv, '--seed')?.[0] ?? '1');
  const dialects = (listArg(argv, '--dialect') ?? [...FIXTURE_DIALECTS]) as FixtureDialect[];
  const shapes = (listArg(argv, '--shape') ?? [...FIXTURE_SHAPES]) as FixtureShape[];
  const profiles = (listArg(argv, '--profile') ?? ['english']) as FixtureProfile[];
  const dir = resolve(listArg(argv, '--out')?.[0] ?? defaultFixtureDir);
  const force = argv.includes('--force');
  for (const d of dialects) if (!FIXTURE_DIALECTS.includes(d)) throw new Error(`unknown dialect ${d}`);
  for (const s of shapes) if (!FIXTURE_SHAPES.includes(s)) throw new Error(`unknown shape ${s}`);
  for (const p of profiles) if (!FIXTURE_PROFILES.includes(p)) throw new Error(`unknown profile ${p}`);
  for (const profile of profiles) {
    for (const dialect of dialects) {
      for (const shape of shapes) {
        const t0 = performance.now();
        const f = writeFixture({ dialect, shape, size, seed, profile }, dir, force);
        const ms = performance.now() - t0;
        process.stdout.write(
          `${f.path}: ${(f.stats.bytes / 2 ** 20).toFixed(1)} MiB, ${f.stats.responses} responses, ${f.stats.frames} frames, ${f.stats.textDeltas} text deltas, ${f.stats.toolCalls} tool calls (${ms.toFixed(0)} ms)\n`,
        );
      }
    }
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
