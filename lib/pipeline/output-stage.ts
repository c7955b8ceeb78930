/**
 * The fused stage: bytes to unified events, final results or visible text,
 * every stage fused into plain function calls. No node:stream here: the Node
 * Transform (create-stream.ts), the web TransformStream (lib/web/) and the
 * async iterables (iterate.ts) are shells around it.
 */
import { makeFinalAccumulator } from '../accumulate/final.js';
import type { FinalResult } from '../accumulate/types.js';
import { AbortError, OptionError, StreamError } from '../errors.js';
import type { ErrorEvent, Frame, UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { chain, type Emit, type Stage } from '../stage.js';
import { makeEventsStage } from './events-stage.js';
import type { ResolvedStreamOptions } from './stream-options.js';
import type { RawTextSink, TextSink } from '../dialects/types.js';
import type { TargetName } from '../encode/types.js';

/**
 * The StreamError a strict pipeline is destroyed with for an `error` event:
 * `<code> at byte <offset> (frame <n>): <cause>`, each said once. A message
 * that names the event's own place (the decoder's `frame 3: …`, a framer's
 * `invalid JSON array at byte 56: …`) has it taken out of the cause.
 */
export function errorFromEvent(ev: ErrorEvent): StreamError {
  const at = ev.at;
  let where = '';
  let cause = ev.message;
  if (at !== undefined) {
    where = ` at byte ${at.offset} (frame ${at.frame})`;
    cause = cause
      .replace(new RegExp(`^frame ${at.frame}(?: at byte ${at.offset})?: `), '')
      .replace(new RegExp(`(?: starting)? at byte ${at.offset}(?!\\d)`), '');
  }
  return new StreamError(ev.code, `${ev.code}${where}: ${cause}`, {
    ...(ev.at === undefined ? {} : { offset: ev.at.offset, frame: ev.at.frame }),
  });
}

/**
 * bytes → unified events with the lenient/strict policy applied: a fatal
 * framing error becomes a terminal `error` event (lenient) after which input
 * is ignored and open responses are closed; in strict mode any error event
 * throws.
 */
export interface GuardedStage<O> extends Stage<Chunk, O> {
  /**
   * The source failed: report `err` as a terminal error event, close open
   * responses, ignore further input. Also after `end`: the error then comes
   * out on its own (in final mode, as a final of its own).
   */
  abort(err: StreamError, emit: Emit<O>): void;
}

export interface GuardedEventsStage extends GuardedStage<UnifiedEvent> {
  /** Fused final mode: template-recognised text deltas go to `sink` or `raw` (see TextSink); their errors pass on untouched. */
  setTextSink(sink: TextSink | null, raw?: RawTextSink | null): void;
}

export function makeGuardedEventsStage(options: ResolvedStreamOptions, tap?: (frame: Frame) => void): GuardedEventsStage {
  const inner = makeEventsStage(options, tap);
  const strict = options.strict;
  const audioFormat = options.audioFormat;
  let failed = false;
  let out: Emit<UnifiedEvent> = () => {};
  const check: Emit<UnifiedEvent> = (ev) => {
    if (strict && ev.type === 'error') throw errorFromEvent(ev);
    // option audioFormat: the type of audio whose wire names none (the codec was in the request)
    if (audioFormat !== undefined && ev.type === 'audio_delta' && ev.mimeType === null) ev.mimeType = audioFormat;
    try {
      out(ev);
    } catch (err) {
      throw new Downstream(err); // not ours to soften: a later stage (e.g. an accumulator limit) failed
    }
  };
  function fatal(err: unknown): void {
    if (err instanceof Downstream) throw err.error;
    if (strict || !(err instanceof StreamError)) throw err;
    failed = true;
    const ev: ErrorEvent = { type: 'error', code: err.code, message: err.message, terminal: true };
    if (err.offset !== undefined && err.frame !== undefined) ev.at = { frame: err.frame, offset: err.offset };
    out(ev);
    try {
      inner.abandon(check); // closes an open response with done(error)
    } catch (e) {
      // a later stage failing on what the close flushed (an accumulator limit) fails the stream, as it would anywhere else
      if (e instanceof Downstream) throw e.error;
      // else the handler broke down mid-event (e.g. a limit tripped inside it): the error above is the answer
    }
  }
  return {
    push(chunk, emit) {
      out = emit;
      if (failed) return;
      try {
        inner.push(chunk, check);
      } catch (err) {
        fatal(err);
      }
    },
    end(emit) {
      out = emit;
      if (failed) return;
      try {
        inner.end(check);
      } catch (err) {
        fatal(err);
      }
    },
    abort(err, emit) {
      out = emit;
      if (!failed) fatal(err);
    },
    setTextSink(sink, raw = null) {
      inner.setTextSink(sink === null ? null : downstream(sink), raw === null ? null : downstream(raw));
    },
  };
}

/** Carries an exception thrown by a stage after the guarded one, so the guard passes it on untouched. */
class Downstream {
  constructor(readonly error: unknown) {}
}

/** A sink whose exceptions come out as a later stage's failure (as from `check`). */
function downstream<T extends TextSink | RawTextSink>(sink: T): T {
  return ((reasoning: boolean, index: number, contentIndex: number, text: string, body?: string) => {
    try {
      return sink(reasoning, index, contentIndex, text, body);
    } catch (err) {
      throw new Downstream(err);
    }
  }) as T;
}

/** A stage after the events stage that can also take text deltas without their event (see TextSink). */
export interface TextTakingStage<O> extends Stage<UnifiedEvent, O> {
  /** Takes a text or reasoning delta of choice 0 (not a refusal) as `push` would take its event; false: push the event. */
  takeText(reasoning: boolean, index: number, contentIndex: number, text: string, emit: Emit<O>): boolean;
  /** The same with the delta as its wire bytes (see RawTextSink), if the stage can take those. */
  takeRaw?(reasoning: boolean, index: number, contentIndex: number, raw: string, emit: Emit<O>): boolean;
}

/**
 * `chain(events, next)`, plus the direct route: text deltas the templates
 * recognised go to `next.takeText` with the emit the events get (see TextSink).
 */
export function fuseText<O>(events: GuardedEventsStage, next: TextTakingStage<O>): Stage<Chunk, O> {
  let out: Emit<O> = () => {};
  const toNext: Emit<UnifiedEvent> = (ev) => next.push(ev, out);
  events.setTextSink(
    (reasoning, index, contentIndex, text) => next.takeText(reasoning, index, contentIndex, text, out),
    next.takeRaw === undefined ? null : (reasoning, index, contentIndex, raw) => next.takeRaw!(reasoning, index, contentIndex, raw, out),
  );
  return {
    push(chunk, emit) {
      out = emit;
      events.push(chunk, toNext);
    },
    end(emit) {
      out = emit;
      events.end(toNext);
      next.end(emit);
    },
  };
}

/** Visible text of choice 0 as it arrives, a newline after each response. */
export function createTextStage(): TextTakingStage<string> {
  // Laned responses (several open at once, docs/lanes.md): each one's text is written whole at its done.
  const lanes = new Map<string, string[]>();
  return {
    push(ev, emit) {
      const lane = ev.streamId;
      if (lane !== undefined) {
        if (ev.type === 'text_delta' && ev.refusal !== true && ev.choice === undefined) {
          const held = lanes.get(lane);
          if (held === undefined) lanes.set(lane, [ev.text]);
          else held.push(ev.text);
        } else if (ev.type === 'done' && ev.choice === undefined) {
          emit(`${(lanes.get(lane) ?? []).join('')}\n`);
          lanes.delete(lane);
        }
        return;
      }
      if (ev.type === 'text_delta') {
        if (ev.refusal !== true && ev.choice === undefined) emit(ev.text);
      } else if (ev.type === 'done' && ev.choice === undefined) emit('\n');
    },
    takeText(reasoning, _index, _contentIndex, text, emit) {
      if (!reasoning) emit(text);
      return true;
    },
    end() {},
  };
}

/** The transcoding stage for option `to` (pipeline/transcode.ts's makeTranscoder). */
export type TranscoderFactory = (
  options: ResolvedStreamOptions,
  to: TargetName,
  events: (options: ResolvedStreamOptions, tap?: (frame: Frame) => void) => GuardedEventsStage,
) => GuardedStage<string>;

/**
 * The fused stage from options already resolved. `transcoder` serves option
 * `to`; it is passed in rather than imported, so that a bundle of the stage
 * without `to` (the web WirefoldStream) leaves every encoder out.
 */
export function makeFusedStage(options: ResolvedStreamOptions, transcoder?: TranscoderFactory): GuardedStage<UnifiedEvent | FinalResult | string> {
  if (options.to !== undefined) {
    if (transcoder === undefined) throw new OptionError('to', options.to, 'no target here (the web entry writes other wires with TranscodeStream)');
    return transcoder(options, options.to, makeGuardedEventsStage);
  }
  const events = makeGuardedEventsStage(options);
  const mode = options.output;
  if (mode === 'events') return events;
  const next: TextTakingStage<FinalResult | string> = mode === 'final' ? makeFinalAccumulator(options.limits) : createTextStage();
  const fused = fuseText(events, next);
  return {
    push: fused.push,
    end: fused.end,
    abort(err, emit) {
      events.abort(err, (ev) => next.push(ev, emit));
      next.end(emit);
    },
  };
}

/** The AbortError for an aborted signal, its reason as the cause. */
export function abortError(signal: AbortSignal): AbortError {
  return new AbortError('reading was aborted', signal.reason);
}
