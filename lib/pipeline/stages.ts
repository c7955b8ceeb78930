/**
 * The decoder and normalizer stages as object-mode Transforms. Unless
 * `fastPath: false`, they run the fast path's lazy payloads and templates
 * (lib/fast/lazy-stages.ts): the same items, most payloads never parsed.
 */
import type { DecoderOptions } from '../dialects/decoder.js';
import { createMessageDecoder, type CaptureOptions, type MessageInput } from '../dialects/capture.js';
import { createNormalizer, type NormalizerOptions } from '../dialects/normalizer.js';
import { createTemplateNormalizer, createTextDecoder } from '../fast/lazy-stages.js';
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import { booleanOption, checkOptions } from '../options.js';
import { DECODER_OPTIONS, DECODER_STAGE_OPTIONS, NORMALIZER_STAGE_OPTIONS } from './option-keys.js';
import { recordStage } from './stage-descriptor.js';
import { objectStageTransform, type StageTransform, type TransformOptions } from './transform.js';

export interface FastPathOption {
  /**
   * The raw-text fast path: `decoder()` hands on a payload of a shape it
   * already parsed once unparsed (parsed on first read) and `normalizer()`
   * reads text deltas from its text. `false` parses every payload in the
   * decoder (the reference path; same items). @defaultValue true
   */
  fastPath?: boolean;
}

/** frames → provider events (each payload JSON-parsed at most once, each `json` event with its `text`; `[DONE]` recognised). */
export function decoder(options: DecoderOptions & FastPathOption & TransformOptions = {}): StageTransform<Frame, ProviderEvent> {
  checkOptions(options, DECODER_STAGE_OPTIONS, 'decoder()');
  const fast = booleanOption('fastPath', options.fastPath, true);
  return recordStage(objectStageTransform(createTextDecoder(options, fast), options), { kind: 'decoder', options });
}

/** provider events → unified events. */
export function normalizer(options: NormalizerOptions & FastPathOption & TransformOptions = {}): StageTransform<ProviderEvent, UnifiedEvent> {
  checkOptions(options, NORMALIZER_STAGE_OPTIONS, 'normalizer()');
  const fast = booleanOption('fastPath', options.fastPath, true);
  return recordStage(objectStageTransform(fast ? createTemplateNormalizer(options) : createNormalizer(options), options), { kind: 'normalizer', options });
}

/** Already-received WebSocket messages (strings, Buffers or parsed objects) → provider events, each decoded whole. */
export function messageDecoder(options: CaptureOptions & TransformOptions = {}): StageTransform<MessageInput, ProviderEvent> {
  checkOptions(options, DECODER_OPTIONS, 'messageDecoder()');
  return objectStageTransform(createMessageDecoder(options), options);
}
