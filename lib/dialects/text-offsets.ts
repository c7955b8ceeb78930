/**
 * Citation offsets that Google's APIs give in UTF-8 bytes (Gemini
 * `groundingSupports[].segment`, `citationSources`, Interactions
 * annotations), turned into UTF-16 offsets of a block's final text, which is
 * what a JS consumer slices with.
 *
 * A TextLedger keeps the answer text's deltas as they came (references: no
 * copy while streaming; a delta the fast path took as wire bytes is kept as
 * such and decoded only when an offset is asked for), so the bytes can be
 * counted once the citations are known, which is at the end of a response.
 */
import { decodeWireBody } from '../framing/json-text.js';

/** A cited range resolved into one block: its index and UTF-16 offsets into that block's text. */
export interface BlockSpan {
  index: number;
  start: number;
  end: number;
}

/** UTF-8 byte length of the character at `s[i]` (4 for a surrogate pair, counted on its first half). */
function utf8Width(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 4;
  }
  return 3;
}

export class TextLedger {
  private readonly parts: string[] = [];
  /** Per part: block index × 2, + 1 when the part is wire bytes (latin1 view, escapes undecoded). */
  private readonly meta: number[] = [];
  /** The joined text and where each block's run of parts starts and ends in it (set by resolve). */
  private text: string | null = null;
  private runs: { index: number; from: number; to: number }[] = [];

  /** A delta of block `index`: decoded text, or (raw) its JSON string body as wire bytes. */
  add(index: number, text: string, raw: boolean): void {
    this.parts.push(text);
    this.meta.push(index * 2 + (raw ? 1 : 0));
    this.text = null;
  }

  get empty(): boolean {
    return this.parts.length === 0;
  }

  /** The first block that has text, or undefined. */
  firstBlock(): number | undefined {
    return this.meta.length === 0 ? undefined : Math.floor(this.meta[0]! / 2);
  }

  private resolve(): string {
    if (this.text !== null) return this.text;
    const out: string[] = [];
    const runs: { index: number; from: number; to: number }[] = [];
    let at = 0;
    for (let i = 0; i < this.parts.length; i++) {
      const m = this.meta[i]!;
      const s = (m & 1) === 1 ? decodeWireBody(this.parts[i]!) : this.parts[i]!;
      const index = Math.floor(m / 2);
      const last = runs[runs.length - 1];
      if (last !== undefined && last.index === index) last.to += s.length;
      else runs.push({ index, from: at, to: at + s.length });
      at += s.length;
      out.push(s);
    }
    this.runs = runs;
    return (this.text = out.join(''));
  }

  /**
   * UTF-16 offsets of the given UTF-8 byte offsets into the whole ledger's
   * text; an offset inside a character or past the end is left out.
   */
  utf16(byteOffsets: Iterable<number>): Map<number, number> {
    const text = this.resolve();
    const wanted = [...new Set(byteOffsets)].filter((b) => Number.isInteger(b) && b >= 0).sort((a, b) => a - b);
    const out = new Map<number, number>();
    let bytes = 0;
    let i = 0;
    for (const b of wanted) {
      while (bytes < b && i < text.length) {
        const w = utf8Width(text, i);
        bytes += w;
        i += w === 4 ? 2 : 1;
      }
      if (bytes === b) out.set(b, i);
    }
    return out;
  }

  /**
   * The block holding UTF-16 range [start, end) of the whole text, with the
   * range made relative to that block; null when it spans blocks, or when
   * `expected` (the provider's quote of the range) is not what the text holds there.
   */
  span(start: number, end: number, expected: string | undefined): BlockSpan | null {
    const text = this.resolve();
    if (end < start || end > text.length) return null;
    if (expected !== undefined && text.slice(start, end) !== expected) return null;
    for (const run of this.runs) {
      if (start >= run.from && end <= run.to && (start < run.to || start === end)) {
        return { index: run.index, start: start - run.from, end: end - run.from };
      }
    }
    return null;
  }
}
