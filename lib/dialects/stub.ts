/** TEMPORARY placeholder used until a dialect file is written: everything is raw. */
import type { DialectName } from '../events.js';
import type { DialectDefinition } from './types.js';

export function stubDialect(name: DialectName): DialectDefinition {
  return {
    name,
    createResponse(ctx) {
      let started = false;
      return {
        onPayload(payload) {
          started = true;
          ctx.emit({ type: 'raw', event: payload });
        },
        onDoneSentinel() {
          ctx.emit({ type: 'done', stopReason: 'end', providerReason: null });
        },
        onIncomplete() {},
        get started() {
          return started;
        },
      };
    },
  };
}
