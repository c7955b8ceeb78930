/**
 * The line input of records(): the same records, and so the same outputs,
 * wherever the byte stream is cut (every split point, 1-byte chunks, random
 * splits), with LF or CRLF endings, multi-byte characters, blank lines and
 * an unterminated last line; and the line splitter on its own.
 */
import t from 'tap';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { records, type RecordOutput, type RecordsOptions } from '../../lib/index.js';
import { createLineSplitter, Oversized, type Line } from '../../lib/records/lines.js';
import { chunkings } from '../helpers/chunks.js';
import { fixture } from '../helpers/corpus.js';

async function run(chunks: unknown[], options?: RecordsOptions): Promise<RecordOutput[]> {
  const out: RecordOutput[] = [];
  await pipeline(Readable.from(chunks, { objectMode: true }), records(options), async (source: AsyncIterable<RecordOutput>) => {
    for await (const r of source) out.push(r);
  });
  return out;
}

const small = 'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"héllo 👋"},"finish_reason":null}]}\n\ndata: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

function input(ending: string, lastEnding: string): Buffer {
  const lines = [
    JSON.stringify({ id: 'ü-1', body: small }),
    '',
    JSON.stringify({ id: 2, body_base64: Buffer.from(small).toString('base64') }),
    'not json — ✗',
    JSON.stringify({ id: 3, note: 'naïve 日本語 🎉' }),
    JSON.stringify({ id: 4, body: small }),
  ];
  return Buffer.from(lines.join(ending) + lastEnding);
}

for (const [name, ending, last] of [
  ['LF', '\n', '\n'],
  ['CRLF', '\r\n', '\r\n'],
  ['LF, no newline at the end', '\n', ''],
  ['CRLF, no newline at the end', '\r\n', ''],
] as const) {
  t.test(`every chunking gives the same outputs (${name})`, async (t) => {
    const bytes = input(ending, last);
    const want = await run([bytes]);
    t.same(
      want.map((o) => o.id ?? o.error?.code),
      ['ü-1', 'invalid_record', 2, 'invalid_record', 3, 4],
    );
    t.equal(want[0]!.finals?.[0]?.text, 'héllo 👋');
    t.equal(want[4]!.error?.code, 'missing_body');
    let n = 0;
    for (const c of chunkings(bytes, bytes.length)) {
      const got = await run(c.chunks);
      if (!t.same(got, want, c.name)) break;
      n++;
    }
    t.ok(n > bytes.length, `${n} chunkings: every split point`);
  });
}

t.test('string chunks are the same byte stream', async (t) => {
  const bytes = input('\n', '\n');
  const text = bytes.toString();
  const want = await run([bytes]);
  t.same(await run(Array.from(text)), want, 'one character a chunk');
  t.same(await run([new Uint8Array(bytes)]), want, 'a plain Uint8Array');
});

t.test('the line splitter', (t) => {
  const lines = (chunks: string[], max = 100): (string | number)[] => {
    const s = createLineSplitter(max);
    const out: (string | number)[] = [];
    const push = (l: Line): void => void out.push(l instanceof Oversized ? -l.bytes : l.toString());
    for (const c of chunks) s.push(Buffer.from(c), push);
    s.end(push);
    return out;
  };
  t.same(lines(['a\nb\r\n\nc']), ['a', 'b', '', 'c']);
  t.same(lines(['a\n']), ['a'], 'a newline at the end ends the last line: no empty line after it');
  t.same(lines(['a\n\n']), ['a', ''], 'a blank last line');
  t.same(lines(['']), [], 'nothing, no line');
  t.same(lines(['a\r', '\nb']), ['a', 'b'], 'CR and LF in different chunks');
  t.same(lines(['a\rb\n']), ['a\rb'], 'a lone CR is no line end');
  t.same(lines(['12345\n123456\n1234', '56\r\n12345\r\n'], 5), ['12345', -6, -6, '12345'], 'past the limit: its size, not its bytes');
  t.same(lines(['12345\r', '\n'], 5), ['12345'], 'the CR of CRLF does not count');
  t.same(lines(['1234567'], 5), [-7], 'an unterminated last line past the limit');
  t.same(lines(['12', '34', '56', '78\nok\n'], 5), [-8, 'ok'], 'the limit passed across chunks');
  t.end();
});

t.test('byte chunks of a big input keep their lines apart', async (t) => {
  const tool = fixture('quickstart/anthropic-tool-use.sse').toString();
  const text = Array.from({ length: 300 }, (_, n) => JSON.stringify({ n, body: tool })).join('\n');
  const out = await run([Buffer.from(text)]);
  t.same(
    out.map((o) => o.n),
    Array.from({ length: 300 }, (_, n) => n),
  );
});
