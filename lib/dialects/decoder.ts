/**
 * frames → provider events: each payload is JSON-parsed exactly once here;
 * the `[DONE]` sentinel becomes a terminal marker instead of a parse error.
 * WebSocket logs (capture records, HAR exports) are unwrapped into the
 * provider messages they hold (see capture.ts).
 */
import type { Frame, Position, ProviderEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { createCaptureUnwrapper, decodeMessage, type CaptureOptions } from './capture.js';

export type DecoderOptions = CaptureOptions;

/** The decoder in two steps, so the fused pipeline can handle a frame's text before decoding it. */
export interface FrameDecoder {
  /** The frame's number (its `at.frame` with positions on, else a running count); call once per frame, in order. */
  number(frame: Frame): number;
  /** Decodes frame number `n` into provider events. */
  decode(frame: Frame, n: number, emit: Emit<ProviderEvent>): void;
  /** The number a frame at `at` gets (an SSE event taken whole without a Frame object, see `skip`). */
  peek(at: Position | undefined): number;
  /** Counts such a frame, numbered `n` by `peek`. */
  skip(n: number): void;
}

/** `firstFrame`: the number of the input's first frame (an input read from the middle of a larger one, lib/cli/sse-cut.ts). */
export function createFrameDecoder(options: DecoderOptions = {}, firstFrame = 0): FrameDecoder {
  const unwrap = createCaptureUnwrapper(options);
  let frameNo = firstFrame;
  return {
    number(frame) {
      const n = frame.at === undefined ? frameNo : frame.at.frame;
      frameNo = n + 1;
      return n;
    },
    peek(at) {
      return at === undefined ? frameNo : at.frame;
    },
    skip(n) {
      frameNo = n + 1;
    },
    decode(frame, n, emit) {
      if (frame.invalidUtf8At !== undefined) {
        const bad: ProviderEvent = { kind: 'invalid_utf8', offset: frame.invalidUtf8At, event: frame.event, frame: n };
        if (frame.at !== undefined) bad.at = frame.at;
        emit(bad);
      }
      const ev = decodeFrame(frame, n);
      if (ev.kind === 'json') unwrap(ev, emit);
      else emit(ev);
    },
  };
}

export function createDecoder(options: DecoderOptions = {}): Stage<Frame, ProviderEvent> {
  const frames = createFrameDecoder(options);
  return {
    push(frame, emit: Emit<ProviderEvent>) {
      frames.decode(frame, frames.number(frame), emit);
    },
    end() {},
  };
}

/** Decodes one frame (exported for the fused pipeline and tests); no capture unwrapping. */
export function decodeFrame(frame: Frame, n: number): ProviderEvent {
  return decodeMessage(frame.data, frame.event, n, frame.at);
}
