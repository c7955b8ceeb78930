/**
 * records(): one output record per input record, in order, under every kind
 * of bad input; the other fields kept; finals equal to finals() of the same
 * capture, for every corpus file given as body, body_base64 and path.
 */
import t from 'tap';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { finals, records, RecordsTransform, type FinalResult, type RecordOutput, type RecordsOptions } from '../../lib/index.js';
import { OptionError } from '../../lib/errors.js';
import { corpusFiles, fixture, repoRoot } from '../helpers/corpus.js';

const tool = fixture('quickstart/anthropic-tool-use.sse');
const dir = mkdtempSync(join(tmpdir(), 'wirefold-records-'));

async function finalsOf(bytes: Buffer, options: Parameters<typeof finals>[1] = {}): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  for await (const f of finals([bytes], options)) out.push(f);
  return out;
}

/** The outputs of records() over `chunks` (written as they are). */
async function run(chunks: unknown[], options?: RecordsOptions): Promise<RecordOutput[]> {
  const out: RecordOutput[] = [];
  await pipeline(Readable.from(chunks, { objectMode: true }), records(options), async (source: AsyncIterable<RecordOutput>) => {
    for await (const r of source) out.push(r);
  });
  return out;
}

const line = (o: unknown): string => JSON.stringify(o) + '\n';

t.test('records() is a Node Transform in object mode', (t) => {
  const s = records();
  t.ok(s instanceof Transform, 'instanceof stream.Transform');
  t.ok(s instanceof RecordsTransform);
  t.ok(s.readableObjectMode && s.writableObjectMode);
  s.destroy();
  t.end();
});

