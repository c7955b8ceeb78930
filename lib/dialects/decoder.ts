/**
 * frames → provider events: each payload is JSON-parsed exactly once here;
 * the `[DONE]` sentinel becomes a terminal marker instead of a parse error.
 */
import type { Frame, ProviderEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';

export type DecoderOptions = Record<string, never>;

export function createDecoder(_options: DecoderOptions = {}): Stage<Frame, ProviderEvent> {
  let frameNo = 0;
  return {
    push(frame, emit: Emit<ProviderEvent>) {
      const n = frame.at === undefined ? frameNo : frame.at.frame;
      frameNo = n + 1;
      emit(decodeFrame(frame, n));
    },
    end() {},
  };
}

/** Decodes one frame (exported for the fused pipeline and tests). */
export function decodeFrame(frame: Frame, n: number): ProviderEvent {
  const data = frame.data;
  let ev: ProviderEvent;
  if (isDoneSentinel(data)) ev = { kind: 'done', event: frame.event, frame: n };
  else if (isBlankText(data)) ev = { kind: 'json', payload: data, event: frame.event, frame: n };
  else {
    try {
      ev = { kind: 'json', payload: JSON.parse(data), event: frame.event, frame: n };
    } catch (err) {
      ev = { kind: 'invalid', text: data, message: (err as Error).message, event: frame.event, frame: n };
    }
  }
  if (frame.at !== undefined) ev.at = frame.at;
  return ev;
}

function isDoneSentinel(data: string): boolean {
  if (data === '[DONE]') return true;
  return data.length < 16 && data.trim() === '[DONE]';
}

function isBlankText(data: string): boolean {
  return data.length === 0 || (data.length < 64 && data.trim() === '');
}
