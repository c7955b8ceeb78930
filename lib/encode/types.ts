/** The encoders' vocabulary: targets, loss reports, options. */
import type { TARGETS } from './registry.js';

/** A wire an encoder writes: the `name` of each target in lib/encode/registry.ts. */
export type TargetName = (typeof TARGETS)[number]['name'];

/**
 * What a target could not carry, by kind: `reasoning` (no place for it),
 * `signature` (a foreign or unplaceable signature), `provider_tool_call` /
 * `tool_result` (hosted tools), `citation`, `file`, `audio`, `choice`
 * (choices k > 0), `error` (a non-terminal warning), `stop_reason` (a reason
 * the target has no word for), `usage` (unknown counts the wire can only
 * write as numbers), `session` / `tool_call_cancel` (realtime
 * notices), `input_transcript` / `segment` / `notice` (what the user said,
 * transcript times and speakers, provider notices), `language` (a
 * transcription's), `steer` (input added
 * to a running response over a WebSocket, and the server's answer), `lane`
 * (a laned response's lane and agent: it is written whole, after the
 * responses done before it), `response_id` (an id the wire would misread, e.g. one Gemini
 * takes for the previous response's continuation), `raw` (provider events
 * with no unified meaning, e.g. pings).
 */
export type LossKind =
  | 'reasoning'
  | 'signature'
  | 'provider_tool_call'
  | 'tool_result'
  | 'tool_input'
  | 'citation'
  | 'file'
  | 'audio'
  | 'choice'
  | 'error'
  | 'stop_reason'
  | 'usage'
  | 'session'
  | 'tool_call_cancel'
  | 'input_transcript'
  | 'segment'
  | 'notice'
  | 'language'
  | 'steer'
  | 'lane'
  | 'response_id'
  | 'raw';

export interface LossEntry {
  what: LossKind;
  /** Events of this kind not carried. */
  count: number;
  /** What they were (the first one's details). */
  detail: string;
}

/** One per response that lost something (and one for losses outside any response). */
export interface LossReport {
  type: 'loss';
  /** The target written. */
  to: TargetName;
  /** The response's id (`start` event), or null. */
  id: string | null;
  dropped: LossEntry[];
}

export interface EncoderOptions {
  /** The wire to write. */
  to: TargetName;
  /**
   * Fail (a StreamError with code `lossy_encoding`) at the first event the
   * target cannot carry, instead of reporting it. `raw` events (pings and
   * other provider events with no unified meaning) never fail.
   * @defaultValue false
   */
  strict?: boolean;
  /** Called with each loss report (the Transform also emits it as a `'loss'` event). */
  onLoss?: (report: LossReport) => void;
}
