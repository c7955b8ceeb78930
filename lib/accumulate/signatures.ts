/**
 * Every signature of the current response in order, and the last one: a
 * caller echoing a Gemini model turn verbatim needs its thought signatures.
 */
import type { SignatureKind, UnifiedEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import type { FinalSignature } from './types.js';
import { BEGIN, RESTART, ResponseTracker } from './response.js';

export class SignatureList {
  list: FinalSignature[] = [];

  add(index: number, signature: string, kind: SignatureKind): void {
    this.list.push({ index, signature, kind });
  }

  last(): FinalSignature | null {
    return this.list[this.list.length - 1] ?? null;
  }

  reset(): void {
    this.list = [];
  }
}

export interface SignatureAccumulator extends Stage<UnifiedEvent, UnifiedEvent> {
  /** The current (or last finished) response's signatures in order. */
  all(): FinalSignature[];
  /** Its last signature, or null. */
  last(): FinalSignature | null;
}

/** Passes events through unchanged and keeps the signatures of the current response. */
export function createSignatureAccumulator(): SignatureAccumulator {
  const tracker = new ResponseTracker();
  const signatures = new SignatureList();
  return {
    push(ev: UnifiedEvent, emit: Emit<UnifiedEvent>) {
      const step = tracker.step(ev);
      if (step === BEGIN || step === RESTART) signatures.reset();
      if (ev.type === 'signature') signatures.add(ev.index, ev.signature, ev.kind);
      emit(ev);
    },
    end() {},
    all() {
      return signatures.list;
    },
    last() {
      return signatures.last();
    },
  };
}
