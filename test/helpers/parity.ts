/** The assertions every SDK parity case shares: how both sides ran, and an SDK failure that was expected. */
import type { Test } from 'tap';
import type { FinalResult } from '../../lib/accumulate/types.js';

/** The SDK made exactly one request and wirefold did not throw. */
export function bothRan(tt: Test, requests: number, thrown: Error | null): void {
  tt.equal(requests, 1, 'the SDK made one request');
  tt.equal(thrown, null, 'wirefold did not throw');
}

/** wirefold gave one final; returns it. */
export function oneFinal(tt: Test, finals: FinalResult[]): FinalResult {
  tt.equal(finals.length, 1, 'one final');
  return finals[0]!;
}

/** A documented SDK failure: the pattern of its message, alone or with what our side does. */
type Documented = RegExp | { error: RegExp };

/**
 * The SDK threw: the failure must be documented, and its message match what is
 * documented. False (the case ends there) when it was not documented.
 */
export function failedAsDocumented<F extends Documented>(tt: Test, error: Error, failure: F | undefined): failure is F {
  tt.ok(failure, `SDK failure is expected: ${error.message.slice(0, 120)}`);
  if (failure === undefined) return false;
  tt.match(error.message, failure instanceof RegExp ? failure : failure.error, 'the SDK fails as documented');
  return true;
}

/** Our final ends in error and reports it. */
export function endsInError(tt: Test, ours: FinalResult): void {
  tt.equal(ours.stopReason, 'error', 'we end in error');
  tt.ok(ours.errors.length > 0, `we report it: ${ours.errors.map((e) => e.code).join(', ')}`);
}

/** An SDK field read as text: the string, or '' when it is not one. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
