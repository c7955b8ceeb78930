/** One line per event, for exact and readable expectations (the Responses tests' form). */
import type { UnifiedEvent } from '../../lib/events.js';
import { isObj } from './events.js';

export interface LineOptions {
  /** Mark refusal text with ` refusal` (OpenAI Responses; the xAI tests leave the flag out of their lines). */
  refusal?: boolean;
}

/** Raw payloads are reduced to their type; `@cursor` ends the line of an event that has one. */
export function eventLine(e: UnifiedEvent, { refusal = false }: LineOptions = {}): string {
  let s: string;
  switch (e.type) {
    case 'start':
      s = `start ${e.id} ${e.model}`;
      break;
    case 'text_delta':
      s = `text ${e.index}/${e.contentIndex} ${JSON.stringify(e.text)}${refusal && e.refusal ? ' refusal' : ''}`;
      break;
    case 'reasoning_delta':
      s = `reasoning ${e.index}/${e.contentIndex} ${JSON.stringify(e.text)}`;
      break;
    case 'tool_call_start':
      s = `tool_start ${e.index} ${e.id} ${e.name}${e.providerExecuted ? ' provider' : ''}`;
      break;
    case 'tool_call_delta':
      s = `tool_delta ${e.index} ${e.id} ${e.argumentsDelta}${e.providerExecuted ? ' provider' : ''}`;
      break;
    case 'tool_call_done':
      s = `tool_done ${e.index} ${e.id} ${e.name} ${e.arguments}${e.providerExecuted ? ' provider' : ''}`;
      break;
    case 'tool_result':
      s = `tool_result ${e.index} ${e.id} ${e.name}${e.isError ? ' error' : ''}`;
      break;
    case 'citation':
      s = `citation ${e.index} ${e.url ?? e.source ?? ''} ${e.start ?? ''}-${e.end ?? ''}`;
      break;
    case 'file':
      s = `file ${e.index} ${e.mimeType} ${e.data.length}${e.partial ? ' partial' : ''}`;
      break;
    case 'signature':
      s = `signature ${e.index} ${e.kind} ${e.signature}`;
      break;
    case 'usage':
      s = `usage in=${e.inputTokens} out=${e.outputTokens} total=${e.totalTokens} reasoning=${e.reasoningTokens} cached=${e.cachedInputTokens}${e.durationSeconds === undefined ? '' : ` seconds=${e.durationSeconds}`}`;
      break;
    case 'done':
      s = `done ${e.stopReason} ${e.providerReason}`;
      break;
    case 'error':
      s = `error ${e.code} ${e.terminal ? 'terminal' : 'non-terminal'}`;
      break;
    case 'raw':
      s = `raw ${isObj(e.event) ? String(e.event['type']) : JSON.stringify(e.event)}`;
      break;
    case 'steer':
      s = `steer ${e.kind} ${e.status} ${e.id} ${e.responseId}${e.text === undefined ? '' : ` ${JSON.stringify(e.text)}`}`;
      break;
    case 'input_transcript':
      s = `input ${JSON.stringify(e.text)}${e.language === undefined ? '' : ` ${e.language}`}`;
      break;
    case 'segment':
      s = `segment ${e.id ?? ''} ${e.start ?? ''}-${e.end ?? ''} ${e.speaker ?? ''} ${JSON.stringify(e.text)}`;
      break;
    case 'notice':
      s = `notice ${e.code} ${JSON.stringify(e.message)}`;
      break;
    default:
      s = e.type;
  }
  // laned events (several responses at once) start with their lane, and agent tags follow it
  if (e.agent !== undefined) s = `<${e.agent}> ${s}`;
  if (e.streamId !== undefined) s = `[${e.streamId}] ${s}`;
  return e.cursor === undefined ? s : `${s} @${e.cursor}`;
}

export const eventLines = (events: UnifiedEvent[], options: LineOptions = {}): string[] => events.map((e) => eventLine(e, options));

/** The lines without raw events and without the streamed pieces (text, reasoning, argument deltas). */
export const outlineLines = (lines: string[]): string[] =>
  lines.filter((l) => !l.startsWith('raw') && !l.startsWith('text') && !l.startsWith('reasoning') && !l.startsWith('tool_delta'));
