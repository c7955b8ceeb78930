/**
 * The normalizer of the fused pipeline: the reference normalizer
 * (dialects/normalizer.ts) with the raw-text fast path around it. Each frame's
 * text is first offered to the open response's templates (template.ts), and
 * each SSE event's bytes to its event templates (event-template.ts); a match
 * goes straight to the response's handler through its dialect's fast twin
 * (registry.ts), whose events the normalizer stamps and checks as usual. A
 * frame no template matched is parsed and pushed as usual, and its payload
 * teaches the templates. Templates are off while a lane is open.
 */
import type { DialectName, JsonObject, Position, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import type { RawTextSink, ResponseHandler, TextSink } from '../dialects/types.js';
import { makeNormalizer, type NormalizerHooks, type NormalizerStart, type NormalizerTrail, type ResolvedNormalizerOptions } from '../dialects/normalizer.js';
import type { Unframed } from '../framing/sse.js';
import { TemplateStore, type TemplateMatch } from './template.js';
import { EventTemplateStore } from './event-template.js';
import { fastOf, type FastContext, type FastDialect } from './registry.js';

/** The normalizer of the fused pipeline: also takes frame texts and SSE events before they are parsed. */
export interface TextNormalizer extends Stage<ProviderEvent, UnifiedEvent> {
  /** See Normalizer.abandon. */
  abandon(emit: Emit<UnifiedEvent>): void;
  /** See NormalizerCore.unframed. */
  unframed(report: Unframed, emit: Emit<UnifiedEvent>): void;
  /** See NormalizerCore.trail. */
  trail(): NormalizerTrail;
  /**
   * Offers frame `n`'s text to the open response's templates. True when the
   * payload was fully handled; false when the frame must be decoded and
   * pushed as usual (its parsed payload then teaches the templates).
   */
  pushText(text: string, n: number, at: Position | undefined, emit: Emit<UnifiedEvent>): boolean;
  /**
   * Fused final mode: where template-recognised text deltas go instead of
   * events (null: events), and the sink taking them as wire bytes, if any
   * (SSE chunks are then read for it, see EventTemplateStore.rawText).
   */
  setTextSink(sink: TextSink | null, raw?: RawTextSink | null): void;
  /** True when an open response could take whole SSE events. */
  takesEvents(): boolean;
  /**
   * Offers the SSE event starting at `buf[pos]` to the open response as frame
   * `n`. Returns the event's end when it was fully handled, else -1 or
   * EVENT_CUT(_CLEAN) (event-template.ts; nothing happened: the framer reads
   * the event as usual, unless cut-events.ts holds it back).
   */
  pushEvent(buf: Uint8Array, pos: number, limit: number, n: number, at: Position | undefined, emit: Emit<UnifiedEvent>): number;
  /** A new input chunk (possibly a refilled Buffer) is about to be read. */
  newChunk(): void;
  /**
   * Right after `pushText` handled a frame named `event`: its block was
   * buf[start, end) with the payload at [dataStart, dataEnd), all plain; learn
   * it as an event template (the block's bytes hold `event`'s line already).
   */
  learnEvent(event: string, buf: Uint8Array, start: number, dataStart: number, dataEnd: number, end: number): void;
}

export function makeTextNormalizer(options: ResolvedNormalizerOptions, start: NormalizerStart | null = null): TextNormalizer {
  /** Templates of the current dialect. */
  const templates = new TemplateStore();
  const events = new EventTemplateStore();
  /** The fast twin of the open response's dialect (set when it opens), if it has one. */
  let fast: FastDialect | null = null;
  /** The text of the last frame the templates missed, until its provider event is pushed. */
  let missed: string | null = null;
  /** That text while its provider event is being normalized: the payload the handler takes teaches the templates. */
  let teaching: string | null = null;
  let textSink: TextSink | null = null;
  let rawSink: RawTextSink | null = null;
  /** The sink, while a template match is being handled (the only time takeText may use it). */
  let sink: TextSink | null = null;

  const hooks: NormalizerHooks = {
    opened(dialect: DialectName) {
      fast = fastOf(dialect);
    },
    handled(payload: JsonObject) {
      if (teaching === null) return;
      const text = teaching;
      teaching = null;
      if (fast !== null) templates.learn(fast.learnTemplate(payload), text);
    },
    switched() {
      templates.clear();
      events.clear();
    },
  };
  const core = makeNormalizer(options, hooks, start);

  // Plain methods, never getters (see the note on the normalizer's ctx): takeText runs once per
  // recognised delta, and the pipeline calls pushText per frame, pushEvent per event.
  const fctx: FastContext = {
    takeText(reasoning, index, contentIndex, m, f) {
      if (sink === null) return false;
      if (rawSink !== null) {
        const raw = m.raw(f);
        if (raw !== undefined && rawSink(reasoning, index, contentIndex, raw)) return true;
      }
      return sink(reasoning, index, contentIndex, m.str(f)!, m.body(f));
    },
  };

  /** A payload or a whole event a template recognised: the open response's handler takes it, or nothing happens. */
  function takeMatch(handler: ResponseHandler, match: TemplateMatch, n: number, at: Position | undefined, emit: Emit<UnifiedEvent>): boolean {
    missed = null;
    core.enter(emit, at, n);
    // (left set if onTemplate throws: harmless, takeText is only called from onTemplate)
    sink = textSink;
    const handled = fast!.onTemplate(handler, match, fctx);
    sink = null;
    return handled;
  }

  return {
    push(pe, emit) {
      // The first provider event after a miss is that frame's (see pushText).
      teaching = missed;
      missed = null;
      core.push(pe, emit);
      teaching = null;
    },
    end(emit) {
      core.end(emit);
    },
    abandon(emit) {
      core.abandon(emit);
    },
    unframed(report, emit) {
      core.unframed(report, emit);
    },
    trail() {
      return core.trail();
    },
    pushText(text, n, at, emit) {
      missed = null;
      const handler = core.openResponse();
      if (handler === null || fast === null) return false;
      if (templates.match(text)) return takeMatch(handler, templates, n, at, emit);
      if (templates.learning) missed = text;
      return false;
    },
    takesEvents() {
      return events.size > 0 && core.openResponse() !== null;
    },
    newChunk() {
      events.newChunk();
    },
    pushEvent(buf, pos, limit, n, at, emit) {
      const handler = core.openResponse();
      if (handler === null || fast === null) return -1;
      const end = events.match(buf, pos, limit);
      if (end < 0) return end; // -1, or EVENT_CUT(_CLEAN) for the holder of cut events
      return takeMatch(handler, events, n, at, emit) ? end : -1;
    },
    learnEvent(_event, buf, start, dataStart, dataEnd, end) {
      events.learn(templates.last, buf, start, dataStart, dataEnd, end);
    },
    setTextSink(s, raw = null) {
      textSink = s;
      rawSink = s === null ? null : raw;
      events.rawText = rawSink !== null;
    },
  };
}
