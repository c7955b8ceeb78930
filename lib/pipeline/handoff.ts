/**
 * decoder() piped straight into normalizer(): the decoder hands its frames on
 * undecoded and the normalizer decodes them itself, after first offering each
 * frame's text to the raw-text fast path (dialects/fast/template.ts), exactly
 * as the fused pipeline does. Without this the decoder would JSON.parse every
 * payload before the normalizer could recognise a text delta from its text.
 * The pair stays two Transforms with the same output; each payload is still
 * parsed at most once.
 *
 * Only while the normalizer is the decoder's sole consumer (checked when it
 * is piped; a later 'data' or 'readable' listener on the decoder ends the
 * handoff for frames not yet handed on): anything else reading the decoder
 * gets provider events.
 */
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { createFrameDecoder, type DecoderOptions, type FrameDecoder } from '../dialects/decoder.js';
import { createTextNormalizer, type NormalizerOptions } from '../dialects/normalizer.js';
import { StageTransform } from './transform.js';

/** A frame the decoder handed on undecoded, with the decoder that numbered it (it also unwraps captures). */
class HandedFrame {
  constructor(
    readonly frame: Frame,
    readonly n: number,
    readonly decoder: FrameDecoder,
  ) {}
}

export interface DecoderStage extends Stage<Frame, ProviderEvent> {
  /** Hand frames on undecoded (set by a normalizer piped after this decoder). */
  handOff: boolean;
}

export function createDecoderStage(options: DecoderOptions = {}): DecoderStage {
  const frames = createFrameDecoder(options);
  const stage: DecoderStage = {
    handOff: false,
    push(frame, emit) {
      const n = frames.number(frame);
      // Only normalizerStage ever receives a HandedFrame (see attachHandoff).
      if (stage.handOff) emit(new HandedFrame(frame, n, frames) as unknown as ProviderEvent);
      else frames.decode(frame, n, emit);
    },
    end() {},
  };
  return stage;
}

/** provider events → unified events; also takes frames a decoder handed on. */
export function createNormalizerStage(options: NormalizerOptions = {}): Stage<ProviderEvent, UnifiedEvent> {
  const normalizer = createTextNormalizer(options);
  let out: Emit<UnifiedEvent> = () => {};
  const toNormalizer: Emit<ProviderEvent> = (pe) => normalizer.push(pe, out);
  return {
    push(item, emit) {
      if (!(item instanceof HandedFrame)) {
        normalizer.push(item, emit);
        return;
      }
      const { frame, n } = item;
      if (frame.invalidUtf8At === undefined && normalizer.pushText(frame.data, n, frame.at, emit)) return;
      out = emit;
      item.decoder.decode(frame, n, toNormalizer);
    },
    end(emit) {
      normalizer.end(emit);
    },
  };
}

function isDecoderStage(stage: unknown): stage is DecoderStage {
  return typeof stage === 'object' && stage !== null && 'handOff' in stage;
}

/** Makes `normalizer` take frames undecoded from a decoder Transform piped into it as its only consumer. */
export function attachHandoff(normalizer: StageTransform<ProviderEvent, UnifiedEvent>): void {
  normalizer.on('pipe', (src: unknown) => {
    if (!(src instanceof StageTransform) || !isDecoderStage(src.stage)) return;
    const stage = src.stage;
    // pipe() has added its own 'data' listener by the time 'pipe' is emitted.
    if (src.listenerCount('data') !== 1 || src.listenerCount('readable') !== 0) return;
    stage.handOff = true;
    const stop = (event: string | symbol): void => {
      if (event === 'data' || event === 'readable') stage.handOff = false;
    };
    src.on('newListener', stop);
    normalizer.once('unpipe', () => {
      stage.handOff = false;
      src.off('newListener', stop);
    });
  });
}
