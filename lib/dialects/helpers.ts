/** Small shared helpers for dialect files: safe field access and event builders. */
import type { Json, JsonObject, StopReason, Usage, UsageEvent, DoneEvent, ErrorEvent } from '../events.js';

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: Json | undefined): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

export function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function arr(v: Json | undefined): Json[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** Sum of the known numbers, or null when none is known. */
export function sum(...values: (number | null | undefined)[]): number | null {
  let total: number | null = null;
  for (const v of values) if (typeof v === 'number') total = (total ?? 0) + v;
  return total;
}

export function usageEvent(usage: Usage, raw: Json): UsageEvent {
  return {
    type: 'usage',
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    reasoningTokens: usage.reasoningTokens,
    cachedInputTokens: usage.cachedInputTokens,
    raw,
  };
}

export function doneEvent(stopReason: StopReason, providerReason: string | null): DoneEvent {
  return { type: 'done', stopReason, providerReason };
}

export function errorEvent(code: string, message: string, terminal: boolean, raw?: Json): ErrorEvent {
  const ev: ErrorEvent = { type: 'error', code, message, terminal };
  if (raw !== undefined) ev.raw = raw;
  return ev;
}

/**
 * Reads a provider error object in any of the common shapes:
 * `{error: {code|type|status, message}}`, `{code, message}`, `{type: 'error', error: {...}}`.
 */
export function providerError(v: Json | undefined): { code: string; message: string } | undefined {
  const o = obj(v);
  if (o === undefined) return undefined;
  const inner = obj(o['error']) ?? o;
  const message = str(inner['message']) ?? str(o['message']);
  // A string code is the most specific; Google's numeric HTTP code is less telling than its status.
  const numeric = num(inner['code']) ?? num(o['code']);
  const code =
    str(inner['code']) ?? str(inner['type']) ?? str(inner['status']) ?? str(o['code']) ?? (numeric === undefined ? undefined : String(numeric));
  if (message === undefined && code === undefined) return undefined;
  return { code: code ?? 'provider_error', message: message ?? code ?? 'provider error' };
}
