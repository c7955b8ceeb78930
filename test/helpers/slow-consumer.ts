/**
 * Backpressure check shared by the pipeline tests: 5,000 Anthropic text
 * deltas of 200 characters pushed through `stages` to a sink that takes one
 * event per tick; how far (in source bytes) the source ever ran ahead of it.
 */
import { Readable, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UnifiedEvent } from '../../lib/events.js';

export async function slowConsumerLead(stages: Duplex[]): Promise<{ maxAhead: number; produced: number }> {
  const event = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"' + 'x'.repeat(200) + '"}}\n\n';
  const head = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":1}}}\n\n';
  let produced = 0;
  let i = 0;
  const source = new Readable({
    read() {
      if (i === 0) this.push(head);
      if (i++ >= 5000) return this.push(null);
      produced += event.length;
      this.push(event);
    },
  });
  let consumed = 0;
  let maxAhead = 0;
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 2,
    write(ev: UnifiedEvent, _e, cb) {
      if (ev.type === 'text_delta') consumed += event.length;
      maxAhead = Math.max(maxAhead, produced - consumed);
      setImmediate(cb);
    },
  });
  await pipeline([source, ...stages, sink]);
  return { maxAhead, produced };
}
