import t from 'tap';
import { Readable } from 'node:stream';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { events } from '../../lib/pipeline/iterate.js';
import type { UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';

/** An OpenAI chat stream with `n` one-character tool calls, produced lazily. */
function manyToolCalls(n: number): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i >= n) return this.push(null);
      const parts: string[] = [];
      for (let k = 0; k < 500 && i < n; k++, i++) {
        parts.push(
          `data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":${i},"id":"call_${i}","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}\n\n`,
        );
      }
      this.push(parts.join(''));
    },
  });
}

/** An Anthropic tool_use block whose input never ends. */
function endlessArguments(chunks: number): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i === 0)
        this.push(
          'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":1}}}\n\n' +
            'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\n\n',
        );
      if (i++ >= chunks) return this.push(null);
      this.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"${'a'.repeat(4000)}"}}\n\n`);
    },
  });
}

async function all<T>(r: Readable): Promise<T[]> {
  const out: T[] = [];
  for await (const x of r) out.push(x as T);
  return out;
}

t.test('a flood of tool calls is stopped by maxBlocks, even in events mode (lenient: an in-band error)', async (t) => {
  const evs = await all<UnifiedEvent>(manyToolCalls(20_000).pipe(createStream()));
  const err = evs.find((e) => e.type === 'error');
  t.match(err, { code: 'limit_exceeded', terminal: true, message: /maxBlocks = 10000/ });
  t.equal(evs.filter((e) => e.type === 'tool_call_start').length, 10_000, 'calls up to the limit were delivered');
  t.match(evs.at(-1), { type: 'done', stopReason: 'error' });
});

t.test('strict: the limit destroys the stream with a LimitExceededError naming it', async (t) => {
  const err = await all(manyToolCalls(300).pipe(createStream({ strict: true, maxBlocks: 100 }))).catch((e: unknown) => e);
  t.match(err, { name: 'LimitExceededError', code: 'limit_exceeded', limit: 'maxBlocks' });
});

t.test('one endless tool argument is stopped by maxToolArgumentBytes', async (t) => {
  const evs: UnifiedEvent[] = [];
  for await (const ev of events(endlessArguments(10_000), { maxToolArgumentBytes: 256 * 1024 })) evs.push(ev);
  t.match(
    evs.filter((e) => e.type === 'error'),
    [{ code: 'limit_exceeded', message: /toolu_1: arguments too large \(maxToolArgumentBytes = 262144\)/ }],
  );
  const streamed = evs.filter((e) => e.type === 'tool_call_delta').length;
  t.ok(streamed <= 66, `stopped after ${streamed} deltas`);
});

t.test('the final accumulator caps buffered text per response (maxTextBytes)', async (t) => {
  const text = (n: number): string =>
    `data: {"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"${'x'.repeat(n)}"}}]}\n\n`;
  const input = Readable.from([Buffer.from(Array.from({ length: 50 }, () => text(100)).join(''))]);
  const got: FinalResult[] = [];
  const err = await (async () => {
    for await (const f of input.pipe(createStream({ output: 'final', maxTextBytes: 1000 }))) got.push(f as FinalResult);
  })().catch((e: unknown) => e);
  t.match(err, { name: 'LimitExceededError', limit: 'maxTextBytes' });
  t.equal(got.length, 1, 'the partial final came first');
  t.match(got[0], { stopReason: 'error', errors: [{ code: 'limit_exceeded', message: /maxTextBytes/ }] });
});

t.test('limits are validated', async (t) => {
  t.throws(() => createStream({ maxBlocks: -1 }), { code: 'invalid_option', message: /maxBlocks/ });
});
