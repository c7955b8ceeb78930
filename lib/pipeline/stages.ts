/** The decoder and normalizer stages as object-mode Transforms. */
import { createDecoder, type DecoderOptions } from '../dialects/decoder.js';
import { createMessageDecoder, type CaptureOptions, type MessageInput } from '../dialects/capture.js';
import { createNormalizer, type NormalizerOptions } from '../dialects/normalizer.js';
import type { Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import { checkOptions } from '../options.js';
import { DECODER_OPTIONS, NORMALIZER_OPTIONS } from './option-keys.js';
import { recordStage } from './stage-descriptor.js';
import { objectStageTransform, type StageTransform, type TransformOptions } from './transform.js';

/** frames → provider events (each payload JSON-parsed once; `[DONE]` recognised). */
export function decoder(options: DecoderOptions & TransformOptions = {}): StageTransform<Frame, ProviderEvent> {
  checkOptions(options, DECODER_OPTIONS, 'decoder()');
  return recordStage(objectStageTransform(createDecoder(options), options), { kind: 'decoder', options });
}

/** provider events → unified events. */
export function normalizer(options: NormalizerOptions & TransformOptions = {}): StageTransform<ProviderEvent, UnifiedEvent> {
  checkOptions(options, NORMALIZER_OPTIONS, 'normalizer()');
  return recordStage(objectStageTransform(createNormalizer(options), options), { kind: 'normalizer', options });
}

/** Already-received WebSocket messages (strings, Buffers or parsed objects) → provider events, each decoded whole. */
export function messageDecoder(options: CaptureOptions & TransformOptions = {}): StageTransform<MessageInput, ProviderEvent> {
  checkOptions(options, DECODER_OPTIONS, 'messageDecoder()');
  return objectStageTransform(createMessageDecoder(options), options);
}