t.test('one output per input, in order, under every kind of bad input; the other fields kept', async (t) => {
  const want = await finalsOf(tool);
  const input = [
    line({ id: 'a', user: { n: 1 }, body: tool.toString() }),
    '\n', // blank
    '   \r\n', // blank, CRLF
    'not json\n',
    '[1,2,3]\n',
    '"a string"\n',
    'null\n',
    '{"id":"trunc"\n',
    line({ id: 'b' }),
    line({ id: 'c', path: join(dir, 'nope.sse') }),
    line({ id: 'd', path: dir }),
    line({ id: 'e', body_base64: 'not*base64' }),
    line({ id: 'f', body_base64: 'QUJD=' }), // padded to no multiple of 4
    line({ id: 'g', body: 42 }),
    line({ id: 'h', body: 'x', path: 'y' }),
    line({ id: 'i', body: null, body_base64: tool.toString('base64') }),
    line({ id: 'j', path: '' }),
    Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]), // {"\xff"}: not UTF-8
    line({ id: 'k', body: '' }), // an empty capture: no response, no error
    line({ id: 'l', body_base64: tool.toString('base64url').replace(/=+$/, '') }),
    line({ id: 'last', path: relative(repoRoot, join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse')) }),
  ];
  const out = await run(input, { cwd: repoRoot });
  t.equal(out.length, input.length, 'one output per input line');
  const codes = out.map((o) => (o.error === undefined ? 'ok' : o.error.code));
  t.same(codes, [
    'ok',
    'invalid_record',
    'invalid_record',
    'invalid_record',
    'invalid_record',
    'invalid_record',
    'invalid_record',
    'invalid_record',
    'missing_body',
    'unreadable_path',
    'unreadable_path',
    'invalid_base64',
    'invalid_base64',
    'invalid_body',
    'ambiguous_body',
    'ok',
    'unreadable_path',
    'invalid_record',
    'ok',
    'ok',
    'ok',
  ]);
  t.same(out[0], { id: 'a', user: { n: 1 }, finals: want }, 'other fields first, in order, then finals; no body');
  t.same(Object.keys(out[0]!), ['id', 'user', 'finals']);
  t.match(out[1]!.error!.message, /blank line/);
  t.match(out[4]!.error!.message, /an array, not a JSON object/);
  t.match(out[6]!.error!.message, /null, not a JSON object/);
  t.same(Object.keys(out[3]!), ['error'], 'a line that is no record has no other fields');
  t.same(out[8], { id: 'b', error: { code: 'missing_body', message: 'the record has none of the fields "body", "body_base64" or "path"' } });
  t.equal(out[9]!.error!.message, `${join(dir, 'nope.sse')}: no such file or directory`, 'the OS reason');
  t.equal(out[10]!.error!.message, `${dir}: is a directory`);
  t.same(out[15], { id: 'i', finals: want }, 'null counts as absent');
  t.match(out[17]!.error!.message, /UTF-8/);
  t.same(out[18], { id: 'k', finals: [] });
  t.same(out[19], { id: 'l', finals: want }, 'URL-safe base64 without padding');
  t.same(out[20], { id: 'last', finals: want }, 'a relative path, against cwd');
  for (const o of out) t.ok((o.finals === undefined) !== (o.error === undefined), 'exactly one of finals and error');
});

t.test('a capture whose stream has errors is not a bad record: its finals carry them', async (t) => {
  const broken = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude","usage":{}}}\n\ndata: {oops\n\n';
  const [out] = await run([line({ id: 1, body: broken })]);
  t.equal(out!.error, undefined);
  t.same(out!.finals, await finalsOf(Buffer.from(broken)));
  t.ok(out!.finals!.some((f) => f.errors.length > 0), 'errors inside the finals');
  t.same((await run([line({ body: '<html>hi</html>' })]))[0]!.finals![0]?.errors.map((e) => e.code), ['not_a_stream']);
});

t.test('strict and limits: the StreamError finals() throws is the record error, its code kept; the next record goes on', async (t) => {
  const out = await run([line({ id: 1, body: '<html>hi</html>' }), line({ id: 2, body: tool.toString() })], { strict: true });
  t.equal(out[0]!.error!.code, 'not_a_stream');
  t.match(out[0]!.error!.message, /^not_a_stream/);
  t.same(out[1]!.finals, await finalsOf(tool));
  const limited = await run([line({ id: 1, body: tool.toString() })], { maxTextBytes: 5 });
  t.equal(limited[0]!.error!.code, 'limit_exceeded');
  t.same(Object.keys(limited[0]!), ['id', 'error']);
});

t.test('decoding options pass through (dialect, framing)', async (t) => {
  const [forced] = await run([line({ body: tool.toString() })], { dialect: 'openai-chat' });
  t.same(forced!.finals, await finalsOf(tool, { dialect: 'openai-chat' }));
  const [framed] = await run([line({ body: tool.toString() })], { framing: 'ndjson' });
  t.same(framed!.finals, await finalsOf(tool, { framing: 'ndjson' }));
});

t.test('field names are configurable; the output names are reserved', async (t) => {
  const want = await finalsOf(tool);
  const names = { bodyField: 'raw', base64Field: 'b64', pathField: 'file', finalsField: 'results', errorField: 'problem' };
  const out = await run(
    [
      line({ id: 1, raw: tool.toString(), body: 'kept: not the capture field any more' }),
      line({ id: 2, b64: tool.toString('base64') }),
      line({ id: 3, file: join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse') }),
      line({ id: 4, body: 'x' }),
    ],
    names,
  );
  t.same(out[0], { id: 1, body: 'kept: not the capture field any more', results: want });
  t.same(out[1], { id: 2, results: want });
  t.same(out[2], { id: 3, results: want });
  t.equal((out[3]!.problem as { code: string }).code, 'missing_body');
  t.match((out[3]!.problem as { message: string }).message, /"raw", "b64" or "file"/);
  // an input field named as an output field is left out: each output has exactly one of the two
  const [own] = await run([line({ id: 1, finals: 'old', error: 'upstream failed', body: tool.toString() })]);
  t.same(own, { id: 1, finals: want });
  const [own2] = await run([line({ id: 1, finals: 'old', error: 'upstream' })]);
  t.same(Object.keys(own2!), ['id', 'error']);
  t.equal(own2!.error!.code, 'missing_body');
});

t.test('a field named __proto__ stays a field', async (t) => {
  const [out] = await run(['{"__proto__":{"x":1},"body":""}\n']);
  t.same(Object.keys(out!), ['__proto__', 'finals']);
  t.equal(Object.getPrototypeOf(out), Object.prototype);
  t.equal(JSON.stringify(out), '{"__proto__":{"x":1},"finals":[]}');
});

t.test('records already parsed (objects) and input: "lines"', async (t) => {
  const want = await finalsOf(tool);
  const objects = await run([{ id: 1, body: tool.toString() }, [1, 2], 7, { id: 2 }]);
  t.same(objects.map((o) => o.error?.code ?? 'ok'), ['ok', 'invalid_record', 'invalid_record', 'missing_body']);
  t.same(objects[0], { id: 1, finals: want });
  // lines mode: a chunk is a record, with or without its line ending; an empty chunk is a blank line
  const lines = await run([JSON.stringify({ id: 1, body: tool.toString() }), line({ id: 2 }), '', '{"id":3}\r\n', Buffer.from('{"id":4}')], { input: 'lines' });
  t.same(lines.map((o) => o.id ?? o.error?.code), [1, 2, 'invalid_record', 3, 4]);
  // bytes mode: the same chunks without their line endings run together (the default reads a byte stream)
  t.equal((await run([JSON.stringify({ id: 1 }), JSON.stringify({ id: 2 })])).length, 1);
  // an object after bytes that did not end their line: that line first, then the object
  const mixed = await run(['{"id":1}', { id: 2 }, '{"id":3}\n']);
  t.same(mixed.map((o) => o.id), [1, 2, 3]);
});

t.test('a huge body, and a line past maxRecordBytes: one output line each, the next records unharmed', async (t) => {
  // a log of many responses in one body (~8 MB)
  const big = Buffer.concat(Array.from({ length: 40 }, () => corpusFiles(['anthropic-messages']).find((f) => f.name.endsWith('pause-turn.sse'))!.bytes));
  const want = await finalsOf(big);
  t.equal(want.length, 40);
  const text = line({ id: 'big', body: big.toString() });
  const out = await run([text, line({ id: 'next', body: tool.toString() })]);
  t.equal(out.length, 2);
  t.same(out[0], { id: 'big', finals: want });
  t.same(out[1]!.finals, await finalsOf(tool));
  // past the limit: skipped without being held, in pieces across chunks
  const pieces = [line({ id: 0 }), ...Array.from({ length: 30 }, (_, i) => text.slice(i * 300_000, (i + 1) * 300_000)), text.slice(30 * 300_000), line({ id: 2 })];
  t.equal(pieces.join(''), line({ id: 0 }) + text + line({ id: 2 }));
  const limited = await run(pieces, { maxRecordBytes: 1 << 20 });
  t.same(limited.map((o) => o.id ?? o.error?.code), [0, 'record_too_large', 2]);
  t.match(limited[1]!.error!.message, new RegExp(`^the record line is ${Buffer.byteLength(text) - 1} bytes, more than maxRecordBytes \\(1048576\\)$`));
  const asLine = await run([text.trimEnd(), '{"id":2}'], { maxRecordBytes: 1 << 20, input: 'lines' });
  t.same(asLine.map((o) => o.id ?? o.error?.code), ['record_too_large', 2]);
});

t.test('every corpus file as a record, as body, body_base64 and path: finals equal finals() of the same capture', async (t) => {
  const files = corpusFiles();
  t.ok(files.length > 100, `${files.length} corpus files`);
  const input: string[] = [];
  for (const f of files) {
    input.push(line({ name: f.name, how: 'body', body: f.bytes.toString('utf8') }));
    input.push(line({ name: f.name, how: 'base64', body_base64: f.bytes.toString('base64') }));
    input.push(line({ name: f.name, how: 'path', path: f.path }));
  }
  const out = await run([input.join('')]);
  t.equal(out.length, input.length);
  let i = 0;
  for (const f of files) {
    const want = await finalsOf(f.bytes);
    const fromText = await finalsOf(Buffer.from(f.bytes.toString('utf8')));
    for (const how of ['body', 'base64', 'path']) {
      const o = out[i++]!;
      t.same(o.name, f.name);
      t.same(o.how, how);
      if (!t.same(o.finals, how === 'body' ? fromText : want, `${f.name} as ${how}`)) break;
    }
  }
});

t.test('options are checked at the call', (t) => {
  t.throws(() => records({ bodyFeild: 'x' } as RecordsOptions), /unknown option "bodyFeild" for records\(\) \(did you mean "bodyField"\?\)/);
  t.throws(() => records({ signal: AbortSignal.timeout(1) } as RecordsOptions), OptionError, 'no signal: destroy() stops it');
  t.throws(() => records({ bodyField: '' }), OptionError);
  t.throws(() => records({ bodyField: 'path' }), /three different names/);
  t.throws(() => records({ finalsField: 'error' }), /different names/);
  t.throws(() => records({ concurrency: 0 }), OptionError);
  t.throws(() => records({ concurrency: 1.5 }), OptionError);
  t.throws(() => records({ maxRecordBytes: -1 }), OptionError);
  t.throws(() => records({ input: 'json' as 'lines' }), OptionError);
  t.throws(() => records({ dialect: 'nope' as 'gemini' }), OptionError, 'decoding options too');
  t.throws(() => records({ output: 'events' } as RecordsOptions), OptionError, 'no output mode: records hold finals');
  t.doesNotThrow(() => records({ maxRecordBytes: Infinity, concurrency: 1, strict: true, fastPath: false }).destroy());
  t.end();
});

t.test('a record file written to disk and read by path, relative to cwd', async (t) => {
  writeFileSync(join(dir, 'cap.sse'), tool);
  const out = await run([line({ path: 'cap.sse' }), line({ path: './cap.sse' })], { cwd: dir });
  t.same(out, [{ finals: await finalsOf(tool) }, { finals: await finalsOf(tool) }]);
});
