/**
 * NDJSON framing: one frame per non-empty line (WebSocket frame logs, NDJSON
 * captures). This is the pure core used in fused pipelines; the standalone
 * `ndjsonFramer()` Transform is built on split2 (see transforms.ts).
 */
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { toBytes, type Chunk } from './bytes.js';
import { createLineSplitter } from './lines.js';
import { replacedInvalidUtf8, utf8 } from './utf8.js';
import { resolveFramerOptions, type FramerOptions, type ResolvedFramerOptions } from './options.js';

export type NdjsonFramerOptions = FramerOptions;

export function createNdjsonFramer(options: NdjsonFramerOptions = {}): Stage<Chunk, Frame> {
  return makeNdjsonFramer(resolveFramerOptions(options));
}

export function makeNdjsonFramer(options: Pick<ResolvedFramerOptions, 'maxFrameBytes' | 'positions'>): Stage<Chunk, Frame> {
  const { maxFrameBytes, positions } = options;
  let emit: Emit<Frame> = () => {};
  let frameNo = 0;
  const lines = createLineSplitter(maxFrameBytes, (buf, start, end, offset) => {
    const line = utf8(buf, start, end);
    if (isBlank(line)) return;
    const frame: Frame = { event: 'message', data: line, id: '' };
    if (positions) frame.at = { frame: frameNo, offset };
    if (replacedInvalidUtf8(line, buf, start, end)) frame.invalidUtf8At = offset;
    frameNo++;
    emit(frame);
  }, () => frameNo);
  return {
    push(chunk, out) {
      emit = out;
      lines.push(toBytes(chunk));
    },
    end(out) {
      emit = out;
      lines.end(true);
    },
  };
}

/** Whitespace-only lines carry no frame. */
export function isBlank(line: string): boolean {
  return line.trim() === '';
}
