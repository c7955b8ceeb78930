/**
 * One input → an InputReport. Runs the pipeline stage by stage (framer →
 * decoder → normalizer, positions on) and taps each hop: frames are counted,
 * provider payloads go to the payload checks, unified events to the response
 * collector. Pure: the caller feeds the bytes.
 */
import { serializeLanes } from '../accumulate/lanes.js';
import { StreamError } from '../errors.js';
import type { DialectName, DialectOption, Frame, Position, ProviderEvent, UnifiedEvent } from '../events.js';
import type { Stage } from '../stage.js';
import { createDecoder } from '../dialects/decoder.js';
import { createNormalizer } from '../dialects/normalizer.js';
import { makeAutoFramer, makeFramer, type FramingName, type FramingOption } from '../framing/detect.js';
import { resolveFramerOptions } from '../framing/options.js';
import type { Chunk } from '../framing/bytes.js';
import type { SseHooks, Unframed } from '../framing/sse.js';
import { isFinalDone } from '../accumulate/response.js';
import { SessionTracker } from '../accumulate/session.js';
import type { FinalResult } from '../accumulate/types.js';
import { byPosition, finishChecks, type PayloadCheck } from './checks.js';
import { createIndexReuseCheck } from './index-checks.js';
import { anomaly, type Anomaly, type AnomalyCode, type InputReport, type ResponseReport, type SessionReport } from './report.js';
import { ResponseCollector } from './responses.js';
import { createSignatureCheck } from './signature-checks.js';
import { TerminalWatch } from './terminal-checks.js';
import { createAnthropicUsageCheck, createGeminiUsageCheck } from './usage-checks.js';

export interface DiagnoseOptions {
  /** Shown in the report: a file name or `stdin`. */
  name: string;
  /** @defaultValue 'auto' */
  framing?: FramingOption;
  /** @defaultValue 'auto' */
  dialect?: DialectOption;
  /** @defaultValue 8 MiB */
  maxFrameBytes?: number;
}

export interface Diagnosis {
  /** Feed the next bytes; ignored once a fatal framing error has stopped the diagnosis. */
  push(chunk: Chunk): void;
  /** End of input: the report. */
  end(): InputReport;
  /** A fatal framing error was met: the rest of the input cannot be framed. */
  readonly stopped: boolean;
}

/** Events every stream gets whatever the dialect understood of it: the response's frame, not its content. */
const FRAME_EVENTS = new Set(['start', 'done', 'raw']);

/**
 * `no_unified_events`: a dialect took the stream, yet every event is `raw`
 * (besides start and done, which say nothing of the content, unless the done
 * carries the provider's own stop reason: an empty Chat answer ending in
 * `finish_reason: "stop"` was read, it just said nothing). The pipeline
 * reports no error for it (nothing was dropped), so without this line doctor
 * would call a stream the dialect cannot read at all "ok": e.g. an OpenAI
 * Realtime translation session, whose `session.*_transcript.delta` /
 * `session.output_audio.delta` messages the realtime dialect keeps as raw.
 * Not filed without a dialect (`unknown_dialect` already says it), when an
 * error event was seen, nor after a fatal framing error (the errors say more).
 */
function noUnifiedEvents(
  responses: readonly ResponseReport[],
  outsideCounts: Record<string, number>,
  judge: boolean,
  end: Position,
): Anomaly | null {
  if (!judge) return null;
  for (const r of responses) {
    if (r.providerReason !== null || r.choiceStops.some((c) => c.providerReason !== null)) return null;
  }
  let raw = 0;
  for (const counts of [outsideCounts, ...responses.map((r) => r.counts)]) {
    for (const [type, n] of Object.entries(counts)) {
      if (!FRAME_EVENTS.has(type)) return null;
      if (type === 'raw') raw += n;
    }
  }
  if (raw === 0) return null;
  const a = anomaly('no_unified_events', 'every payload was raw: the dialect reads nothing of this stream', end);
  a.atEnd = true;
  return a;
}

const FATAL_CODES = new Set<AnomalyCode>(['frame_too_large', 'invalid_json_array']);

