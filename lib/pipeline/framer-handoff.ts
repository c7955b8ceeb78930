/**
 * sseFramer() (or autoFramer() on SSE) piped straight into decoder(), itself
 * handing frames to normalizer() (handoff.ts): the framer takes whole events
 * with event templates (dialects/fast/event-template.ts), as the fused stage
 * does, and hands consecutive ones on as one MatchedRun,
 * which the normalizer's open response takes without decoding (or decodes as
 * usual if it does not). The event templates are learned here, from plain
 * blocks whose payload one of the normalizer's payload templates recognises.
 * Anything else reading the framer gets plain frames: the framer only
 * matches while that chain stands.
 */
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import type { Chunk } from '../framing/bytes.js';
import { Unframed, type InternalSseOptions, type SseEventHook } from '../framing/sse.js';
import { EventTemplateStore, MatchedRun } from '../dialects/fast/event-template.js';
import { isDecoderStage, type DecoderStage } from './handoff.js';
import type { ConsumerAwareStage } from './transform.js';

/**
 * Most events in one MatchedRun: a run is read once by each stage in turn, so
 * a long one (a 64 KiB chunk holds hundreds of events) would leave the L1
 * cache before the next stage reads it again.
 */
const RUN_MAX = 32;

/** `make` builds the framer with the hook in its options. */
export function createHandoffFramer(make: (hook: InternalSseOptions) => Stage<Chunk, Frame>): Stage<Chunk, Frame> & ConsumerAwareStage {
  const events = new EventTemplateStore();
  let decoder: DecoderStage | null = null;

  let out: Emit<Frame> = () => {};
  /** The run matched events go into; handed on whole before any other frame, at RUN_MAX events and at the end of each chunk. */
  let run: MatchedRun | null = null;
  function flush(): void {
    if (run === null) return;
    const r = run;
    run = null;
    out(r as unknown as Frame); // only a decoder stage handing off to a normalizer gets it (see handoff.ts)
  }
  const hook: SseEventHook = {
    tryEvent(buf, pos, limit, id, frameNo, offset) {
      if (decoder === null || decoder.next === null) return -1;
      const end = events.match(buf, pos, limit);
      if (end < 0) return end; // -1, or EVENT_CUT(_CLEAN) for the line splitter
      if (events.addTo((run ??= new MatchedRun()), id, offset >= 0 ? { frame: frameNo, offset } : undefined) >= RUN_MAX) flush();
      return end;
    },
    block: { buf: null, start: 0, dataStart: 0, dataEnd: 0, end: 0 },
  };
  /** The input held no event, only lines that are not SSE fields: handed on at the end, to a decoder stage only. */
  let unframed: Unframed | null = null;
  const framer = make({
    eventHook: hook,
    onUnframed: (report) => {
      unframed = report;
    },
  });

  /** Frames read the ordinary way: a plain block whose payload a payload template recognises teaches an event template. */
  const learn: Emit<Frame> = (frame) => {
    flush();
    const b = hook.block;
    const next = decoder?.next;
    if (b.buf !== null && next != null && events.learning && frame.invalidUtf8At === undefined) {
      const template = next.normalizer.templateFor(frame.data);
      if (template !== null) events.learn(template, frame.event, b.buf, b.start, b.dataStart, b.dataEnd, b.end);
    }
    out(frame);
  };

  return {
    push(c, emit) {
      out = emit;
      events.newChunk(); // a caller may refill the same Buffer
      // (a final accumulator at the end of the chain takes text as its wire bytes: see EventTemplateStore.rawText)
      events.rawText = decoder?.next?.takesRaw === true;
      try {
        framer.push(c, learn);
      } finally {
        flush(); // what was matched before a fatal error still goes out first
      }
    },
    end(emit) {
      out = emit;
      framer.end(learn);
      flush();
      if (unframed !== null && decoder !== null) emit(unframed as unknown as Frame); // see handoff.ts
    },
    consumedBy(consumer) {
      decoder = consumer !== null && isDecoderStage(consumer) ? consumer : null;
    },
  };
}
