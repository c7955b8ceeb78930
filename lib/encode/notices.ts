/**
 * Realtime notices no response wire has a place for (a session's go_away /
 * resumption, calls the server cancelled): every target reports them lost
 * the same way.
 */
import type { SessionEvent, ToolCallCancelEvent } from '../events.js';
import type { TargetContext } from './target.js';

export function loseNotice(ev: SessionEvent | ToolCallCancelEvent, ctx: TargetContext): void {
  if (ev.type === 'session') ctx.lose('session', ev.kind);
  else ctx.lose('tool_call_cancel', ev.ids.join(', '));
}
