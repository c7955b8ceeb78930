/**
 * The parsing floors every wirefold figure is a ratio to: the least any
 * reader of these formats must do. Fed decoded text (the caller runs the
 * TextDecoder, so the decode cost is the caller's as in a real reader).
 * - SSE: indexOf framing + JSON.parse of each event's data. Linear however
 *   the events are cut: an unfinished event is kept as pieces (joined once),
 *   and only the new text is searched for the separator.
 * - JSON array: a string-skipping depth scanner + JSON.parse per element.
 */
import type { FixtureDialect } from './generate.js';

export interface Floor {
  /** Feed the next piece of decoded text. */
  text(s: string): void;
  /** End of input; returns the number of frames (events or elements) parsed. */
  end(): number;
}

export function createSseFloor(separator: string): Floor {
  const parts: string[] = [];
  let tail = ''; // the last separator.length - 1 characters of the unfinished event
  let frames = 0;
  function onEvent(ev: string): void {
    const d = ev.indexOf('data:');
    if (d === -1) return;
    let s = d + 5;
    if (ev.charCodeAt(s) === 32) s++;
    let e = ev.indexOf('\n', s);
    if (e === -1) e = ev.length;
    if (ev.charCodeAt(e - 1) === 13) e--;
    const data = ev.slice(s, e);
    frames++;
    if (data !== '[DONE]') JSON.parse(data);
  }
  return {
    text(text) {
      let start = 0;
      if (parts.length > 0) {
        // a separator that straddles the previous text and this one
        const joint = tail + text.slice(0, separator.length - 1);
        const j = joint.indexOf(separator);
        if (j !== -1) {
          const pending = parts.join('');
          parts.length = 0;
          onEvent(pending.slice(0, pending.length - tail.length + j));
          start = j - tail.length + separator.length;
        }
      }
      for (;;) {
        const end = text.indexOf(separator, start);
        if (end === -1) break;
        if (parts.length > 0) {
          parts.push(text.slice(start, end));
          onEvent(parts.join(''));
          parts.length = 0;
        } else onEvent(text.slice(start, end));
        start = end + separator.length;
      }
      if (start < text.length) {
        const rest = start === 0 ? text : text.slice(start);
        tail =
          rest.length >= separator.length - 1
            ? rest.slice(rest.length - (separator.length - 1))
            : (tail + rest).slice(-(separator.length - 1));
        parts.push(rest);
      }
    },
    end() {
      if (parts.length > 0) onEvent(parts.join(''));
      parts.length = 0;
      return frames;
    },
  };
}

export function createJsonArrayFloor(): Floor {
  let buf = '';
  let pos = 0;
  let depth = 0;
  let inString = false;
  let elemStart = -1;
  let frames = 0;
  function scan(): void {
    const len = buf.length;
    while (pos < len) {
      if (inString) {
        const q = buf.indexOf('"', pos);
        if (q === -1) {
          pos = len;
          break;
        }
        let k = q - 1;
        while (buf.charCodeAt(k) === 92) k--;
        pos = q + 1;
        if (((q - 1 - k) & 1) === 0) inString = false;
        continue;
      }
      const c = buf.charCodeAt(pos);
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) {
        if (++depth === 2) elemStart = pos;
      } else if (c === 125 || c === 93) {
        if (--depth === 1 && elemStart >= 0) {
          JSON.parse(buf.slice(elemStart, pos + 1));
          frames++;
          elemStart = -1;
        }
      }
      pos++;
    }
    // keep only the open element
    const keep = elemStart >= 0 ? elemStart : pos;
    if (keep > 0) {
      buf = buf.slice(keep);
      pos -= keep;
      if (elemStart >= 0) elemStart = 0;
    }
  }
  return {
    text(s) {
      buf += s;
      scan();
    },
    end() {
      scan();
      return frames;
    },
  };
}

/** The floor for a fixture dialect. */
export function floorFor(dialect: FixtureDialect): Floor {
  if (dialect === 'gemini-json-array') return createJsonArrayFloor();
  return createSseFloor(dialect === 'gemini-sse' ? '\r\n\r\n' : '\n\n');
}

/** Runs a floor over byte chunks (sync or async), decoding UTF-8 as a reader must. */
export async function runFloor(floor: Floor, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number> {
  const dec = new TextDecoder();
  for await (const chunk of chunks) floor.text(dec.decode(chunk, { stream: true }));
  floor.text(dec.decode());
  return floor.end();
}

/** The same, synchronously (for same-process A/B loops). */
export function runFloorSync(floor: Floor, chunks: Iterable<Uint8Array>): number {
  const dec = new TextDecoder();
  for (const chunk of chunks) floor.text(dec.decode(chunk, { stream: true }));
  floor.text(dec.decode());
  return floor.end();
}
