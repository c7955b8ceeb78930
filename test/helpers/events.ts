/** Picking and reducing unified events, for the expectations of the dialect tests. */
import type { DialectName, Json, JsonObject, UnifiedEvent } from '../../lib/events.js';

type Ev = UnifiedEvent;

/** The events of one type, typed as such. */
export const ofType = <K extends Ev['type']>(events: Ev[], type: K): Extract<Ev, { type: K }>[] =>
  events.filter((e): e is Extract<Ev, { type: K }> => e.type === type);

export const countType = (events: Ev[], type: Ev['type']): number => events.filter((e) => e.type === type).length;

export function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payloads of the raw events whose payload `type` is `type` (OpenAI/xAI Responses naming). */
export const rawPayloads = (events: Ev[], type: string): JsonObject[] =>
  events.flatMap((e) => (e.type === 'raw' && isObj(e.event) && e.event['type'] === type ? [e.event] : []));

/** The text of the text_delta events that pass `pred` (all of them by default), joined. */
export function texts(events: Ev[], pred: (e: Ev & { type: 'text_delta' }) => boolean = () => true): string {
  const out: string[] = [];
  for (const e of events) if (e.type === 'text_delta' && pred(e)) out.push(e.text);
  return out.join('');
}

/** The five counts of every usage event (no `raw`, no position). */
export const usageCounts = (events: Ev[]) =>
  ofType(events, 'usage').map(({ inputTokens, outputTokens, totalTokens, reasoningTokens, cachedInputTokens }) => ({
    inputTokens,
    outputTokens,
    totalTokens,
    reasoningTokens,
    cachedInputTokens,
  }));

/** Stop reason and provider reason of every done event. */
export const doneReasons = (events: Ev[]) => ofType(events, 'done').map((e) => ({ stopReason: e.stopReason, providerReason: e.providerReason }));

type WithoutRaw<E> = E extends unknown ? Omit<E, 'raw'> : never;

/** A usage or error event without its provider object; any other event as it is. */
export function withoutRaw(e: Ev): Ev | WithoutRaw<Ev & { type: 'usage' | 'error' }> {
  if (e.type !== 'usage' && e.type !== 'error') return e;
  const { raw: _raw, ...rest } = e;
  return rest;
}

/**
 * How a raw payload is named in a brief: a client message of a capture is `send`;
 * otherwise its top-level keys (`keys`, Gemini Live), or its `type` when it has a
 * string one (`type`, OpenAI/xAI Realtime) and its keys when not.
 */
export type RawLabelling = 'type' | 'keys';

export function rawLabel(payload: Json, by: RawLabelling): string {
  if (!isObj(payload)) return JSON.stringify(payload);
  if (payload['dir'] === 'send') return 'send';
  if (by === 'type' && typeof payload['type'] === 'string') return payload['type'];
  return Object.keys(payload).join(',');
}

/** Comparable summary of an event: raw events become `raw:<label>`, usage/error drop the provider object. */
export function briefs(by: RawLabelling): (e: Ev) => Json {
  return (e) => (e.type === 'raw' ? `raw:${rawLabel(e.event, by)}` : (withoutRaw(e) as unknown as Json));
}

/** Events with the bulky provider payloads left out (`event` of raw events, `raw` of the others), for exact sequence checks. */
export function withoutPayloads(events: Ev[]): Record<string, unknown>[] {
  return events.map((e) => {
    const o: Record<string, unknown> = { ...e };
    if (e.type === 'raw') delete o['event'];
    else delete o['raw'];
    return o;
  });
}

/** The dialect stamped on the first event when that is a start (undefined otherwise). */
export function startDialect(events: Ev[]): DialectName | undefined {
  const start = events[0];
  return start?.type === 'start' ? start.dialect : undefined;
}
