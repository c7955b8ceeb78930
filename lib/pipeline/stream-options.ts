/**
 * The options of the fused entries (createStream, events, finals, read),
 * resolved once per call into one frozen object that every layer below
 * reads instead of checking the options again.
 */
import type { FinalAccumulatorOptions, FinalResult } from '../accumulate/types.js';
import type { UnifiedEvent } from '../events.js';
import { audioFormatOption, booleanOption, choiceOption, knownOptions, optionsObject, signalOption } from '../options.js';
import { OptionError } from '../errors.js';
import type { LossReport, TargetName } from '../encode/types.js';
import { resolveEventsOptions, type EventsStageOptions, type ResolvedEventsOptions } from './events-stage.js';
import type { TransformOptions } from './transform.js';

export type OutputMode = 'events' | 'final' | 'text';

export const OUTPUT_MODES: readonly OutputMode[] = ['events', 'final', 'text'];

export interface CreateStreamOptions extends EventsStageOptions, FinalAccumulatorOptions, TransformOptions {
  /**
   * `events`: UnifiedEvent objects; `final`: one FinalResult per response;
   * `text`: visible text as strings, a newline after each response.
   * @defaultValue 'events'
   */
  output?: OutputMode;
  /**
   * Turn the first `error` event (and any fatal framing error) into a destroyed
   * stream with a typed StreamError. Lenient (false) keeps going: errors stay
   * in the output as `error` events / `errors` arrays.
   * @defaultValue false
   */
  strict?: boolean;
  /**
   * Aborting stops reading at once: input is ignored, open responses end with
   * an `aborted` error (final mode: their partial finals), and the stream is
   * destroyed with an AbortError (code `aborted`) once those have been read.
   */
  signal?: AbortSignal;
  /**
   * Write another provider's wire instead (`'openai-chat'`, `'anthropic-messages'`…): the
   * Transform's output is then that wire's bytes, transcoded from the input. What the target
   * cannot carry is reported per response (`onLoss` and a `'loss'` event); with `strict`, it
   * fails the stream (`lossy_encoding`) instead. Not with `output`.
   */
  to?: TargetName;
  /** With `to`: called with each response's loss report. */
  onLoss?: (report: LossReport) => void;
  /**
   * With `to`: a source already in the target wire passes as it came (payloads byte for byte, its
   * quirks included). `false` encodes it from its events like any other source (the target's own
   * rules: e.g. every block closed, pings dropped and reported as `raw`).
   * @defaultValue true
   */
  passThrough?: boolean;
  /**
   * The MIME type of audio whose stream names none (`audio_delta` events with
   * `mimeType: null`): raw PCM, mu-law or A-law, whose codec and rate are only
   * in the request (xAI TTS's `codec`/`sample_rate`, OpenAI speech's
   * `response_format: "pcm"`). E.g. `'audio/pcm;rate=24000'`, `'audio/PCMU;rate=8000'`.
   * Audio that names its type keeps it.
   */
  audioFormat?: string;
}

export type StreamOutput<M extends OutputMode> = M extends 'final' ? FinalResult : M extends 'text' ? string : UnifiedEvent;

/** createStream's options, checked once, defaults filled in (the Transform's buffer sizes stay as given). */
export interface ResolvedStreamOptions extends ResolvedEventsOptions {
  readonly output: OutputMode;
  readonly strict: boolean;
  readonly signal: AbortSignal | undefined;
  readonly transform: TransformOptions;
  /** Set: the output is this wire's bytes (`output` is then 'events', the encoder's input). */
  readonly to: TargetName | undefined;
  readonly onLoss: ((report: LossReport) => void) | undefined;
  /** With `to`: a source already in the target wire passes as it came. */
  readonly passThrough: boolean;
  /** Set on audio deltas that carry no MIME type. */
  readonly audioFormat: string | undefined;
}

/**
 * Checks `options` once for the entry `where` (its known names, then every
 * value) and freezes the result; `output` overrides the option (events(),
 * finals() and read() fix it). `targets`: the names option `to` takes, given
 * by the entries that write other wires (so that the others need no encoder).
 */
export function resolveStreamOptions(
  options: CreateStreamOptions | undefined,
  known: readonly string[],
  where: string,
  output?: OutputMode,
  targets: readonly TargetName[] = [],
): ResolvedStreamOptions {
  const o = optionsObject(options);
  knownOptions(o, known, where);
  const transform: TransformOptions = {};
  if (o.highWaterMark !== undefined) transform.highWaterMark = o.highWaterMark;
  if (o.writableHighWaterMark !== undefined) transform.writableHighWaterMark = o.writableHighWaterMark;
  let to: TargetName | undefined;
  if (o.to !== undefined) {
    to = choiceOption<TargetName>('to', o.to, targets, o.to);
    if (o.output !== undefined || output !== undefined) throw new OptionError('output', o.output ?? output, `no output mode with option to (the output is the ${to} wire)`);
  }
  if (o.onLoss !== undefined && typeof o.onLoss !== 'function') throw new OptionError('onLoss', o.onLoss, 'a function');
  if (o.passThrough !== undefined && to === undefined) throw new OptionError('passThrough', o.passThrough, 'only with option to');
  return Object.freeze({
    ...resolveEventsOptions(o),
    to,
    onLoss: o.onLoss,
    passThrough: booleanOption('passThrough', o.passThrough, true),
    audioFormat: audioFormatOption(o.audioFormat),
    output: output ?? choiceOption('output', o.output, OUTPUT_MODES, 'events'),
    strict: booleanOption('strict', o.strict, false),
    signal: signalOption(o.signal),
    transform: Object.freeze(transform),
  });
}
