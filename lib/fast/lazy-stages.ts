/**
 * The separate decoder() and normalizer() stages with the raw-text fast path
 * (lib/pipeline/stages.ts picks them unless `fastPath: false`), inside the
 * documented protocol: only `ProviderEvent`s pass between them.
 *
 * The decoder hands on a frame whose text a learned shape shows to be valid
 * JSON (json-shapes.ts) as a lazy `json` event (lazy-payload.ts): not parsed.
 * Any other frame is decoded as the reference decoder does (invalid JSON,
 * `[DONE]`, capture records: the same events, the same frame numbers), its
 * `json` events carrying their `text`, and an object payload teaches the shapes.
 *
 * The normalizer offers the text of a lazy event nobody has read to the open
 * response's templates (text-normalizer.ts, as the fused pipeline does); a
 * miss, or an event whose payload was read or written (a Transform of the
 * user's between the stages may have changed it), is normalized from its
 * payload as usual.
 */
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { createFrameDecoder, type DecoderOptions } from '../dialects/decoder.js';
import { resolveNormalizerOptions, type NormalizerOptions } from '../dialects/normalizer.js';
import { isObject } from '../dialects/helpers.js';
import { JsonShapes } from './json-shapes.js';
import { lazyJsonEvent, parsedJsonEvent, unreadText, type JsonProviderEvent } from './lazy-payload.js';
import { makeTextNormalizer } from './text-normalizer.js';

/**
 * The decoder() stage: the reference decoder's events, its `json` events with
 * their `text`; with `lazy`, those of a known shape not parsed yet.
 */
export function createTextDecoder(options: DecoderOptions = {}, lazy = true): Stage<Frame, ProviderEvent> {
  const frames = createFrameDecoder(options);
  const shapes = lazy ? new JsonShapes() : null;
  let text = '';
  let out: Emit<ProviderEvent> = () => {};
  /** The frame's own `json` event (capture unwrapping passed it on unchanged): the same with its text. */
  const own = (pe: JsonProviderEvent): void => {
    const payload = pe.payload;
    if (payload === text) return out(pe); // a blank frame, kept as its text: nothing was parsed
    // A capture record or a HAR document is unwrapped by its `dir` or `log` key: a shape without either passes in every mode.
    if (shapes !== null && isObject(payload) && !('dir' in payload) && !('log' in payload)) shapes.learn(payload, text);
    out(parsedJsonEvent(text, payload, pe.event, pe.frame, pe.at));
  };
  return {
    push(frame, emit) {
      const n = frames.number(frame);
      if (shapes !== null && frame.invalidUtf8At === undefined && shapes.valid(frame.data)) return emit(lazyJsonEvent(frame.data, frame.event, n, frame.at));
      out = emit;
      text = frame.data;
      frames.decode(frame, n, emit, own);
    },
    end() {},
  };
}

/** The normalizer() stage: templates first for the text of an unread lazy event (see above). */
export function createTemplateNormalizer(options: NormalizerOptions = {}): Stage<ProviderEvent, UnifiedEvent> {
  const tn = makeTextNormalizer(resolveNormalizerOptions(options));
  return {
    push(pe, emit) {
      if (pe.kind === 'json' && pe.direction === undefined) {
        const text = unreadText(pe);
        if (text !== undefined) {
          if (tn.pushText(text, pe.frame, pe.at, emit)) return;
        } else if (pe.text !== undefined) tn.parsedFrom(pe.text);
      }
      tn.push(pe, emit);
    },
    end(emit) {
      tn.end(emit);
    },
  };
}
