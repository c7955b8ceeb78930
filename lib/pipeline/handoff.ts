/**
 * decoder() piped straight into normalizer(): the decoder hands its frames on
 * undecoded and the normalizer decodes them itself, after first offering each
 * frame's text to the raw-text fast path (dialects/fast/template.ts), exactly
 * as the fused pipeline does. Without this the decoder would JSON.parse every
 * payload before the normalizer could recognise a text delta from its text.
 * The pair stays two Transforms with the same output; each payload is still
 * parsed at most once.
 *
 * Only while the normalizer is the decoder's sole consumer, as StageTransform
 * reports it (ConsumerAwareStage; the same condition as its running the
 * normalizer stage itself): a later 'data' or 'readable' listener on the
 * decoder ends the handoff for frames not yet handed on, and anything else
 * reading the decoder gets provider events.
 *
 * Two more hand-offs of the same kind: an SSE framer before the decoder hands
 * whole matched events on as MatchedRuns (framer-handoff.ts), which the decoder
 * numbers and passes on; and a final accumulator after the normalizer gets
 * template text deltas in TextRuns instead of event objects.
 */
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { createFrameDecoder, type DecoderOptions, type FrameDecoder } from '../dialects/decoder.js';
import { createTextNormalizer, type NormalizerOptions, type TextNormalizer } from '../dialects/normalizer.js';
import { MatchedRun } from '../dialects/fast/event-template.js';
import { Unframed } from '../framing/sse.js';
import type { RawTextSink, TextSink } from '../dialects/types.js';
import { TextRun } from '../accumulate/final.js';
import type { ConsumerAwareStage } from './transform.js';

/** A frame the decoder handed on undecoded, with the decoder that numbered it (it also unwraps captures). */
class HandedFrame {
  constructor(
    readonly frame: Frame,
    readonly n: number,
    readonly decoder: FrameDecoder,
  ) {}
}

export interface DecoderStage extends Stage<Frame, ProviderEvent>, ConsumerAwareStage {
  /** Hand frames on undecoded (while a normalizer stage alone consumes this decoder). */
  handOff: boolean;
  /** The normalizer stage frames are handed to, while `handOff`. */
  next: NormalizerStage | null;
}

export interface NormalizerStage extends Stage<ProviderEvent, UnifiedEvent>, ConsumerAwareStage {
  readonly normalizer: TextNormalizer;
  /** Piped into a final accumulator, which takes template text as its wire bytes (see RawTextSink). */
  takesRaw: boolean;
}

/** The stages createNormalizerStage made: the only ones a decoder hands frames to. */
const normalizerStages = new WeakSet<object>();
/** Final accumulator stages (finalAccumulator()): the only ones a normalizer stage hands TextRuns to. */
const textTakers = new WeakSet<object>();

export function takesTextRuns(stage: object): void {
  textTakers.add(stage);
}

/** The stages createDecoderStage made: the only ones an SSE framer hands matched events to (framer-handoff.ts). */
const decoderStages = new WeakSet<object>();

export function isDecoderStage(stage: object): stage is DecoderStage {
  return decoderStages.has(stage);
}

export function createDecoderStage(options: DecoderOptions = {}): DecoderStage {
  const frames = createFrameDecoder(options);
  const stage: DecoderStage = {
    handOff: false,
    next: null,
    push(frame, emit) {
      if (frame instanceof MatchedRun) {
        // events the framer matched whole: numbered here, taken by the normalizer (or decoded as usual)
        if (stage.handOff) {
          frame.number(frames);
          emit(frame as unknown as ProviderEvent);
        } else {
          for (let i = 0; i < frame.length; i++) {
            const f = frame.frame(i);
            frames.decode(f, frames.number(f), emit);
          }
        }
        return;
      }
      if (frame instanceof Unframed) {
        // an input of no event, only lines that are not SSE fields: the normalizer stage reports it
        // (a decoder read by anything else passes on provider events only, and there are none)
        if (stage.handOff) emit(frame as unknown as ProviderEvent);
        return;
      }
      const n = frames.number(frame);
      // Only a normalizer stage ever receives a HandedFrame, a MatchedRun or an Unframed (see consumedBy).
      if (stage.handOff) emit(new HandedFrame(frame, n, frames) as unknown as ProviderEvent);
      else frames.decode(frame, n, emit);
    },
    end() {},
    consumedBy(consumer) {
      stage.handOff = consumer !== null && normalizerStages.has(consumer);
      stage.next = stage.handOff ? (consumer as NormalizerStage) : null;
    },
  };
  decoderStages.add(stage);
  return stage;
}

/** provider events → unified events; also takes frames a decoder handed on. */
export function createNormalizerStage(options: NormalizerOptions = {}): NormalizerStage {
  const normalizer = createTextNormalizer(options);
  let out: Emit<UnifiedEvent> = () => {};
  const toNormalizer: Emit<ProviderEvent> = (pe) => normalizer.push(pe, out);
  let current: Emit<UnifiedEvent> = () => {};
  /**
   * Piped straight into a final accumulator: template text deltas go on in a
   * TextRun, in order (no event object). The run takes the deltas that
   * follow one another within one input item and is emitted when complete:
   * before any other event (`other`) and at the end of the item. (The
   * StageTransform before the accumulator runs its stage on each item as it
   * is emitted.)
   */
  let run: TextRun | null = null;
  function openRun(): TextRun {
    return (run ??= new TextRun());
  }
  function closeRun(): void {
    const r = run;
    if (r === null) return;
    run = null;
    current(r as unknown as UnifiedEvent);
  }
  const toRuns: TextSink = (reasoning, index, contentIndex, text) => {
    openRun().add(reasoning, index, contentIndex, text);
    return true;
  };
  const toRawRuns: RawTextSink = (reasoning, index, contentIndex, raw) => {
    openRun().add(reasoning, index, contentIndex, raw, true);
    return true;
  };
  const other: Emit<UnifiedEvent> = (ev) => {
    closeRun();
    current(ev);
  };
  /** A frame handed on undecoded: the payload templates first, else decoded. */
  function ordinary(frame: Frame, n: number, decoder: FrameDecoder, emit: Emit<UnifiedEvent>): void {
    if (frame.invalidUtf8At === undefined && normalizer.pushText(frame.data, n, frame.at, emit)) return;
    out = emit;
    decoder.decode(frame, n, toNormalizer);
  }

  const stage: NormalizerStage = {
    normalizer,
    takesRaw: false,
    consumedBy(consumer) {
      stage.takesRaw = consumer !== null && textTakers.has(consumer);
      normalizer.setTextSink(stage.takesRaw ? toRuns : null, toRawRuns);
    },
    push(item: ProviderEvent | HandedFrame | MatchedRun | Unframed, emit) {
      current = emit;
      run = null;
      // (finally: the deltas before a fatal error still go out first)
      try {
        if (item instanceof Unframed) normalizer.unframed(item, other);
        else if (item instanceof MatchedRun) {
          for (let i = 0; i < item.length; i++) {
            const origin = item.select(i);
            if (!normalizer.pushMatched(item, origin, item.n(i), item.at(i), other)) ordinary(item.frame(i), item.n(i), item.decoder!, other);
          }
        } else if (item instanceof HandedFrame) ordinary(item.frame, item.n, item.decoder, other);
        else normalizer.push(item, other);
      } finally {
        closeRun();
      }
    },
    end(emit) {
      current = emit;
      run = null;
      try {
        normalizer.end(other);
      } finally {
        closeRun();
      }
    },
  };
  normalizerStages.add(stage);
  return stage;
}
