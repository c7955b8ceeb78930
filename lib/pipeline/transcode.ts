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
import type { Emit, Stage } from '../stage.js';
import { detectFraming, makeFramer } from '../framing/detect.js';
import { toBytes, type Chunk } from '../framing/bytes.js';
import { ByteOut } from '../encode/byte-out.js';
import { makeEncoder, targetOf } from '../encode/encoder.js';
import type { TargetDefinitionOf } from '../encode/target.js';
import type { TargetName } from '../encode/types.js';
import type { GuardedEventsStage, GuardedStage } from './create-stream.js';
import type { ResolvedStreamOptions } from './stream-options.js';

type Mode = 'unknown' | 'pass' | 'encode';

/** The guarded events stage's factory (create-stream.ts passes its own: no import cycle). */
export type EventsFactory = (options: ResolvedStreamOptions, tap?: (frame: Frame) => void) => GuardedEventsStage;

/**
 * makeTranscoder for a consumer of bytes (createStream's Transform): the output of each input chunk
 * comes as bytes, a Uint8Array per 64 KiB block (see encode/byte-out.ts).
 */
export function makeByteTranscoder(options: ResolvedStreamOptions, to: TargetName, makeGuardedEventsStage: EventsFactory): GuardedStage<Uint8Array> {
  const rule = targetOf(to).passThrough;
  if (passesNone(options, rule)) return encodeBytes(options, to, makeGuardedEventsStage);
  if (options.framing === 'auto' && rule !== undefined) return byFraming(options, to, makeGuardedEventsStage, rule.framing);
  return inBlocks(makeTranscoder(options, to, makeGuardedEventsStage));
}

/**
 * A source whose framing is to be detected, into a target that passes one framing as it came: the
 * first non-blank byte tells the framing (as the auto framer decides it), and when it is not the one
 * that passes, no frame can pass and every response is encoded as encodeBytes does, with the
 * templates (the stage that may pass frames reads every frame whole, for its tap).
 */
function byFraming(options: ResolvedStreamOptions, to: TargetName, makeGuardedEventsStage: EventsFactory, passing: 'sse' | 'json-array'): GuardedStage<Uint8Array> {
  let inner: GuardedStage<Uint8Array> | null = null;
  /** Chunks before the first non-blank byte, and their length. */
  const held: Chunk[] = [];
  let offset = 0;
  function choose(framing: FramingName | null, emit: Emit<Uint8Array>): GuardedStage<Uint8Array> {
    let stage: GuardedStage<Uint8Array>;
    if (framing === null || framing === passing) stage = inBlocks(makeTranscoder(options, to, makeGuardedEventsStage));
    else {
      options.onFraming?.(framing);
      stage = encodeBytes({ ...options, framing }, to, makeGuardedEventsStage);
    }
    inner = stage;
    for (const c of held) stage.push(c, emit);
    held.length = 0;
    return stage;
  }
  return {
    push(chunk, emit) {
      if (inner !== null) {
        inner.push(chunk, emit);
        return;
      }
      const bytes = toBytes(chunk);
      const framing = detectFraming(bytes, offset);
      offset += bytes.length;
      held.push(chunk);
      if (framing !== null) choose(framing, emit);
    },
    end(emit) {
      (inner ?? choose(null, emit)).end(emit);
    },
    abort(err, emit) {
      (inner ?? choose(null, emit)).abort(err, emit);
    },
  };
}

/**
 * The strings a stage writes for one input chunk handed on as bytes, a view per 64 KiB block (as
 * encodeBytes does): a frame that passes as it came is a string of its own, which the Transform would
 * encode and queue on its own (thousands a chunk for a log of small events). What was written before
 * a failure still goes out first.
 */
function inBlocks(stage: GuardedStage<string>): GuardedStage<Uint8Array> {
  const out = new ByteOut();
  const write: Emit<string> = (s) => out.plain(s);
  return {
    push(chunk, emit) {
      try {
        stage.push(chunk, write);
      } finally {
        out.flush(emit);
      }
    },
    end(emit) {
      try {
        stage.end(write);
      } finally {
        out.flush(emit);
      }
    },
    abort(err, emit) {
      try {
        stage.abort(err, write);
      } finally {
        out.flush(emit);
      }
    },
  };
}

/** No frame can pass as it came (the target has no pass-through for this source, or passThrough: false). */
function passesNone(options: ResolvedStreamOptions, rule: TargetDefinitionOf<TargetName>['passThrough']): boolean {
  const given = options.dialect;
  return !options.passThrough || rule === undefined || (given !== 'auto' && !rule.dialects.includes(given)) || (options.framing !== 'auto' && options.framing !== rule.framing);
}

