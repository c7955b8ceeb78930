/**
 * lib/records/fast-body.ts: a long record line's text capture taken from its
 * bytes gives the record output the ordinary path gives (the same line as a
 * string, which is parsed whole), on every shape of line it takes and every
 * one it must leave to the ordinary path.
 */
import t from 'tap';
import type { Test } from 'tap';
import { processRecord } from '../../lib/records/record.js';
import { resolveRecordsOptions } from '../../lib/records/options.js';
import { splitBody, FAST_BODY_MIN } from '../../lib/records/fast-body.js';
import { corpusFiles } from '../helpers/corpus.js';

const options = resolveRecordsOptions({}, new AbortController().signal);

async function same(t: Test, line: string | Buffer, what: string, taken: boolean, parts = true): Promise<void> {
  const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
  const split = splitBody(bytes, 'body');
  t.equal(split !== null, taken, `${what}: ${taken ? 'taken from the bytes' : 'left to the ordinary path'}`);
  if (split !== null && parts) {
    // the parts themselves: the body's UTF-8 and the other members, as JSON.parse of the whole line has them
    const whole = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    t.ok(split.body.equals(Buffer.from(whole['body'] as string, 'utf8')), `${what}: the body's bytes`);
    const { body: _body, ...others } = whole;
    t.same(JSON.parse(Buffer.from(split.rest).toString('utf8')), others, `${what}: the other members`);
  }
  const fast = await processRecord(bytes, options);
  // a string line is parsed whole, as before
  const ordinary = await processRecord(typeof line === 'string' ? line : line.toString('utf8'), options);
  t.same(fast, ordinary, `${what}: the same output`);
}

const capture = corpusFiles(['anthropic-messages']).find((f) => f.bytes.length > FAST_BODY_MIN)!;
const text = capture.bytes.toString('utf8');
const json = JSON.stringify(text);
const pad = 'x'.repeat(FAST_BODY_MIN);

t.test('lines it takes: the body anywhere among other fields, any spacing, every escape', async (t) => {
  await same(t, `{"body":${json}}`, 'body alone', true);
  await same(t, `{"id":1,"body":${json},"meta":{"body":"nested","a":[1,{"b":"}"}]},"z":null}`, 'body in the middle, a nested body field', true);
  await same(t, `{"body":${json},"id":"a\\"b"}`, 'body first', true);
  await same(t, `{"id":[1,2,3],"body":${json}}`, 'body last', true);
  await same(t, ` \t{ "id" : 1 , "body" : ${json} , "n" : -1.5e3 }  `, 'spaces everywhere', true);
  const every = `${pad} \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20ac \\ud83d\\ude42 \\uD83D\\uDE42 caf\u00e9 \u6771\u4eac \ud83d\ude42`;
  await same(t, `{"body":"${every}","path":null}`, 'every escape, raw UTF-8, a null path field', true);
  await same(t, `{"body":""}`, 'a short line', false);
});

t.test('lines left to the ordinary path (its answer, errors included)', async (t) => {
  await same(t, `{"body":"${pad}\\ud83d ${pad}"}`, 'a lone high surrogate', false);
  await same(t, `{"body":"${pad}\\ude42"}`, 'a lone low surrogate', false);
  await same(t, `{"body":"${pad}\t"}`, 'a raw control character (not JSON)', false);
  await same(t, `{"body":"${pad}\\x"}`, 'a bad escape (not JSON)', false);
  await same(t, `{"body":${json},"body":"second"}`, 'the field twice (JSON.parse keeps the last)', false);
  // (split, but its rest still names the field: processRecord sends the line the ordinary way)
  await same(t, `{"body":"first","bo\\u0064y":${json}}`, 'the field again, spelled with an escape', true, false);
  await same(t, `{"body":${json},"path":"/etc/hosts"}`, 'a path too (ambiguous)', true);
  await same(t, `{"body":${json},"body_base64":"aGk="}`, 'base64 too (ambiguous)', true);
  await same(t, `{"body":${json}`, 'no closing brace', false);
  await same(t, `{"body":${json} "id":1}`, 'a missing comma', false);
  await same(t, `{"body":${json},}`, 'a trailing comma', false);
  await same(t, `{"body":${json}} x`, 'text after the object', false);
  await same(t, `[{"body":${json}}]`, 'an array', false);
  await same(t, `{"body":{"text":${json}}}`, 'a body that is not a string', false);
  await same(t, `\ufeff{"body":${json}}`, 'a BOM', false);
  // (bytes that are not UTF-8 have no string form to compare with: the line is simply not taken)
  t.equal(splitBody(Buffer.concat([Buffer.from(`{"body":"${pad}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), 'body'), null, 'invalid UTF-8: left to the ordinary path');
  await same(t, `{"other":${json}}`, 'no body field', false);
});

t.test('every corpus capture as a record line: the same output', async (t) => {
  let taken = 0;
  for (const f of corpusFiles()) {
    const line = `{"id":${JSON.stringify(f.name)},"body":${JSON.stringify(f.bytes.toString('utf8'))},"n":1}`;
    const bytes = Buffer.from(line, 'utf8');
    const split = splitBody(bytes, 'body');
    if (split !== null) {
      taken++;
      if (!split.body.equals(f.bytes) && f.bytes.toString('utf8') === new TextDecoder().decode(f.bytes)) t.fail(`${f.name}: the body's bytes differ`);
    }
    const fast = await processRecord(bytes, options);
    const ordinary = await processRecord(line, options);
    if (JSON.stringify(fast) !== JSON.stringify(ordinary)) t.fail(`${f.name}: differs`);
  }
  t.ok(taken > 50, `${taken} captures taken from the bytes`);
});
