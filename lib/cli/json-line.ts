/**
 * A value as one JSON line (JSON.stringify's text and a newline) in pieces
 * short enough that none is a large object for V8. JSON.stringify of a final
 * holding a long text builds its result from parts; writing it flattens that
 * into one fresh string twice the text's size (UTF-16) in V8's large-object
 * space, whose pages are mapped and faulted in afresh for every final, and
 * the write then encodes it into a fresh buffer as large: with --out final
 * over a day of 1 MB responses that was a third of the run. Here each string
 * of LONG_STRING characters or more is left out of the stringify (a
 * placeholder takes its place) and written as the JSON of its slices, which
 * together are the same characters: JSON escapes one character at a time,
 * and a slice never parts a surrogate pair.
 */

/** Strings this long are written in slices (shorter ones are left to JSON.stringify). */
export const LONG_STRING = 32 * 1024;
/** Characters per slice. */
export const PIECE = 16 * 1024;
/** The most characters a group of pieces is joined up to (see groupPieces): under V8's 128 KiB large-object size even as UTF-16. */
export const GROUP = 48 * 1024;

/**
 * What stands in for a long string in the stringified value. A string of the
 * value that stringifies the same is told apart by counting: the line is then
 * made the plain way.
 */
const PLACEHOLDER = '\u0000wirefold:long-string\u0000';
const QUOTED = JSON.stringify(PLACEHOLDER);

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The JSON line of `value`: one string when it holds no long string, else its pieces in order. */
export function jsonLine(value: unknown): string | string[] {
  let longs: string[] | null = null;
  const json = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'string' || v.length < LONG_STRING) return v;
    (longs ??= []).push(v);
    return PLACEHOLDER;
  });
  if (longs === null) return json + '\n';
  const long: string[] = longs;
  const parts = json.split(QUOTED);
  // a string of the value that reads like the placeholder: the plain way
  if (parts.length !== long.length + 1) return JSON.stringify(value) + '\n';
  const pieces: string[] = [];
  for (let k = 0; k < long.length; k++) {
    pieces.push(parts[k]!);
    const s = long[k]!;
    for (let i = 0; i < s.length; ) {
      let j = i + PIECE < s.length ? i + PIECE : s.length;
      if (j < s.length && isHighSurrogate(s.charCodeAt(j - 1))) j--;
      const quoted = JSON.stringify(s.slice(i, j));
      // the opening quote with the first slice, the closing one with the last
      pieces.push(quoted.slice(i === 0 ? 0 : 1, j === s.length ? quoted.length : -1));
      i = j;
    }
  }
  pieces.push(parts[long.length]! + '\n');
  return pieces;
}

/**
 * Calls `write` for pieces[from, to) joined into groups of at most GROUP
 * characters (a longer piece goes alone): few writes, and no string made a
 * large object. Stops at the first write that returns false.
 */
export async function groupPieces(pieces: readonly string[], from: number, to: number, write: (text: string) => Promise<boolean> | boolean): Promise<boolean> {
  let start = from;
  let chars = 0;
  for (let i = from; i < to; i++) {
    const n = pieces[i]!.length;
    if (chars + n > GROUP && i > start) {
      if (!(await write(i - start === 1 ? pieces[start]! : pieces.slice(start, i).join('')))) return false;
      start = i;
      chars = 0;
    }
    chars += n;
  }
  if (start === to) return true;
  return write(to - start === 1 ? pieces[start]! : pieces.slice(start, to).join(''));
}