export function createDiagnosis(options: DiagnoseOptions): Diagnosis {
  let framing: FramingName | null = null;
  const framingOption = options.framing ?? 'auto';
  /** An SSE input of no event but lines that are not SSE fields: its no_frames says which line. */
  let unframed: Unframed | null = null;
  const framerOptions = resolveFramerOptions({
    positions: true,
    ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
  });
  const hooks: SseHooks = {
    onUnframed: (report) => {
      unframed = report;
    },
  };
  let framer: Stage<Chunk, Frame>;
  if (framingOption === 'auto') framer = makeAutoFramer(framerOptions, (f) => (framing = f), hooks);
  else {
    framer = makeFramer(framingOption, framerOptions, hooks);
    framing = framingOption;
  }
  const dialects: DialectName[] = [];
  const decoder = createDecoder();
  const normalizer = createNormalizer({ dialect: options.dialect ?? 'auto', onDialect: (d) => dialects.push(d) });
  const collector = new ResponseCollector();
  const terminal = new TerminalWatch();
  const checks: PayloadCheck[] = [
    createGeminiUsageCheck(),
    createAnthropicUsageCheck(),
    createSignatureCheck(),
    createIndexReuseCheck(),
  ];
  let frames = 0;
  let bytes = 0;
  let fatal: Anomaly | null = null;

  // Laned events (several responses open at once): each lane's response is checked whole, in order of completion.
  const lanes = serializeLanes();
  const toCollector = (ev: UnifiedEvent): void => collector.push(ev, normalizer.dialect);
  // agent sessions: summed up as the final accumulator does, one per stop
  const sessionTracker = new SessionTracker();
  const sessions: SessionReport[] = [];
  const onSession = (f: FinalResult): void => {
    sessions.push({ id: f.id, model: f.model, providerReason: f.providerReason, usage: f.usage, ...f.summary! });
  };
  const onEvent = (ev: UnifiedEvent): void => {
    lanes.push(ev, toCollector);
    sessionTracker.push(ev, onSession);
    if (ev.type === 'done' && isFinalDone(ev)) terminal.responseDone(ev.at?.frame);
  };
  const onProvider = (pe: ProviderEvent): void => {
    normalizer.push(pe, onEvent);
    terminal.provider(pe);
    if (pe.kind === 'json' && pe.direction !== 'send') {
      const at = pe.at ?? null;
      for (const check of checks) check.observe(pe.payload, pe.frame, at, normalizer.dialect);
    }
  };
  const onFrame = (frame: Frame): void => {
    frames++;
    decoder.push(frame, onProvider);
  };

  function fail(err: unknown): void {
    if (!(err instanceof StreamError)) throw err;
    const code = FATAL_CODES.has(err.code as AnomalyCode) ? (err.code as AnomalyCode) : 'fatal_error';
    const at: Position = { frame: err.frame ?? frames, offset: err.offset ?? bytes };
    fatal = anomaly(code, `${err.message}; the rest of the input cannot be read`, at);
  }

  return {
    push(chunk) {
      if (fatal !== null) return;
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      try {
        framer.push(chunk, onFrame);
      } catch (err) {
        fail(err);
      }
    },
    end() {
      if (fatal === null) {
        try {
          framer.end(onFrame);
        } catch (err) {
          fail(err);
        }
      }
      decoder.end(onProvider);
      const fatalAt = (fatal as Anomaly | null)?.at ?? null;
      const end: Position = fatalAt ?? { frame: frames, offset: bytes };
      collector.endAt = end;
      normalizer.end(onEvent);
      lanes.end(toCollector);
      sessionTracker.end(onSession);

      const outside = collector.outside;
      const responses = collector.responses;
      finishChecks(checks, responses, outside);
      terminal.finish(responses, outside, end);
      const allRaw = noUnifiedEvents(responses, collector.outsideCounts, dialects.length > 0 && fatal === null, end);
      if (allRaw !== null) outside.push(allRaw);
      if (fatal !== null) outside.push(fatal);
      else if (frames === 0) {
        const why = bytes === 0 ? 'the input is empty' : (unframed as Unframed | null)?.message ?? 'no frames: nothing in the input is a stream event';
        const a = anomaly('no_frames', why, end);
        a.atEnd = true;
        outside.push(a);
      }
      for (const r of responses) r.anomalies.sort(byPosition);
      outside.sort(byPosition);
      return {
        name: options.name,
        bytes,
        framing,
        framingForced: framingOption !== 'auto',
        dialects,
        dialectForced: (options.dialect ?? 'auto') !== 'auto',
        frames,
        responses,
        stoppedAt: fatalAt,
        outsideCounts: collector.outsideCounts,
        anomalies: outside,
        ...(sessions.length > 0 ? { sessions } : {}),
      };
    },
    get stopped() {
      return fatal !== null;
    },
  };
}
