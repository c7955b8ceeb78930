/**
 * The standalone `ndjsonFramer()` Transform, built on split2. split2 re-splits
 * an unfinished line on every chunk, which is quadratic on multi-megabyte
 * lines, so fused pipelines use the byte scanner in framing/ndjson.ts instead;
 * both produce the same frames (tested).
 */
import split2 from 'split2';
import type { Transform } from 'node:stream';
import { FrameTooLargeError } from '../errors.js';
import type { Frame } from '../events.js';
import { isBlank } from '../framing/ndjson.js';
import { resolveFramerOptions, type FramerOptions } from '../framing/options.js';

export function split2NdjsonFramer(options: FramerOptions = {}): Transform {
  const { maxFrameBytes, positions } = resolveFramerOptions(options);
  let offset = 0; // byte offset of the next line
  let frameNo = 0;
  let first = true;
  const mapper = (raw: string): Frame | undefined => {
    let lineOffset = offset;
    const bytes = Buffer.byteLength(raw);
    offset += bytes + 1; // split on '\n' only, so the terminator is exactly one byte
    let line = raw;
    if (first) {
      first = false;
      if (line.charCodeAt(0) === 0xfeff) {
        line = line.slice(1);
        lineOffset += 3;
      }
    }
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (bytes > maxFrameBytes) throw new FrameTooLargeError(maxFrameBytes, lineOffset, frameNo);
    if (isBlank(line)) return undefined;
    const frame: Frame = { event: 'message', data: line, id: '' };
    if (positions) frame.at = { frame: frameNo, offset: lineOffset };
    frameNo++;
    return frame;
  };
  const stream = split2('\n', mapper, { maxLength: maxFrameBytes }) as Transform;
  // split2 reports an overlong unfinished line with a plain Error: make it the typed one.
  const transform = stream._transform.bind(stream);
  stream._transform = (chunk, encoding, callback) => {
    transform(chunk, encoding, (err?: Error | null) => {
      callback(err && !(err instanceof FrameTooLargeError) ? new FrameTooLargeError(maxFrameBytes, offset, frameNo) : err);
    });
  };
  return stream;
}
