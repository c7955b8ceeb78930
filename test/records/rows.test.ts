/**
 * finalToRow / recordToRows: the same columns, in the same order, for every
 * final of every corpus file (every dialect); null for unknown numbers,
 * never a missing column.
 */
import t from 'tap';
import { finals, finalToRow, recordToRows, ROW_COLUMNS, type FinalResult } from '../../lib/index.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';

const COLUMNS = [
  'dialect',
  'id',
  'model',
  'stopReason',
  'providerReason',
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'reasoningTokens',
  'cachedInputTokens',
  'textLength',
  'reasoningLength',
  'toolCallCount',
  'toolNames',
  'errorCodes',
  'hasAudio',
  'streamId',
  'agent',
  'kind',
  'session',
  'turn',
];

async function finalsOf(bytes: Buffer): Promise<FinalResult[]> {
  const out: FinalResult[] = [];
  for await (const f of finals([bytes])) out.push(f);
  return out;
}

t.test('every corpus file: every row has exactly the same columns, in order, each of its type', async (t) => {
  t.same([...ROW_COLUMNS], COLUMNS);
  const dialects = new Set<string | null>();
  let rows = 0;
  for (const f of corpusFiles()) {
    for (const final of await finalsOf(f.bytes)) {
      const row = finalToRow(final);
      rows++;
      dialects.add(row.dialect);
      if (!t.same(Object.keys(row), COLUMNS, f.name)) return;
      for (const k of ['dialect', 'id', 'model', 'providerReason'] as const) t.ok(row[k] === null || typeof row[k] === 'string', `${f.name} ${k}`);
      t.type(row.stopReason, 'string');
      for (const k of ['inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens', 'cachedInputTokens'] as const) {
        t.ok(row[k] === null || Number.isFinite(row[k]), `${f.name} ${k}`);
      }
      for (const k of ['textLength', 'reasoningLength', 'toolCallCount'] as const) t.ok(Number.isInteger(row[k]) && row[k] >= 0);
      t.ok(Array.isArray(row.toolNames) && row.toolNames.every((n) => typeof n === 'string'));
      t.ok(Array.isArray(row.errorCodes) && row.errorCodes.every((n) => typeof n === 'string'));
      t.type(row.hasAudio, 'boolean');
      t.same(JSON.parse(JSON.stringify(row)), row, 'survives JSON as it is (no undefined)');
      // the values say what the final says
      t.equal(row.toolCallCount, final.toolCalls.length);
      t.same(row.toolNames, final.toolCalls.map((c) => c.name));
      t.same(row.errorCodes, final.errors.map((e) => e.code));
      t.equal(row.inputTokens, final.usage.inputTokens);
      t.equal(row.hasAudio, final.audio !== null);
    }
  }
  t.ok(rows > 130, `${rows} rows`);
  t.ok(dialects.size >= 8, `${dialects.size} dialects`);
});

t.test('a row of the quickstart capture', async (t) => {
  const [final] = await finalsOf(fixture('quickstart/anthropic-tool-use.sse'));
  t.same(finalToRow(final!), {
    dialect: 'anthropic-messages',
    id: 'msg_01QuickStart',
    model: 'claude-sonnet-4-5',
    stopReason: 'tool_use',
    providerReason: 'tool_use',
    inputTokens: 1436,
    outputTokens: 87,
    totalTokens: 1523,
    reasoningTokens: null,
    cachedInputTokens: 1024,
    textLength: [...final!.text].length, // it has an emoji: one character, two UTF-16 units
    reasoningLength: [...final!.reasoning].length,
    toolCallCount: 1,
    toolNames: ['get_weather'],
    errorCodes: [],
    hasAudio: false,
    streamId: null,
    agent: null,
    kind: 'response',
    session: null,
    turn: null,
  });
});

t.test('text lengths count characters (code points), not UTF-16 units', (t) => {
  const final = { text: 'a👋é', reasoning: '🎉🎉', toolCalls: [], errors: [], audio: null, usage: {} } as unknown as FinalResult;
  const row = finalToRow(final);
  t.equal(row.textLength, 3);
  t.equal(row.reasoningLength, 2);
  t.equal(finalToRow({ ...final, text: '\ud83d' }).textLength, 1, 'a lone surrogate is one');
  t.end();
});

t.test('recordToRows: a row per final with the record fields prefixed; one row for a record with none', async (t) => {
  const fs = await finalsOf(Buffer.concat([fixture('quickstart/anthropic-tool-use.sse'), fixture('quickstart/anthropic-tool-use.sse')]));
  t.equal(fs.length, 2);
  const rows = recordToRows({ id: 'r1', error: undefined, finals: fs } as never);
  t.equal(rows.length, 2);
  t.same(Object.keys(rows[0]!), ['record_id', 'recordErrorCode', 'recordErrorMessage', 'finalIndex', ...COLUMNS]);
  t.same(
    rows.map((r) => r.finalIndex),
    [0, 1],
  );
  t.same(rows[1], { record_id: 'r1', recordErrorCode: null, recordErrorMessage: null, finalIndex: 1, ...finalToRow(fs[1]!) });

  const bad = recordToRows({ id: 'r2', error: { code: 'missing_body', message: 'none' } });
  t.equal(bad.length, 1);
  t.same(Object.keys(bad[0]!), ['record_id', 'recordErrorCode', 'recordErrorMessage', 'finalIndex', ...COLUMNS]);
  t.same(bad[0], {
    record_id: 'r2',
    recordErrorCode: 'missing_body',
    recordErrorMessage: 'none',
    finalIndex: null,
    ...Object.fromEntries(COLUMNS.map((c) => [c, c === 'toolNames' || c === 'errorCodes' ? [] : null])),
  });
  const empty = recordToRows({ id: 'r3', finals: [] });
  t.equal(empty.length, 1, 'a capture with no response: one row');
  t.equal(empty[0]!.recordErrorCode, null);
  t.equal(empty[0]!.finalIndex, null);

  // a record field named as a column stays apart from it
  const clash = recordToRows({ dialect: 'mine', error: { code: 'x', message: 'y' } }, { prefix: 'r.' });
  t.equal(clash[0]!['r.dialect'], 'mine');
  t.equal(clash[0]!.dialect, null);
  const renamed = recordToRows({ id: 1, results: fs.slice(0, 1) }, { finalsField: 'results' });
  t.equal(renamed.length, 1);
  t.equal(renamed[0]!.finalIndex, 0);
  t.end();
});

t.test("an agent session: its turns are rows of kind 'response', its summary one row of kind 'session'", async (t) => {
  const rows = (await finalsOf(fixture('claude-agent-sdk/stream-json-partial.ndjson'))).map(finalToRow);
  t.same(rows.map((r) => [r.kind, r.turn, r.session]), [
    ['response', 'msg_01A', '3f1c2a9e-5b7d-4e21-9a0c-7d8e6f5a4b3c'],
    ['response', 'msg_01B', '3f1c2a9e-5b7d-4e21-9a0c-7d8e6f5a4b3c'],
    ['session', null, '3f1c2a9e-5b7d-4e21-9a0c-7d8e6f5a4b3c'],
  ]);
  const turns = rows.filter((r) => r.kind === 'response').reduce((sum, r) => sum + (r.outputTokens ?? 0), 0);
  t.same([turns, rows[2]!.outputTokens], [54, 54], "the turns' output tokens, or the session's: the same total, to be taken once");
});
