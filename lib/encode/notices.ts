/**
 * Events no response wire has a place for: provider events with no unified
 * meaning (pings…), a realtime session's go_away / resumption, calls the
 * server cancelled, what the user said, transcript segments, provider
 * notices. Every target (and the encoder, between responses) reports them
 * lost the same way.
 */
import type { DoneEvent, InputTranscriptEvent, NoticeEvent, RawEvent, SegmentEvent, SessionEvent, SteerEvent, ToolCallCancelEvent } from '../events.js';
import type { TargetContext } from './target.js';

export function loseNotice(
  ev: RawEvent | SessionEvent | ToolCallCancelEvent | InputTranscriptEvent | SegmentEvent | NoticeEvent | SteerEvent,
  ctx: Pick<TargetContext, 'lose'>,
): void {
  if (ev.type === 'raw') ctx.lose('raw', 'provider events with no unified meaning');
  else if (ev.type === 'session') ctx.lose('session', ev.kind);
  else if (ev.type === 'input_transcript') ctx.lose('input_transcript', "the user's speech transcribed");
  else if (ev.type === 'segment') ctx.lose('segment', "transcript segments' times and speakers (their text is carried)");
  else if (ev.type === 'notice') ctx.lose('notice', ev.code);
  // no response wire carries input added to a running response (WebSocket steering)
  else if (ev.type === 'steer') ctx.lose('steer', `${ev.kind} ${ev.status}`);
  else ctx.lose('tool_call_cancel', ev.ids.join(', '));
}

/**
 * The stops of choices k > 0, which a one-choice wire has no place for: true
 * for a choice's own `done` (nothing more to write), else the choices listed
 * in the response's `done` are reported and false (write the response's end).
 */
export function loseOtherChoices(ev: DoneEvent, ctx: Pick<TargetContext, 'lose'>): boolean {
  if (ev.choice !== undefined && ev.choice !== 0) {
    ctx.lose('choice', `the stop reason of choice ${ev.choice}`);
    return true;
  }
  for (const c of ev.choices ?? []) if (c.choice !== 0) ctx.lose('choice', `the stop reason of choice ${c.choice}`);
  return false;
}
