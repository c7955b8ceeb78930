/**
 * A dialect given explicitly is checked against the first payload that
 * auto-detection recognises: another family's payloads would mostly come out
 * as hidden `raw` events, which looks like an empty stream. One non-terminal
 * `dialect_mismatch` error says so; the right dialect never triggers it.
 */
import t from 'tap';
import { Readable } from 'node:stream';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import type { DialectName, UnifiedEvent } from '../../lib/events.js';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';
import { stable } from '../helpers/decode.js';

const chat = fixture('openai-chat/text-usage.sse');
const anthropic = fixture('quickstart/anthropic-tool-use.sse');
const mismatches = (evs: UnifiedEvent[]): UnifiedEvent[] => evs.filter((e) => e.type === 'error' && e.code === 'dialect_mismatch');

t.test('another family: one non-terminal dialect_mismatch before the first payload it names, at every chunking', async (t) => {
  const evs = stable(t, chat, { dialect: 'anthropic-messages', positions: true });
  t.match(mismatches(evs), [
    {
      code: 'dialect_mismatch',
      terminal: false,
      at: { frame: 0, offset: 0 },
      message: 'frame 0: the payloads look like openai-chat, not anthropic-messages as asked: read as anthropic-messages, their content may be lost (raw events only)',
    },
  ]);
  t.equal(evs[0]?.type, 'error', 'before anything of that payload');
  t.ok(
    evs.slice(1).every((e) => e.type === 'raw'),
    'the payloads themselves stay raw events, nothing lost',
  );
  const other = decodeAll([anthropic], { dialect: 'gemini' });
  t.equal(mismatches(other).length, 1, 'whatever the given dialect makes of them');
  t.match(mismatches(other)[0], { message: /look like anthropic-messages, not gemini/ });
});

t.test('final mode keeps it, even when no response opens', async (t) => {
  const finals: FinalResult[] = [];
  for await (const f of Readable.from([chat]).pipe(createStream({ dialect: 'anthropic-messages', output: 'final' }))) finals.push(f as FinalResult);
  t.match(finals, [{ dialect: null, stopReason: 'error', errors: [{ code: 'dialect_mismatch' }] }]);
});

t.test('the same family (xAI speaks the OpenAI and Anthropic vocabularies) and auto never report it', async (t) => {
  t.same(mismatches(decodeAll([chat], { dialect: 'xai-chat' })), []);
  t.same(mismatches(decodeAll([anthropic], { dialect: 'xai-messages' })), []);
  t.same(mismatches(decodeAll([Buffer.concat([anthropic, chat])])), [], 'auto follows a switch instead');
});

t.test('every corpus capture read with its own dialect: no dialect_mismatch', async (t) => {
  const own: Record<string, DialectName> = { 'gemini-json-array': 'gemini', 'gemini-sse': 'gemini' };
  let files = 0;
  for (const f of corpusFiles()) {
    const dialect = own[f.dir] ?? (f.dir as DialectName);
    const evs = decodeAll([f.bytes], { dialect });
    files++;
    if (mismatches(evs).length > 0) t.fail(`${f.name}: ${JSON.stringify(mismatches(evs)[0])}`);
  }
  t.ok(files > 100, `${files} captures`);
});
