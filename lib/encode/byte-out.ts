/**
 * The encoder's output as bytes (createStream({ to })): every write of an input
 * chunk goes into blocks of bytes, handed on once per chunk (one view per block
 * written), instead of a string per event that the Transform encodes and queues
 * on its own. Texts a target writes again and again (the Responses wire repeats
 * each part's whole text four times) are kept as their UTF-8 bytes and copied,
 * not re-encoded: a target puts a kept text's `ref()` into the string it writes
 * and the bytes take its place.
 */
import { alloc, utf8, writeLatin1, writeUtf8 } from '../bytes/index.js';
import { objectArray } from '../arrays.js';
import type { Emit } from '../stage.js';
import type { Piece } from './target.js';

/** A text's JSON string characters, kept to be written again (see TargetContext.keep). */
export interface KeptText {
  /** Appends ctx.chars(s); returns them, or undefined when they were not needed (a delta copied as its bytes). */
  add(s: string): string | undefined;
  /** Nothing kept (or only empty texts). */
  empty(): boolean;
  /** The text kept, decoded (for the rare reader of its content: citation offsets). */
  text(): string;
  /**
   * The characters kept, to be put in a string given to ctx.write (in byte mode a reference of a few
   * characters that write replaces with the kept bytes: valid only inside this response's writes).
   */
  ref(): string;
}

/**
 * The size of a block: a write that may not fit starts a new one, and the
 * bytes of the full one wait in `full` (never copied). Under glibc's mmap
 * threshold (128 KiB) a block comes from the malloc heap, whose pages the next
 * blocks reuse; a larger one is mapped fresh and faulted in page by page each
 * time (a Responses stream writes several times its input).
 */
const BLOCK = 64 * 1024;

export class ByteOut {
  private buf: Uint8Array = alloc(BLOCK);
  private pos = 0;
  /** Where the bytes not handed on yet begin. */
  private start = 0;
  /** Full blocks' bytes not handed on yet, in order. */
  private readonly full = objectArray<Uint8Array>();
  /**
   * Kept texts of the open response by name. A reference is NUL, the name, NUL: JSON text and the SSE
   * lines around it hold no raw NUL (JSON escapes every control character), and one that is no
   * reference is written as it is.
   */
  private kept = new Map<string, KeptBytes>();
  private readonly arena = new Arena();

  private room(n: number): void {
    if (this.pos + n > this.buf.length) this.next(n);
  }

  /** The block is full: its bytes wait in `full`, and a new block of at least n bytes takes its place. */
  private next(n: number): void {
    if (this.pos > this.start) this.full.push(this.buf.subarray(this.start, this.pos));
    this.buf = alloc(n > BLOCK ? n : BLOCK);
    this.start = 0;
    this.pos = 0;
  }

  /** Wire text (kept texts' refs replaced by their bytes). */
  write(s: string): void {
    if (this.kept.size > 0 && s.indexOf('\0') !== -1) {
      this.spliced(s);
      return;
    }
    this.plain(s);
  }

  /** A string of one byte per character (the latin1 view of UTF-8 bytes), as those bytes. */
  latin1(s: string): void {
    this.room(s.length);
    this.pos += writeLatin1(this.buf, s, this.pos);
  }

  /** A kept text's bytes, a long one across blocks (cut where a character begins: each view handed on is whole UTF-8). */
  private keptBytes(k: KeptBytes): void {
    const src = k.arena.buf;
    let from = k.start;
    const end = from + k.len;
    while (end - from > this.buf.length - this.pos) {
      let cut = from + (this.buf.length - this.pos);
      while (cut > from && (src[cut]! & 0xc0) === 0x80) cut--;
      this.buf.set(src.subarray(from, cut), this.pos);
      this.pos += cut - from;
      from = cut;
      this.next(0);
    }
    this.buf.set(src.subarray(from, end), this.pos);
    this.pos += end - from;
  }

  private spliced(s: string): void {
    let from = 0;
    let at = s.indexOf('\0');
    while (at !== -1) {
      const close = s.indexOf('\0', at + 1);
      const k = close === -1 ? undefined : this.kept.get(s.slice(at + 1, close));
      if (k === undefined) {
        // not a reference after all: written as it is
        at = s.indexOf('\0', at + 1);
        continue;
      }
      this.plain(s.slice(from, at));
      this.keptBytes(k);
      from = close + 1;
      at = s.indexOf('\0', from);
    }
    this.plain(s.slice(from));
  }

