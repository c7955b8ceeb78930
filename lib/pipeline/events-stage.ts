/**
 * bytes → unified events as one fused stage: framer, decoder and normalizer
 * composed as plain function calls (no stream hop between them). Each frame's
 * text is first offered to the open response's templates (the raw-text fast
 * path, see fast/text-normalizer.ts): a recognised text delta never goes
 * through JSON.parse.
 */
import type { DialectName, DialectOption, Frame, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { createFrameDecoder } from '../dialects/decoder.js';
import { resolveCaptureMode, type CaptureMode } from '../dialects/capture.js';
import type { DialectLimitOptions } from '../dialects/limits.js';
import type { RawTextSink, TextSink } from '../dialects/types.js';
import { dialectOption, type NormalizerStart, type NormalizerTrail } from '../dialects/normalizer.js';
import { makeTextNormalizer } from '../fast/text-normalizer.js';
import { CutEvents } from '../fast/cut-events.js';
import { makeAutoFramer, makeFramer, FRAMING_OPTIONS, type FramingName, type FramingOption } from '../framing/detect.js';
import { resolveFramerOptions, type ResolvedFramerOptions } from '../framing/options.js';
import { resolveLimits, type LimitOptions, type Limits } from '../limits.js';
import { booleanOption, choiceOption, functionOption, optionsObject } from '../options.js';
import type { Chunk } from '../framing/bytes.js';
import type { SseEventHook, SseHooks, Unframed } from '../framing/sse.js';
import { chain } from '../stage.js';

export interface EventsStageOptions extends DialectLimitOptions {
  /** @defaultValue 'auto' */
  dialect?: DialectOption;
  /** @defaultValue 'auto' */
  framing?: FramingOption;
  /** Stamp `at: { frame, offset }` on every event. @defaultValue false */
  positions?: boolean;
  /** @defaultValue 8 MiB */
  maxFrameBytes?: number;
  /** SSE only: dispatch an unterminated last event at end of input. @defaultValue true */
  flushIncomplete?: boolean;
  /** WebSocket capture logs: decode only server messages (`recv`) or client ones too (`all`). @defaultValue 'recv' */
  captures?: CaptureMode;
  onFraming?: (framing: FramingName) => void;
  onDialect?: (dialect: DialectName) => void;
  /**
   * The raw-text fast path: text deltas recognised by their shape skip
   * JSON.parse. `false` parses every payload (the reference path; same output).
   * @defaultValue true
   */
  fastPath?: boolean;
}

export interface EventsStage extends Stage<Chunk, UnifiedEvent> {
  /**
   * The input broke off (source failure, fatal framing error, a limit): close an
   * open response with done(error), without flushing a partly received frame.
   */
  abandon(emit: Emit<UnifiedEvent>): void;
  /** Fused final mode: template-recognised text deltas go to `sink` (or `raw`) instead of out as events (see TextSink). */
  setTextSink(sink: TextSink | null, raw?: RawTextSink | null): void;
}

/**
 * Internal, never an option (lib/cli/sse-cut.ts: a --jobs range of an SSE
 * log): the input is an SSE log read from the middle, at the start of an
 * event between two responses, in the state given.
 */
export interface StreamResume extends NormalizerStart {
  /** The byte offset of its first byte in the whole log, and the number of its first frame. */
  readonly offset: number;
  readonly frame: number;
  /** Called once, at the end of the input or when it is abandoned: how the reading ended. */
  readonly onTrail: (trail: StreamTrail) => void;
}

/** How a resumed input ended: the normalizer's state, and the number of the frame that would come next. */
export interface StreamTrail extends NormalizerTrail {
  readonly frames: number;
}

/** The events stage's options, checked once, defaults filled in. */
export interface ResolvedEventsOptions {
  readonly framing: FramingOption;
  readonly framer: ResolvedFramerOptions;
  readonly dialect: DialectOption;
  readonly captures: CaptureMode;
  readonly limits: Limits;
  readonly fastPath: boolean;
  readonly onFraming: ((framing: FramingName) => void) | undefined;
  readonly onDialect: ((dialect: DialectName) => void) | undefined;
  /** Internal: see StreamResume (set by the CLI on options already resolved). */
  readonly resume?: StreamResume;
}

export function resolveEventsOptions(options: EventsStageOptions & LimitOptions = {}): ResolvedEventsOptions {
  options = optionsObject(options);
  return Object.freeze({
    framing: choiceOption('framing', options.framing, FRAMING_OPTIONS, 'auto'),
    framer: resolveFramerOptions(options),
    dialect: dialectOption(options.dialect),
    captures: resolveCaptureMode(options),
    limits: resolveLimits(options),
    fastPath: booleanOption('fastPath', options.fastPath, true),
    onFraming: functionOption('onFraming', options.onFraming),
    onDialect: functionOption('onDialect', options.onDialect),
  });
}

export function createEventsStage(options: EventsStageOptions = {}): EventsStage {
  return makeEventsStage(resolveEventsOptions(options));
}

/**
 * The events stage from options already resolved. `tap` sees every frame before it is decoded
 * (a same-wire transcode writes them out as they came); it needs `fastPath` off, whose templates
 * take whole SSE events from the bytes without making a frame.
 */
export function makeEventsStage(options: ResolvedEventsOptions, tap?: (frame: Frame) => void): EventsStage {
  const { onFraming, resume } = options;
  // a resumed input is the middle of an SSE log
  const framing = resume === undefined ? options.framing : 'sse';
  const fast = options.fastPath;
  const hooks: SseHooks = {
    ...(fast ? { eventHook: createEventHook() } : {}),
    onUnframed: (report) => {
      unframed = report;
    },
    ...(resume === undefined ? {} : { start: { offset: resume.offset, frame: resume.frame } }),
  };
  const hook = hooks.eventHook;
  /** SSE events cut by a chunk's end, held back for the event templates. */
  const cut = fast ? new CutEvents(options.framer.maxFrameBytes) : null;
  /** Set by the SSE framer's end when the input held no event but lines that are not SSE fields. */
  let unframed: Unframed | null = null;
  let framer: Stage<Chunk, Frame>;
  if (framing === 'auto') framer = makeAutoFramer(options.framer, onFraming, hooks);
  else {
    framer = makeFramer(framing, options.framer, hooks);
    onFraming?.(framing);
  }
  const normalizer = makeTextNormalizer({ dialect: options.dialect, onDialect: options.onDialect, limits: options.limits }, resume ?? null);
  const decoder = createFrameDecoder({ captures: options.captures }, resume?.frame ?? 0);
  /** A resumed input's trail, told once. */
  let trailed = false;
  const trail = (): void => {
    if (resume === undefined || trailed) return;
    trailed = true;
    resume.onTrail({ ...normalizer.trail(), frames: decoder.peek(undefined) });
  };
  let out: Emit<UnifiedEvent> = () => {};
  const toNormalizer: Emit<ProviderEvent> = (pe) => normalizer.push(pe, out);
  const frames: Stage<Frame, UnifiedEvent> = {
    push(frame, emit) {
      tap?.(frame);
      const n = decoder.number(frame);
      if (fast && frame.invalidUtf8At === undefined && normalizer.pushText(frame.data, n, frame.at, emit)) {
        const b = hook?.block;
        if (b !== undefined && b.buf !== null) normalizer.learnEvent(frame.event, b.buf, b.start, b.dataStart, b.dataEnd, b.end);
        return;
      }
      out = emit;
      decoder.decode(frame, n, toNormalizer);
    },
    end(emit) {
      // (the framer has ended: chain ends it first)
      if (unframed !== null) normalizer.unframed(unframed, emit);
      normalizer.end(emit);
    },
  };
  const fused = chain(cut === null ? framer : cut.wrap(framer), frames);

  /** SSE events taken whole from the bytes (fast/event-template.ts). */
  function createEventHook(): SseEventHook {
    return {
      tryEvent(buf, pos, limit, _id, frame, offset) {
        if (!normalizer.takesEvents()) return -1;
        const at = offset < 0 ? undefined : { frame, offset };
        const n = decoder.peek(at);
        const end = normalizer.pushEvent(buf, pos, limit, n, at, out);
        if (end >= 0) decoder.skip(n);
        return end >= -1 ? end : cut!.cut(buf, pos, end);
      },
      block: { buf: null, start: 0, dataStart: 0, dataEnd: 0, end: 0 },
    };
  }

  return {
    push(c, emit) {
      out = emit;
      normalizer.newChunk(); // a caller may refill the same Buffer
      fused.push(c, emit);
    },
    end(emit) {
      fused.end(emit);
      trail();
    },
    abandon(emit) {
      normalizer.abandon(emit);
      trail();
    },
    setTextSink(sink, raw) {
      normalizer.setTextSink(fast ? sink : null, raw);
    },
  };
}

/** Decodes a whole input synchronously (tests, small inputs). Throws on fatal framing errors. */
export function decodeAll(chunks: Iterable<Chunk>, options: EventsStageOptions = {}): UnifiedEvent[] {
  const stage = createEventsStage(options);
  const out: UnifiedEvent[] = [];
  const emit: Emit<UnifiedEvent> = (ev) => {
    out.push(ev);
  };
  for (const c of chunks) stage.push(c, emit);
  stage.end(emit);
  return out;
}
