/**
 * createStream({ to }): bytes in → the target wire's bytes out, as one stage.
 *
 * A source that already speaks the target wire in its framing (Anthropic into
 * `anthropic-messages`, Gemini SSE into `gemini`…: the target's
 * `passThrough`) has its frames written out as they came, payloads byte for
 * byte (SSE field lines rebuilt: only framing whitespace can differ), and
 * loses nothing. Which one a response is, is known at its `start`: frames
 * wait until then (a log may hold several dialects; each response goes its
 * own way). Every other source is encoded from its unified events, as is every
 * source with `passThrough: false`.
 */
import { StreamError } from '../errors.js';
import type { DialectName, Frame, UnifiedEvent } from '../events.js';
import type { FramingName } from '../framing/detect.js';
import type { Emit } from '../stage.js';
import { makeEncoder, targetOf } from '../encode/encoder.js';
import type { TargetName } from '../encode/types.js';
import type { GuardedEventsStage, GuardedStage } from './create-stream.js';
import type { ResolvedStreamOptions } from './stream-options.js';

type Mode = 'unknown' | 'pass' | 'encode';

/** The guarded events stage's factory (create-stream.ts passes its own: no import cycle). */
export type EventsFactory = (options: ResolvedStreamOptions, tap?: (frame: Frame) => void) => GuardedEventsStage;

export function makeTranscoder(options: ResolvedStreamOptions, to: TargetName, makeGuardedEventsStage: EventsFactory): GuardedStage<string> {
  const encoder = makeEncoder({ to, strict: options.strict, onLoss: options.onLoss });
  const rule = targetOf(to).passThrough;
  const given = options.dialect;
  if (!options.passThrough || rule === undefined || (given !== 'auto' && !rule.dialects.includes(given)) || (options.framing !== 'auto' && options.framing !== rule.framing)) {
    // nothing passes as it came (none can, or passThrough: false): the events go straight into the encoder
    const events = makeGuardedEventsStage(options);
    return {
      push(chunk, emit) {
        events.push(chunk, (ev) => encoder.push(ev, emit));
      },
      end(emit) {
        events.end((ev) => encoder.push(ev, emit));
        encoder.end(emit);
      },
      abort(err, emit) {
        events.abort(err, (ev) => encoder.push(ev, emit));
        encoder.end(emit);
      },
    };
  }
  const passing = rule;

  let framing: FramingName | null = options.framing === 'auto' ? null : options.framing;
  const onFraming = options.onFraming;
  let mode: Mode = 'unknown';
  /** Frames and events of a stretch whose mode is not known yet (before the first start). */
  const heldFrames: Frame[] = [];
  const heldEvents: UnifiedEvent[] = [];
  /** The frame being decoded: its events are all known once the next frame (or the end) comes. */
  let current: Frame | null = null;
  let encoded = false;
  let out: Emit<string> = () => {};
  let lastId = '';
  let elements = 0;

  function write(frame: Frame): void {
    if (passing.framing === 'json-array') {
      out(`${elements++ === 0 ? '[' : '\n,\r\n'}${frame.data}`);
      return;
    }
    let s = frame.event === 'message' ? '' : `event: ${frame.event}\n`;
    if (frame.id !== lastId) {
      s += `id: ${frame.id}\n`;
      lastId = frame.id;
    }
    if (frame.retry !== undefined) s += `retry: ${frame.retry}\n`;
    for (const line of frame.data.split('\n')) s += `data: ${line}\n`;
    out(s + '\n');
  }

  function settle(frame: Frame): void {
    if (mode === 'pass') write(frame);
    else if (mode === 'unknown') heldFrames.push(frame);
    // (encode: the frame's events went to the encoder)
  }

  function encode(ev: UnifiedEvent): void {
    encoded = true;
    encoder.push(ev, out);
  }

  function decide(next: Mode): void {
    if (mode === 'unknown') {
      if (next === 'pass') for (const f of heldFrames) write(f);
      else for (const ev of heldEvents) encode(ev);
      heldFrames.length = 0;
      heldEvents.length = 0;
    }
    mode = next;
  }

  const passes = (dialect: DialectName | undefined): boolean =>
    dialect !== undefined && passing.dialects.includes(dialect) && framing === passing.framing;

  const onEvent: Emit<UnifiedEvent> = (ev) => {
    if (ev.type === 'start') decide(passes(ev.dialect) ? 'pass' : 'encode');
    if (mode === 'encode') encode(ev);
    else if (mode === 'unknown') heldEvents.push(ev);
    // (pass: the frames carry it)
  };

  const events = makeGuardedEventsStage(
    {
      ...options,
      // the templates take whole SSE events without making frames: every frame must come to the tap
      fastPath: false,
      onFraming: (f: FramingName) => {
        framing = f;
        onFraming?.(f);
      },
    },
    (frame) => {
      if (current !== null) settle(current);
      current = frame;
    },
  );

  function finish(emit: Emit<string>): void {
    if (current !== null) settle(current);
    current = null;
    if (mode === 'unknown') decide('encode');
    if (elements > 0) emit('\n]');
    if (encoded || elements === 0) encoder.end(emit);
  }

  return {
    push(chunk, emit) {
      out = emit;
      events.push(chunk, onEvent);
    },
    end(emit) {
      out = emit;
      events.end(onEvent);
      finish(emit);
    },
    abort(err: StreamError, emit) {
      out = emit;
      events.abort(err, onEvent);
      finish(emit);
    },
  };
}