export function makeTranscoder(options: ResolvedStreamOptions, to: TargetName, makeGuardedEventsStage: EventsFactory): GuardedStage<string> {
  const rule = targetOf(to).passThrough;
  const given = options.dialect;
  if (passesNone(options, rule) || rule === undefined) {
    // nothing passes as it came: the events go straight into the encoder
    const encoder = makeEncoder({ to, strict: options.strict, onLoss: options.onLoss });
    const events = makeGuardedEventsStage(options);
    let out: Emit<string> = () => {};
    // Text deltas the templates recognise go to the encoder without their event, and with the
    // source's escaped text, written as it came when JSON.stringify would write the same (the bulk
    // of the work otherwise: decoding, unescaping and escaping each delta again). Not in strict mode,
    // where the encoder throws at a loss, which must not come from inside the reading side.
    if (!options.strict) {
      events.setTextSink(
        (reasoning, index, contentIndex, text, body) => encoder.takeText(reasoning, index, contentIndex, text, out, body),
        (reasoning, index, contentIndex, raw) => encoder.takeRaw(reasoning, index, contentIndex, raw, out),
      );
    }
    return {
      push(chunk, emit) {
        out = emit;
        events.push(chunk, (ev) => encoder.push(ev, emit));
      },
      end(emit) {
        out = emit;
        events.end((ev) => encoder.push(ev, emit));
        encoder.end(emit);
      },
      abort(err, emit) {
        out = emit;
        events.abort(err, (ev) => encoder.push(ev, emit));
        encoder.end(emit);
      },
    };
  }
  const encoder = makeEncoder({ to, strict: options.strict, onLoss: options.onLoss });
  const passing = rule;
  if (given !== 'auto' && options.framing === passing.framing) return makeFramePass(options, passing.framing, encoder, makeGuardedEventsStage);

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
  const writer = frameWriter(passing.framing);
  const write = (frame: Frame): void => writer.write(frame, out);

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
    writer.close(emit);
    if (encoded || !writer.wrote()) encoder.end(emit);
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

/** Every source encoded, its output as bytes, handed on per input chunk (a Uint8Array per 64 KiB block: byte mode of the encoder). */
function encodeBytes(options: ResolvedStreamOptions, to: TargetName, makeGuardedEventsStage: EventsFactory): GuardedStage<Uint8Array> {
  const encoder = makeEncoder({ to, strict: options.strict, onLoss: options.onLoss }, true);
  const events = makeGuardedEventsStage(options);
  // (the encoder writes nothing through these: its bytes come by flush)
  const none: Emit<string> = () => {};
  const toEncoder: Emit<UnifiedEvent> = (ev) => encoder.push(ev, none);
  if (!options.strict) {
    // as in transcoder() above: text deltas without their event, with the source's escaped text
    events.setTextSink(
      (reasoning, index, contentIndex, text, body) => encoder.takeText(reasoning, index, contentIndex, text, none, body),
      (reasoning, index, contentIndex, raw) => encoder.takeRaw(reasoning, index, contentIndex, raw, none),
    );
  }
  return {
    push(chunk, emit) {
      try {
        events.push(chunk, toEncoder);
      } finally {
        // what was written before a failure still goes out first
        encoder.flush(emit);
      }
    },
    end(emit) {
      try {
        events.end(toEncoder);
        encoder.end(none);
      } finally {
        encoder.flush(emit);
      }
    },
    abort(err, emit) {
      try {
        events.abort(err, toEncoder);
        encoder.end(none);
      } finally {
        encoder.flush(emit);
      }
    },
  };
}

/** Frames written as they came: SSE field lines rebuilt, JSON array elements joined as Google does. */
function frameWriter(framing: 'sse' | 'json-array'): { write(frame: Frame, out: Emit<string>): void; close(out: Emit<string>): void; wrote(): boolean } {
  let lastId = '';
  let elements = 0;
  return {
    write(frame, out) {
      if (framing === 'json-array') {
        out(`${elements++ === 0 ? '[' : '\n,\r\n'}${frame.data}`);
        return;
      }
      let s = frame.event === 'message' ? '' : `event: ${frame.event}\n`;
      if (frame.id !== lastId) {
        s += `id: ${frame.id}\n`;
        lastId = frame.id;
      }
      if (frame.retry !== undefined) s += `retry: ${frame.retry}\n`;
      const data = frame.data;
      if (data.indexOf('\n') === -1) s += `data: ${data}\n\n`;
      else {
        for (const line of data.split('\n')) s += `data: ${line}\n`;
        s += '\n';
      }
      out(s);
    },
    close(out) {
      if (framing === 'json-array' && elements > 0) out('\n]');
    },
    /** JSON array elements were written (the array is then closed here, not by the target). */
    wrote: () => elements > 0,
  };
}

/**
 * A source the caller names as the target's own wire, in its framing: every response passes, so once
 * the first has begun its frames are written as the framer cuts them, with nothing decoded (no
 * JSON.parse, no events). Until then the input is also decoded, so that one with no response at all
 * (an error page, an error payload) is still answered in the target's own error form.
 */
function makeFramePass(options: ResolvedStreamOptions, framing: 'sse' | 'json-array', encoder: Stage<UnifiedEvent, string>, makeGuardedEventsStage: EventsFactory): GuardedStage<string> {
  const framer = makeFramer(framing, options.framer);
  let events: GuardedEventsStage | null = makeGuardedEventsStage(options);
  const writer = frameWriter(framing);
  /** Before the first start: the frames (written if it comes) and the events (encoded if it never does). */
  let heldFrames: Frame[] = [];
  let heldEvents: UnifiedEvent[] = [];
  let out: Emit<string> = () => {};
  const onFrame: Emit<Frame> = (frame) => {
    if (events === null) writer.write(frame, out);
    else heldFrames.push(frame);
  };
  const onEvent: Emit<UnifiedEvent> = (ev) => {
    if (events === null) return;
    if (ev.type !== 'start') {
      heldEvents.push(ev);
      return;
    }
    events = null;
    heldEvents = [];
    for (const f of heldFrames) writer.write(f, out);
    heldFrames = [];
  };
  function finish(emit: Emit<string>): void {
    if (events === null) {
      writer.close(emit);
      return;
    }
    // no response began: the input is encoded (its errors in the target's form)
    for (const ev of heldEvents) encoder.push(ev, emit);
    encoder.end(emit);
  }
  return {
    push(chunk, emit) {
      out = emit;
      events?.push(chunk, onEvent);
      framer.push(chunk, onFrame);
    },
    end(emit) {
      out = emit;
      events?.end(onEvent);
      framer.end(onFrame);
      finish(emit);
    },
    abort(err, emit) {
      out = emit;
      events?.abort(err, onEvent);
      finish(emit);
    },
  };
}