  /** A piece (its bytes encoded at its first write). */
  piece(p: Piece): void {
    let b = p.bytes;
    if (b === null) {
      const scratch = alloc(p.text.length * 3, true);
      b = p.bytes = scratch.subarray(0, writeUtf8(scratch, p.text, 0));
    }
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A number as text (a sequence number: digits written here, no string made). */
  num(n: number): void {
    if (n >>> 0 !== n) {
      this.plain(String(n));
      return;
    }
    this.room(10);
    let digits = 1;
    for (let m = n; m >= 10; m = (m / 10) >>> 0) digits++;
    let at = (this.pos += digits);
    do {
      this.buf[--at] = 48 + (n % 10);
      n = (n / 10) >>> 0;
    } while (n > 0);
  }

  /** A piece, a number and wire text (see write). */
  head(p: Piece, n: number, rest: string): void {
    this.piece(p);
    this.num(n);
    this.write(rest);
  }

  /** Wire text that holds no kept text's reference (not searched for one). */
  plain(s: string): void {
    this.room(s.length * 3);
    this.pos += writeUtf8(this.buf, s, this.pos);
  }

  /** A new kept text, its bytes written through `chars` (the encoder's ctx.chars, raw deltas as latin1). */
  keep(chars: (s: string) => string, raw: (s: string) => string | null): KeptText {
    const name = String(this.kept.size);
    const k = new KeptBytes(name, this.arena, chars, raw);
    this.kept.set(name, k);
    return k;
  }

  /** The response ended: its kept texts go. */
  forget(): void {
    this.kept.clear();
    this.arena.end = 0;
  }

  /** Hands on what was written since the last flush (views of full blocks and of this one, never written again). */
  flush(emit: Emit<Uint8Array>): void {
    if (this.full.length > 0) {
      for (const b of this.full) emit(b);
      this.full.length = 0;
    }
    if (this.pos === this.start) return;
    const out = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    emit(out);
  }
}

/**
 * The bytes of the open response's kept texts, one after another: a text grows only at the end (a
 * target keeps one text growing at a time; one added to after another moves to the end first), and
 * the next response reuses the room (no buffer a part).
 */
class Arena {
  buf: Uint8Array = alloc(16 * 1024);
  end = 0;

  /** Room for n more bytes at the end. */
  room(n: number): void {
    if (this.end + n <= this.buf.length) return;
    const next = alloc(Math.max(2 * this.buf.length, this.end + n));
    next.set(this.buf.subarray(0, this.end));
    this.buf = next;
  }
}

class KeptBytes implements KeptText {
  /** Where its bytes are in the arena. */
  start: number;
  len = 0;
  private readonly tag: string;

  constructor(
    name: string,
    readonly arena: Arena,
    private readonly chars: (s: string) => string,
    /** The delta's wire bytes as latin1 when it came raw and is written as it came, else null. */
    private readonly raw: (s: string) => string | null,
  ) {
    this.tag = `\0${name}\0`;
    this.start = arena.end;
  }

  add(s: string): string | undefined {
    const r = this.raw(s);
    const c = r === null ? this.chars(s) : undefined;
    const need = c === undefined ? (r as string).length : c.length * 3;
    const arena = this.arena;
    if (this.start + this.len !== arena.end) {
      // another text grew since: this one moves to the end
      arena.room(this.len + need);
      arena.buf.copyWithin(arena.end, this.start, this.start + this.len);
      this.start = arena.end;
      arena.end += this.len;
    } else arena.room(need);
    const at = this.start + this.len;
    this.len += c === undefined ? writeLatin1(arena.buf, r as string, at) : writeUtf8(arena.buf, c, at);
    arena.end = this.start + this.len;
    return c;
  }

  empty(): boolean {
    return this.len === 0;
  }

  text(): string {
    return JSON.parse(`"${utf8(this.arena.buf, this.start, this.start + this.len)}"`) as string;
  }

  ref(): string {
    return this.tag;
  }
}
