/**
 * provider events → unified events. Owns what every dialect shares: choosing
 * the dialect (`auto`), one handler per response (a new `start` after each
 * terminal), `at` positions, invalid JSON, the `[DONE]` sentinel outside a
 * response, error bodies, and the `incomplete_stream` report when input ends
 * inside a response.
 *
 * Lanes: a dialect with a lane router (DialectDefinitionOf.lanes) may send a
 * payload to a lane; each open lane has its own handler, and its events are
 * stamped with `streamId` (and `agent`), so several responses can be open at
 * once. A lane's `done` closes that lane alone; at the end of the input every
 * open lane is cut off on its own (docs/lanes.md). The template fast path is
 * off while any lane is open.
 *
 * The fused pipeline's template path (lib/fast/text-normalizer.ts) wraps this
 * normalizer: it hears from it through NormalizerHooks, its own parameter.
 */
import { functionOption, optionsObject } from '../options.js';
import { LimitExceededError, OptionError } from '../errors.js';
import type { DialectName, DialectOption, Json, JsonObject, Position, ProviderEvent, RawEvent, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { doneEvent, errorEvent, isObject, providerError } from './helpers.js';
import { detectDialect, dialectNames, dialects, familyOf, isCatchAll, isDialectName } from './registry.js';
import type { DialectContext, LaneRoute, LaneRouter, ResponseHandler } from './types.js';
import { createResponseLimits, type DialectLimitOptions, type ResponseLimits } from './limits.js';
import { resolveLimits, type Limits } from '../limits.js';
import type { Unframed } from '../framing/sse.js';

export interface NormalizerOptions extends DialectLimitOptions {
  /** @defaultValue 'auto' */
  dialect?: DialectOption;
  /** Called once when the dialect is known (auto-detected or given). */
  onDialect?: (dialect: DialectName) => void;
}

/**
 * Whether a payload detected as `next` moves the input off `current`: a new
 * family always does; within a family only positive evidence does (detected as
 * a dialect other than the family's catch-all, e.g. by a grok model), since a
 * payload without a model says nothing either way.
 */
function switches(current: DialectName, next: DialectName): boolean {
  if (familyOf(current) !== familyOf(next)) return true;
  return !isCatchAll(next);
}

/** One open lane: its handler (null between its responses) and the context stamping its events. */
interface Lane {
  handler: ResponseHandler | null;
  readonly ctx: DialectContext & { at: Position | undefined; frame: number; agent: string | undefined };
  readonly limits: ResponseLimits;
}

/** Payloads held while `auto` cannot yet tell the dialect. */
const MAX_UNDETECTED = 64;

export interface Normalizer extends Stage<ProviderEvent, UnifiedEvent> {
  /** The dialect in use, once known. */
  readonly dialect: DialectName | null;
  /**
   * The input stopped for a reason already reported as a terminal error
   * (source failure, fatal framing error, a limit): close an open response
   * with done(error), without an extra incomplete_stream error.
   */
  abandon(emit: Emit<UnifiedEvent>): void;
}

/**
 * Internal hooks of the fused pipeline's template path (lib/fast/text-normalizer.ts),
 * passed in their own parameter, never in the options: what the templates of
 * the open response need to hear. Called in the steps below; they emit nothing.
 */
export interface NormalizerHooks {
  /** A response (not on a lane) of `dialect` opened. */
  opened(dialect: DialectName): void;
  /** That response's handler took `payload` (a parsed one). */
  handled(payload: JsonObject): void;
  /** The input switched to another dialect between responses. */
  switched(): void;
}

/**
 * Internal (lib/cli/sse-cut.ts, a --jobs range of an SSE log): the state an
 * input read from the middle of a larger one starts in, between responses.
 */
export interface NormalizerStart {
  /** The dialect in force there (with `auto`), or null when none was known yet. */
  readonly dialect: DialectName | null;
  /** invalid_utf8 was reported before (it is reported once per input). */
  readonly reportedUtf8: boolean;
  /** A given dialect was checked against the payloads before (once per input, see checkForcedDialect). */
  readonly checked: boolean;
}

/** What a range's reader needs to know of how the normalizer ended (NormalizerCore.trail). */
export interface NormalizerTrail {
  /** The dialect in force at the end, and the first one this input detected (null: none). */
  readonly dialect: DialectName | null;
  readonly detected: DialectName | null;
  /** Every dialect that was in force, in order. */
  readonly dialects: readonly DialectName[];
  /** A response, a lane or undetected payloads were still open at the end (before it closed them). */
  readonly open: boolean;
  /** A lane was ever opened, or a session event emitted: state that spans responses. */
  readonly spanning: boolean;
  readonly reportedUtf8: boolean;
  readonly checked: boolean;
  /** The input was abandoned (a fatal error: what followed was ignored). */
  readonly abandoned: boolean;
}

/** The normalizer as the pipeline and its template path use it. */
export interface NormalizerCore extends Normalizer {
  /** How it ended (see NormalizerTrail), read after `end` or `abandon`. */
  trail(): NormalizerTrail;
  /** The SSE input ended without an event but with lines that are not SSE fields: a terminal not_a_stream error, then done(error). */
  unframed(report: Unframed, emit: Emit<UnifiedEvent>): void;
  /** The handler of the open response while a payload may bypass `push` (none while a lane is open), else null. */
  openResponse(): ResponseHandler | null;
  /**
   * Before a payload of frame `n` at `at`, recognised without parsing, goes
   * straight to openResponse(): the handler's events are stamped and checked
   * as usual and go to `emit`.
   */
  enter(emit: Emit<UnifiedEvent>, at: Position | undefined, n: number): void;
}

/** The normalizer's options, checked once. */
export interface ResolvedNormalizerOptions {
  readonly dialect: DialectOption;
  readonly onDialect: ((dialect: DialectName) => void) | undefined;
  readonly limits: Pick<Limits, 'maxBlocks' | 'maxToolArgumentBytes'>;
}

/** The dialect option: 'auto' or a registered dialect's name. */
export function dialectOption(value: unknown): DialectOption {
  if (value === undefined || value === 'auto') return 'auto';
  if (typeof value !== 'string' || !isDialectName(value)) throw new OptionError('dialect', value, `'auto' or one of ${dialectNames.join(', ')}`);
  return value;
}

export function resolveNormalizerOptions(options: NormalizerOptions = {}): ResolvedNormalizerOptions {
  options = optionsObject(options);
  return Object.freeze({
    dialect: dialectOption(options.dialect),
    onDialect: functionOption('onDialect', options.onDialect),
    limits: resolveLimits(options),
  });
}

export function createNormalizer(options: NormalizerOptions = {}): Normalizer {
  return makeNormalizer(resolveNormalizerOptions(options));
}

/** The normalizer from options already resolved; `hooks`: see NormalizerHooks. */
export function makeNormalizer(options: ResolvedNormalizerOptions, hooks: NormalizerHooks | null = null, start: NormalizerStart | null = null): NormalizerCore {
  const requested = options.dialect;
  if (requested !== 'auto') options.onDialect?.(requested);
  const resumed = requested === 'auto' ? (start?.dialect ?? null) : null;
  let handler: ResponseHandler | null = null;
  /** The dialect's lane router for this input (see LaneRouter), and the lanes open, in opening order. */
  let router: LaneRouter | null = requested === 'auto' ? (resumed === null ? null : (dialects[resumed].lanes?.() ?? null)) : (dialects[requested].lanes?.() ?? null);
  const lanes = new Map<string, Lane>();
  /** The agent tag of the unlaned payload being handled (from the router). */
  let agent: string | undefined;
  let out: Emit<UnifiedEvent> = () => {};
  const undetected: ProviderEvent[] = [];
  let reportedUtf8 = start?.reportedUtf8 ?? false;
  /** For trail(): the first dialect detected, every one in force, lanes or sessions seen, an open input at the end, abandoned. */
  let detected: DialectName | null = null;
  const inForce: DialectName[] = resumed === null ? [] : [resumed];
  let spanning = false;
  let openAtEnd = false;
  let abandoned = false;

  const limits = createResponseLimits(options.limits);
  // Plain data fields here and on the normalizer, never getters: V8 keeps an object literal with
  // an accessor in dictionary mode, and every property read on it (a call of ctx.emit per event,
  // of openResponse per frame) becomes a hash lookup through the generic inline cache.
  const ctx = {
    at: undefined as Position | undefined,
    frame: 0,
    router,
    emit(ev: UnifiedEvent): void {
      const at = ctx.at;
      if (at !== undefined) ev.at = at;
      if (agent !== undefined) ev.agent = agent;
      // A done for choice k>0 (OpenAI n>1) does not end the response; choice 0's does.
      if (ev.type === 'done') {
        if (ev.choice === undefined) {
          handler = null;
          limits.reset();
        }
      } else if (ev.type === 'start') {
        if (self.dialect !== null) ev.dialect = self.dialect;
      } else if (ev.type === 'tool_call_start' || ev.type === 'tool_call_delta' || ev.type === 'tool_call_done') {
        if (!limits.check(ev)) return;
      } else if (ev.type === 'session') spanning = true;
      out(ev);
    },
  } satisfies DialectContext;

  function handle(pe: ProviderEvent): void {
    ctx.at = pe.at;
    ctx.frame = pe.frame;
    agent = undefined;
    switch (pe.kind) {
      case 'invalid_utf8':
        // Reported once per input: the text is kept with U+FFFD replacements, never silently.
        if (!reportedUtf8) {
          reportedUtf8 = true;
          ctx.emit(errorEvent('invalid_utf8', `frame ${pe.frame} at byte ${pe.offset}: invalid UTF-8 replaced with U+FFFD`, false));
        }
        return;
      case 'invalid':
        ctx.emit(errorEvent('invalid_json', `frame ${pe.frame}: payload is not valid JSON (${pe.message})`, false, pe.text));
        return;
      case 'done':
        if (handler !== null) handler.onDoneSentinel();
        else ctx.emit({ type: 'raw', event: '[DONE]' });
        return;
      case 'json':
        if (pe.direction === 'send' && (self.dialect === null || dialects[self.dialect].readsClientMessages !== true)) {
          // A client message from a capture log: kept, in order, but never part of a response.
          // Held while the dialect is unknown: it may read them once it is known (see readsClientMessages).
          if (self.dialect === null) undetected.push(pe);
          else clientMessage(pe.payload);
          return;
        }
        handlePayload(pe.payload, pe);
        return;
    }
  }

  /** A client message of a capture: shown to the router, then kept as `raw` (on the lane it names). */
  function clientMessage(payload: Json): void {
    const route = router !== null && isObject(payload) ? router.route(payload, true) : null;
    const ev: RawEvent = { type: 'raw', event: payload };
    if (route?.lane !== undefined) ev.streamId = route.lane;
    if (route?.agent !== undefined) ev.agent = route.agent;
    ctx.emit(ev);
  }

  /** The router's dialect became `name` (known, or switched to between responses). */
  function useRouter(name: DialectName): void {
    router = dialects[name].lanes?.() ?? null;
    ctx.router = router;
  }

  /** A payload of lane `key`: its handler (a new one when the lane has none open) takes it. */
  function onLane(route: LaneRoute & { lane: string }, payload: JsonObject, pe: ProviderEvent & { kind: 'json' }): void {
    let lane = lanes.get(route.lane);
    if (lane === undefined) {
      lane = openLane(route.lane);
      lanes.set(route.lane, lane);
    }
    lane.ctx.at = pe.at;
    lane.ctx.frame = pe.frame;
    lane.ctx.agent = route.agent;
    if (lane.handler !== null && lane.handler.beforePayload !== undefined) lane.handler.beforePayload(payload);
    if (lane.handler === null) lane.handler = dialects[self.dialect!].createResponse(lane.ctx);
    lane.handler.onPayload(payload, pe.event);
  }

  function openLane(key: string): Lane {
    spanning = true;
    const lane: Lane = {
      handler: null,
      limits: createResponseLimits(options.limits),
      ctx: {
        at: undefined,
        frame: 0,
        agent: undefined,
        router,
        emit(ev: UnifiedEvent): void {
          const c = lane.ctx;
          if (c.at !== undefined) ev.at = c.at;
          ev.streamId = key;
          if (c.agent !== undefined) ev.agent = c.agent;
          if (ev.type === 'done') {
            // a done of choice k>0 leaves the response open (as unlaned)
            if (ev.choice === undefined) {
              lane.handler = null;
              lane.limits.reset();
              lanes.delete(key);
            }
          } else if (ev.type === 'start') {
            if (self.dialect !== null) ev.dialect = self.dialect;
          } else if (ev.type === 'tool_call_start' || ev.type === 'tool_call_delta' || ev.type === 'tool_call_done') {
            if (!lane.limits.check(ev)) return;
          } else if (ev.type === 'session') spanning = true;
          out(ev);
        },
      },
    };
    return lane;
  }

  function handlePayload(payload: Json, pe: ProviderEvent & { kind: 'json' }): void {
    if (!isObject(payload)) {
      // Held like an unrecognised object while the dialect is unknown: a stream of
      // nothing but such payloads (`data: 42`) then ends in unknown_dialect, not in silence.
      if (self.dialect === null) {
        undetected.push(pe);
        if (undetected.length > MAX_UNDETECTED) giveUp();
      } else ctx.emit({ type: 'raw', event: payload });
      return;
    }
    if (checkForced) checkForcedDialect(payload, pe.frame);
    let route = router === null ? null : router.route(payload, false);
    if (route !== null && route.lane !== undefined) return onLane(route as LaneRoute & { lane: string }, payload, pe);
    // A response that held its done back ends here unless this payload continues it (see beforePayload).
    if (handler !== null && handler.beforePayload !== undefined) handler.beforePayload(payload);
    // A typed error event (`{type: 'error', …}`) of a known dialect is the dialect's to handle.
    const typed = self.dialect !== null && typeof payload['type'] === 'string';
    if (handler === null && !typed && 'error' in payload && detectDialect(payload) === null) {
      const err = providerError(payload);
      if (err !== undefined) {
        // A plain JSON error body (HTTP 4xx), or an error before any response: whatever the dialect.
        ctx.emit(errorEvent(err.code, err.message, true, payload));
        ctx.emit(doneEvent('error', null));
        return;
      }
    }
    if (requested === 'auto' && handler === null && lanes.size === 0 && self.dialect !== null) {
      // Between responses a log may switch provider (a gateway's mixed log): re-detect.
      const next = detectDialect(payload);
      if (next !== null && next !== self.dialect && switches(self.dialect, next)) {
        self.dialect = next;
        inForce.push(next);
        hooks?.switched();
        useRouter(next);
        options.onDialect?.(next);
      }
    }
    if (self.dialect === null) {
      self.dialect = detectDialect(payload);
      if (self.dialect === null) {
        undetected.push(pe);
        if (undetected.length > MAX_UNDETECTED) giveUp();
        return;
      }
      if (requested === 'auto') {
        detected = self.dialect;
        inForce.push(self.dialect);
      }
      useRouter(self.dialect);
      options.onDialect?.(self.dialect);
      replayUndetected();
      ctx.at = pe.at;
      ctx.frame = pe.frame;
      if (router !== null) {
        route = router.route(payload, false);
        if (route !== null && route.lane !== undefined) return onLane(route as LaneRoute & { lane: string }, payload, pe);
      }
    }
    agent = route?.agent;
    if (handler === null) {
      handler = dialects[self.dialect].createResponse(ctx);
      hooks?.opened(self.dialect);
    }
    handler.onPayload(payload, pe.event);
    hooks?.handled(payload);
  }

  /**
   * A given dialect is checked against the first payload auto-detection
   * recognises: payloads of another family would mostly come out as `raw`
   * events (hidden by default), which looks like an empty stream.
   */
  let checkForced = requested !== 'auto' && start?.checked !== true;
  function checkForcedDialect(payload: JsonObject, frame: number): void {
    const looks = detectDialect(payload);
    if (looks === null) return;
    checkForced = false;
    if (requested === 'auto' || familyOf(looks) === familyOf(requested)) return;
    const message = `frame ${frame}: the payloads look like ${looks}, not ${requested} as asked: read as ${requested}, their content may be lost (raw events only)`;
    ctx.emit(errorEvent('dialect_mismatch', message, false));
  }

  function replayUndetected(): void {
    if (undetected.length === 0) return;
    const held = undetected.splice(0);
    for (const pe of held) handle(pe);
    ctx.at = undefined;
  }

  function giveUp(): void {
    const held = undetected.splice(0);
    for (const pe of held) {
      ctx.at = pe.at;
      ctx.frame = pe.frame;
      if (pe.kind === 'json') ctx.emit({ type: 'raw', event: pe.payload });
    }
    ctx.emit(errorEvent('unknown_dialect', `could not tell the dialect from the first ${held.length} payloads`, false));
  }

  /**
   * Ends the input. A response still open is closed: the handler first emits
   * what it owes, then (`report`) the incomplete_stream error, then done(error).
   * Without `report` the caller has already reported why the input stopped.
   */
  function close(emit: Emit<UnifiedEvent>, report: boolean): void {
    out = emit;
    openAtEnd = undetected.length > 0 || handler !== null || lanes.size > 0;
    if (undetected.length > 0) giveUp();
    agent = undefined;
    const h = handler;
    if (h !== null) cutOff(h, ctx, () => handler === h, report);
    handler = null;
    // Each lane still open is cut off on its own, in the order they opened.
    for (const lane of [...lanes.values()]) {
      const lh = lane.handler;
      lane.ctx.at = undefined; // (the agent stays the lane's last: its cut-off events are that agent's)
      if (lh !== null) cutOff(lh, lane.ctx, () => lane.handler === lh, report);
    }
    lanes.clear();
  }

  /**
   * A response cut off by the end of the input: its handler emits what it
   * owes; then, unless that closed it (`open`), the incomplete_stream error
   * (`report`) and done(error).
   */
  function cutOff(h: ResponseHandler, c: DialectContext, open: () => boolean, report: boolean): void {
    if (!h.started) return;
    try {
      h.onIncomplete();
    } catch (err) {
      // A limit tripped while the handler flushed what it owed: the response still ends.
      if (!(err instanceof LimitExceededError)) throw err;
    }
    if (!open()) return;
    if (report) c.emit(errorEvent('incomplete_stream', "input ended before the response's terminal event", true));
    c.emit(doneEvent('error', null));
  }

  const self: NormalizerCore & { dialect: DialectName | null } = {
    push(pe, emit) {
      out = emit;
      handle(pe);
    },
    openResponse() {
      return lanes.size === 0 ? handler : null;
    },
    enter(emit, at, n) {
      out = emit;
      ctx.at = at;
      ctx.frame = n;
    },
    unframed(report, emit) {
      out = emit;
      ctx.at = report.at;
      ctx.frame = 0;
      ctx.emit(report.errorEvent());
      ctx.emit(doneEvent('error', null));
      ctx.at = undefined;
    },
    end(emit) {
      close(emit, true);
    },
    abandon(emit) {
      abandoned = true;
      close(emit, false);
    },
    trail() {
      return { dialect: self.dialect, detected, dialects: inForce, open: openAtEnd, spanning, reportedUtf8, checked: !checkForced, abandoned };
    },
    dialect: requested === 'auto' ? resumed : requested,
  };
  return self;
}
