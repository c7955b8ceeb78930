/**
 * A TypeScript user of the installed package (test/package.test.ts compiles it
 * with tsc --noEmit under node16, nodenext and bundler resolution, with and
 * without skipLibCheck, in a project that has only wirefold, typescript and
 * @types/node). Never run; every line is there to be type-checked.
 */
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  createStream,
  events,
  finals,
  read,
  finalAccumulator,
  normalizer,
  sseFramer,
  decoder,
  StreamError,
  assertNever,
  type ContentBlock,
  type FinalResult,
  type FinalToolCall,
  type StopReason,
  type UnifiedEvent,
  type Usage,
} from 'wirefold';

/** (c) A switch over the union narrows each case to its event. */
export function describe(ev: UnifiedEvent): string {
  switch (ev.type) {
    case 'start':
      return `start ${ev.dialect} ${ev.model ?? ''}`;
    case 'text_delta':
      return ev.text;
    case 'reasoning_delta':
      return ev.text.toUpperCase();
    case 'tool_call_start':
      return `${ev.id} ${ev.name}`;
    case 'tool_call_delta':
      return ev.argumentsDelta;
    case 'tool_call_done':
      return `${ev.name}(${ev.arguments})${ev.providerExecuted === true ? ' by the provider' : ''}`;
    case 'tool_result':
      return `${ev.id}: ${JSON.stringify(ev.result)}`;
    case 'citation':
      return ev.url ?? ev.source ?? '';
    case 'file':
      return `${ev.mimeType ?? 'file'}${ev.partial === true ? ' (partial)' : ''}`;
    case 'usage': {
      const n: number | null = ev.inputTokens;
      return String(n);
    }
    case 'done': {
      const reason: StopReason = ev.stopReason;
      return reason;
    }
    case 'error':
      return `${ev.code}: ${ev.message}${ev.terminal ? ' (terminal)' : ''}${ev.status === undefined ? '' : ` ${ev.status}`}`;
    default:
      return ev.type;
  }
}

/** The FinalResult fields, with their types. */
export function summarize(f: FinalResult): string {
  const text: string = f.text;
  const reasoning: string = f.reasoning;
  const refusal: string | null = f.refusal;
  const calls: FinalToolCall[] = f.toolCalls;
  const usage: Usage = f.usage;
  const stop: StopReason = f.stopReason;
  const errors: string[] = f.errors.map((e) => `${e.code} ${e.message} ${e.status ?? ''}`);
  const audioBytes: number = f.audio?.bytes ?? 0;
  const firstBlock = f.content[0];
  const blockText = firstBlock === undefined ? '' : blockLine(firstBlock);
  const cited: string[] = f.citations.map((c) => `${c.index} ${c.url ?? c.source ?? ''} ${c.start ?? ''}`);
  const choices: number = f.choices?.length ?? 1;
  return [
    f.dialect, f.id, f.model, text, reasoning, refusal, calls.map((c) => `${c.id} ${c.name} ${JSON.stringify(c.arguments)}`),
    usage.inputTokens, usage.outputTokens, usage.totalTokens, usage.reasoningTokens, usage.cachedInputTokens,
    stop, f.providerReason, f.signatures.map((s) => `${s.index} ${s.kind} ${s.signature}`), errors, audioBytes, blockText, choices, cited,
  ].join(' ');
}

/** Every content block type, switched over exhaustively. */
function blockLine(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
    case 'refusal':
    case 'reasoning':
      return b.text;
    case 'tool_call':
      return `${b.name}${b.providerExecuted === true ? ' (provider)' : ''}`;
    case 'tool_result':
      return `${b.id} ${JSON.stringify(b.result)}${b.isError === true ? ' error' : ''}`;
    case 'file':
      return `${b.mimeType ?? ''} ${b.data.length}`;
    default:
      return assertNever(b);
  }
}

/** (a) stream/promises pipeline from a file through createStream into a Writable. */
export async function finalsOfFile(file: string): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  await pipeline(
    createReadStream(file),
    createStream({ output: 'final' }),
    new Writable({
      objectMode: true,
      write(final: FinalResult, _encoding, done) {
        out.push(final);
        done();
      },
    }),
  );
  return out;
}

/** (b) 'data' listeners get the stage's item type (Node's own typings would give any). */
export function listen(file: string): void {
  const stream = createStream();
  stream.on('data', (ev) => console.log(describe(ev)));
  stream.on('data', (ev: UnifiedEvent) => console.log(describe(ev)));
  createStream({ output: 'final' }).once('data', (f) => console.log(summarize(f)));
  createStream({ output: 'text' }).on('data', (text) => console.log(text.toUpperCase()));
  stream.on('error', (err) => console.error(err instanceof StreamError ? err.code : err.message));
  createReadStream(file).pipe(stream);
}

/** The separate stages chain with stream.pipeline too. */
export async function stages(file: string): Promise<void> {
  await pipeline(createReadStream(file), sseFramer(), decoder(), normalizer(), finalAccumulator(), async (source: AsyncIterable<FinalResult>) => {
    for await (const f of source) console.log(summarize(f));
  });
}

/** for await over events() and finals(); read() for both at once; an AbortSignal. */
export async function iterate(file: string): Promise<number> {
  let n = 0;
  const reading = read(createReadStream(file), { signal: AbortSignal.timeout(1000) });
  for await (const ev of reading) n += describe(ev).length;
  const last: FinalResult = await reading.final();
  n += last.toolCalls.length + (await reading.finals()).length;
  for await (const ev of events(createReadStream(file))) n += describe(ev).length;
  for await (const f of finals(createReadStream(file))) n += f.toolCalls.length;
  return n;
}
