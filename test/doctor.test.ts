import t from 'tap';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { createDiagnosis, formatReport, type InputReport, type JsonReport } from '../lib/doctor/index.js';
import { decodeAll } from '../lib/pipeline/events-stage.js';
import type { FinalResult } from '../lib/accumulate/types.js';
import { corpusDir, corpusFiles, fixture, repoRoot } from './helpers/corpus.js';
import { quickChunkings, randomChunks } from './helpers/chunks.js';
import { runCli } from './helpers/cli.js';

const run = runCli;

const fx = (name: string): string => join(repoRoot, 'fixtures', 'doctor', name);
const bytesOf = (name: string): Buffer => fixture(`doctor/${name}`);
/** Byte offset of the SSE block that holds `needle`. */
function blockAt(buf: Buffer, needle: string): number {
  const hit = buf.indexOf(needle);
  const before = buf.subarray(0, hit).toString('latin1');
  const blank = Math.max(before.lastIndexOf('\n\n'), before.lastIndexOf('\r\n\r\n'));
  if (blank < 0) return 0;
  return blank + (before.startsWith('\r\n', blank) ? 4 : 2);
}

function report(buf: Buffer, name = 'x', chunks: Buffer[] = [buf]): InputReport {
  const d = createDiagnosis({ name });
  for (const c of chunks) d.push(c);
  return d.end();
}

// ---------------------------------------------------------------------------
// one fixture per anomaly

t.test('a clean stream: one compact response report, exit 0', async (t) => {
  const r = await run(['doctor', fx('clean-chat.sse')]);
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  t.equal(
    r.stdout,
    [
      `${fx('clean-chat.sse')}: 919 bytes, 6 frames, framing sse, dialect openai-chat, 1 response`,
      '  response 1: id chatcmpl-doc1, model gpt-4o-mini, frames 0-5 from byte 0',
      '    events: start 1, raw 2, text_delta 2, usage 1, done 1',
      '    stop: end (stop)',
      '    usage: input 12, output 3, total 15',
      '  result: ok',
      '',
    ].join('\n'),
  );
});

t.test('missing terminal: incomplete_stream at the end of input, exit 1', async (t) => {
  const size = bytesOf('anthropic-cut.sse').length;
  const r = await run(['doctor', fx('anthropic-cut.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error incomplete_stream at byte ${size} (end of input): input ended before the response's terminal event\n`);
  t.match(r.stdout, '    stop: error\n');
  t.match(r.stdout, '  result: 1 error, 0 warnings\n');
});

t.test('a provider error mid-stream, at the byte offset of its event', async (t) => {
  const buf = bytesOf('anthropic-overloaded.sse');
  const at = blockAt(buf, '"type":"error"');
  t.equal(at, 480);
  const r = await run(['doctor', fx('anthropic-overloaded.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error provider_error at byte ${at} (frame 3): overloaded_error: Overloaded\n`);
  t.notMatch(r.stdout, 'incomplete_stream', 'the error event is the terminal: nothing is missing');
});

t.test('a Chat stream ended by an error event without [DONE]: provider error and missing terminal', async (t) => {
  const buf = bytesOf('chat-error-no-done.sse');
  const r = await run(['doctor', fx('chat-error-no-done.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error provider_error at byte ${blockAt(buf, 'event: error')} (frame 2): tool_use_failed: Tool call validation failed\n`);
  t.match(r.stdout, `    error missing_terminal at byte ${buf.length} (end of input): the stream ended without \`data: [DONE]\`\n`);
  t.match(r.stdout, '  result: 2 errors, 0 warnings\n');
});

t.test('a complete Chat stream without [DONE]: the dialect\'s missing_terminal, filed once, and the stop reason kept', async (t) => {
  const buf = fixture('openai-chat/no-done-after-finish.sse');
  const r = report(buf);
  const [response] = r.responses;
  t.same(
    response!.anomalies.map((a) => [a.code, a.severity, a.at?.offset, a.atEnd]),
    [['missing_terminal', 'error', buf.length, true]],
    'one anomaly, at the end of input (not a second one from the [DONE] check)',
  );
  t.match(response!.anomalies[0]!.message, "after every choice's finish_reason: the response is complete");
  t.equal(response!.stopReason, 'end');
  t.equal(response!.providerReason, 'stop');
  t.match(formatReport(r), '    stop: end (stop)\n');
  // Cut before the finish_reason: incomplete_stream, and no missing_terminal on top of it.
  const cut = report(buf.subarray(0, buf.indexOf('data: ', buf.indexOf('" of France."') - 300)));
  t.same(cut.responses[0]!.anomalies.map((a) => a.code), ['incomplete_stream']);
});

t.test('n > 1: the one done gives the stop reasons of the other choices', async (t) => {
  const r = report(fixture('openai-chat/n2.sse'));
  t.equal(r.responses.length, 1);
  t.same(r.responses[0]!.choiceStops, [{ choice: 1, stopReason: 'max_tokens', providerReason: 'length' }]);
  t.match(formatReport(r), '    stop: end (stop); choice 1: max_tokens (length)\n');
  t.same(r.responses[0]!.counts['done'], 1);
});

t.test('sequence gap: error at the frame where numbers jump', async (t) => {
  const buf = bytesOf('responses-gap.sse');
  const at = blockAt(buf, '"sequence_number":6');
  const r = await run(['doctor', fx('responses-gap.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error sequence_gap at byte ${at} (frame 4): sequence_number 6 after 3: 2 event(s) missing\n`);
  t.match(r.stdout, '    stop: end (completed)\n', 'the response itself completed');
});

t.test('invalid JSON is an error, a text frame that is not JSON a warning', async (t) => {
  const buf = bytesOf('chat-invalid-json.sse');
  const r = await run(['doctor', fx('chat-invalid-json.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error invalid_json at byte ${blockAt(buf, '"content":"lo')} (frame 1): broken JSON payload: {"id":"chatcmpl-doc1"`);
  t.match(r.stdout, `    warning not_json at byte ${blockAt(buf, 'keep-alive')} (frame 2): frame is not JSON: "keep-alive"\n`);
  t.match(r.stdout, '    stop: end (stop)\n');
  t.match(r.stdout, '  result: 1 error, 1 warning\n');
});

t.test('repeats of one anomaly fold into its first line, with the count and where the last one was', async (t) => {
  const chunk = '{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}';
  const frames = [chunk, chunk.slice(0, 30), chunk.slice(0, 20), chunk.slice(0, 25), '[DONE]'];
  const input = frames.map((f) => `data: ${f}\n\n`).join('');
  const at = (i: number): number => frames.slice(0, i).reduce((n, f) => n + `data: ${f}\n\n`.length, 0);
  const r = await run(['doctor'], input);
  t.equal(r.code, 1);
  t.match(r.stdout, `    error invalid_json at byte ${at(1)} (frame 1): broken JSON payload: ${frames[1]}`);
  t.match(r.stdout, `(+2 more, last at byte ${at(3)})\n`, 'three invalid frames: one line, +2 more, the last one placed');
  t.match(r.stdout, 'result: 3 errors, 0 warnings\n');
});

t.test('a JSON array cut off: the framer error at its end and the incomplete_stream of the open response, both at the end', async (t) => {
  const input = '[{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]},\n{"candidates":';
  const r = await run(['doctor'], input);
  t.equal(r.code, 1);
  t.match(r.stdout, `error incomplete_stream at byte ${input.length} (where reading stopped)`);
  t.match(r.stdout, `error invalid_json_array at byte ${input.length} (frame 1): invalid JSON array: expected 1 more closing bracket, found end of input`);
  t.match(r.stdout, 'result: 2 errors, 0 warnings\n');
});

t.test('invalid UTF-8 is an error at the frame holding it', async (t) => {
  const r = await run(['doctor', fx('chat-invalid-utf8.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, '    error invalid_utf8 at byte 0 (frame 0): invalid UTF-8 replaced with U+FFFD\n');
});

t.test('Gemini: repeated usageMetadata (naive sum vs right) and signatures at risk, warnings only', async (t) => {
  const buf = bytesOf('gemini-usage-signatures.sse');
  const second = blockAt(buf, 'functionCall');
  const third = blockAt(buf, 'c2lnLWVtcHR5');
  const r = await run(['doctor', fx('gemini-usage-signatures.sse')]);
  t.equal(r.code, 0, 'warnings do not fail');
  t.match(
    r.stdout,
    `    warning usage_repeated at byte ${second} (frame 1): usageMetadata on 3 chunks (running totals): summing gives ` +
      'promptTokenCount 30, candidatesTokenCount 22, totalTokenCount 52; right is the last: 10, 9, 19\n',
  );
  t.match(r.stdout, `    warning signature_on_function_call at byte ${second} (frame 1): thoughtSignature on 1 functionCall part`);
  t.match(r.stdout, `    warning signature_on_empty_part at byte ${third} (frame 2): thoughtSignature on 1 part with empty text`);
  t.match(r.stdout, '    usage: input 10, output 9, total 19\n', 'wirefold itself reports the right usage');
  t.match(r.stdout, '  result: 0 errors, 3 warnings\n');
});

t.test('Anthropic: usage in message_start and message_delta (naive sum vs right)', async (t) => {
  const buf = bytesOf('anthropic-usage.sse');
  const r = await run(['doctor', fx('anthropic-usage.sse')]);
  t.equal(r.code, 0);
  t.match(
    r.stdout,
    `    warning usage_split at byte ${blockAt(buf, '"message_delta"')} (frame 5): usage in message_start and message_delta: ` +
      'summing gives input_tokens 60, output_tokens 9; right (message_delta is cumulative): 30, 7\n',
  );
  t.match(r.stdout, '    usage: input 30, output 7, total 37\n');
});

t.test('xAI /v1/messages: a content block index used twice', async (t) => {
  const buf = bytesOf('xai-messages-index-reuse.sse');
  const second = buf.indexOf('event: content_block_start', buf.indexOf('event: content_block_start') + 1);
  t.equal(second, 576);
  const r = await run(['doctor', fx('xai-messages-index-reuse.sse')]);
  t.equal(r.code, 0);
  t.match(r.stdout, 'dialect xai-messages');
  t.match(r.stdout, `    warning block_index_reuse at byte ${second} (frame 4): content_block_start reuses index 0 (1 time)`);
  t.match(r.stdout, '    events: start 1, raw 5, reasoning_delta 1, text_delta 1, usage 1, done 1\n', 'the blocks stay apart');
});

t.test('trailing data after the last terminal event', async (t) => {
  const buf = bytesOf('anthropic-trailing.sse');
  const r = await run(['doctor', fx('anthropic-trailing.sse')]);
  t.equal(r.code, 0);
  t.match(r.stdout, `  warning trailing_data at byte ${blockAt(buf, '"ping"')} (frame 6): 1 frame after the last response's terminal event (first: ping)\n`);
  t.match(r.stdout, '  outside responses: raw 1\n');
});

t.test('unknown dialect', async (t) => {
  const r = await run(['doctor', fx('unknown.ndjson')]);
  t.equal(r.code, 1);
  t.match(r.stdout, 'framing json-values, dialect none detected, 0 responses');
  t.match(r.stdout, '  error unknown_dialect at byte 75 (end of input): could not tell the dialect from the first 3 payloads\n');
});

// fixtures/doctor/realtime-transcription-session.jsonl is hand-written (no
// capture of ours): a Realtime transcription session (session.type
// "transcription") in the GA event shapes of openai-node's realtime types
// (input_audio_buffer.speech_started / speech_stopped / committed,
// conversation.item.input_audio_transcription.delta / completed), which the
// realtime dialect keeps as raw.
t.test('a stream the dialect reads nothing of (every payload raw): no_unified_events, a warning, never ok', async (t) => {
  // A Realtime transcription session before any transcription came: session and input buffer events only.
  const buf = Buffer.from(bytesOf('realtime-transcription-session.jsonl').toString('utf8').split('\n').slice(0, 4).join('\n') + '\n');
  const r = await run(['doctor', '-'], buf);
  t.equal(r.code, 0, 'a warning: the stream is not broken');
  t.match(r.stdout, 'dialect openai-realtime, 0 responses\n');
  t.match(r.stdout, '  outside responses: raw 4\n');
  t.match(r.stdout, `  warning no_unified_events at byte ${buf.length} (end of input): every payload was raw: the dialect reads nothing of this stream\n`);
  t.match(r.stdout, '  result: 0 errors, 1 warning\n');
  t.notMatch(r.stdout, 'result: ok');
  const json = await run(['doctor', '--json', '-'], buf);
  const parsed = JSON.parse(json.stdout) as JsonReport;
  t.same(parsed.anomalies.map((a) => [a.code, a.severity]), [['no_unified_events', 'warning']]);

  // The whole session used to be such a stream: its transcribed audio part is now a response, read, and ok.
  const session = await run(['doctor', fx('realtime-transcription-session.jsonl')]);
  t.match(session.stdout, 'dialect openai-realtime, 1 response');
  t.match(session.stdout, 'events: start 1, input_transcript 2, done 1');
  t.match(session.stdout, '  result: ok\n');

  // fixtures/doctor/realtime-translation.jsonl (hand-written from the spec's
  // shapes, shared/spec/next-wire.md A1) used to be such a stream: a
  // translation session is now one response, read, and ok.
  const translation = await run(['doctor', fx('realtime-translation.jsonl')]);
  t.match(translation.stdout, 'dialect openai-realtime, 1 response');
  t.match(translation.stdout, '  result: ok\n');
  t.notMatch(translation.stdout, 'no_unified_events');

  // A response cut off around raw payloads: incomplete_stream (an error) says more than this warning.
  const cut = report(Buffer.from(
    ['{"type":"session.created","session":{"id":"s1","model":"gpt-realtime"}}',
      '{"type":"response.created","response":{"id":"r1","status":"in_progress","output":[]}}',
      '{"type":"session.output_audio.delta","delta":"AAAA"}',
      '{"type":"session.closed"}'].join('\n'),
  ));
  t.same(cut.responses.map((x) => x.anomalies.map((a) => a.code)), [['incomplete_stream']]);
  t.same(cut.anomalies, []);
});

t.test('streams the dialect does read stay ok: no no_unified_events', async (t) => {
  const clean = await run(['doctor', fx('clean-chat.sse')]);
  t.match(clean.stdout, '  result: ok\n');
  // An empty Chat answer: start, raw (the role chunk, [DONE]) and done, but the done carries the provider's finish_reason.
  const empty = [
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    'data: [DONE]',
    '',
  ].join('\n\n');
  const r = report(Buffer.from(empty));
  t.same(r.responses[0]?.counts, { start: 1, raw: 2, done: 1 });
  t.same(r.responses[0]?.anomalies, []);
  t.same(r.anomalies, []);
  // no dialect at all: unknown_dialect says it, not this warning
  const unknown = await run(['doctor', fx('unknown.ndjson')]);
  t.notMatch(unknown.stdout, 'no_unified_events');
  const realtime = await run(['doctor', join(repoRoot, 'fixtures', 'openai-realtime', 'text-turn.jsonl')]);
  t.notMatch(realtime.stdout, 'no_unified_events');
});

t.test('a dialect given that the payloads are not: dialect_mismatch is an error, not a provider error', async (t) => {
  const r = await run(['doctor', '--dialect', 'anthropic-messages', join(repoRoot, 'fixtures', 'openai-chat', 'text-usage.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, '  error dialect_mismatch at byte 0 (frame 0): the payloads look like openai-chat, not anthropic-messages as asked');
  t.notMatch(r.stdout, 'provider_error');
});

t.test('fatal framing error: a broken JSON array stops the reading where it breaks', async (t) => {
  const buf = bytesOf('gemini-bad-array.json');
  const at = buf.indexOf('<html>');
  const r = await run(['doctor', fx('gemini-bad-array.json')]);
  t.equal(r.code, 1);
  t.match(r.stdout, `  error invalid_json_array at byte ${at} (frame 1): invalid JSON array: expected ',' or ']', found "<"`);
  t.match(r.stdout, `    error incomplete_stream at byte ${at} (where reading stopped)`);
  t.match(r.stdout, '    events: start 1, text_delta 1, usage 1, error 1, done 1\n', 'what came before is still reported');
});

t.test('fatal framing error: a frame larger than the limit', async (t) => {
  const first = Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"}}],"model":"gpt-4o","object":"chat.completion.chunk"}\n\n');
  const big = Buffer.concat([first, Buffer.from('data: "'), Buffer.alloc(9 * 1024 * 1024, 0x61)]);
  const r = await run(['doctor'], randomChunks(big, 7, 1 << 20));
  t.equal(r.code, 1);
  t.match(r.stdout, /^stdin: /);
  const at = first.length;
  t.match(r.stdout, `  error frame_too_large at byte ${at} (frame 1): frame exceeds maxFrameBytes (8388608 bytes); the rest of the input cannot be read\n`);
  t.match(r.stdout, `    error incomplete_stream at byte ${at} (where reading stopped)`);
  t.match(r.stdout, '    events: start 1, text_delta 1, error 1, done 1\n');
});

t.test('an empty input is an error', async (t) => {
  const r = await run(['doctor', fx('empty.sse')]);
  t.equal(r.code, 1);
  t.match(r.stdout, '  error no_frames at byte 0 (end of input): the input is empty\n');
});

t.test('an input of lines that are not SSE fields: no_frames names the first one', async (t) => {
  const r = await run(['doctor'], '<html>502 Bad Gateway</html>\n');
  t.equal(r.code, 1);
  t.match(r.stdout, 'error no_frames at byte 29 (end of input): no stream event in 29 bytes of input: the line at byte 0 is not an SSE field ("<html>502 Bad Gateway</html>")\n');
});

t.test('an anomaly line names its place once: the cause leaves out the byte and frame the line gives', async (t) => {
  const { readdirSync } = await import('node:fs');
  const files = readdirSync(join(repoRoot, 'fixtures', 'doctor')).map((f) => fx(f));
  const r = await run(['doctor', '--dialect', 'anthropic-messages', join(repoRoot, 'fixtures', 'openai-chat', 'text-usage.sse'), ...files]);
  const lines = r.stdout.split('\n').filter((l) => /^\s+(error|warning) /.test(l));
  t.ok(lines.length >= 10, `${lines.length} anomaly lines`);
  for (const line of lines) {
    for (const re of [/\bbyte \d+/g, /\bframe \d+/g]) {
      const said = line.match(re) ?? [];
      t.equal(new Set(said).size, said.length, line);
    }
  }
});

// ---------------------------------------------------------------------------
// inputs, options, output

t.test('several files: one report each, a total line, exit 1 when any has an error', async (t) => {
  const files = [fx('clean-chat.sse'), fx('anthropic-usage.sse'), fx('responses-gap.sse')];
  const r = await run(['doctor', ...files]);
  t.equal(r.code, 1);
  const heads = r.stdout.split('\n').filter((l) => l.startsWith(repoRoot));
  t.same(
    heads.map((l) => l.slice(0, l.indexOf(':'))),
    files,
  );
  t.match(r.stdout, '\ntotal: 3 inputs, 1 error, 1 warning\n');
  const ok = await run(['doctor', fx('clean-chat.sse'), fx('anthropic-usage.sse')]);
  t.equal(ok.code, 0, 'warnings alone exit 0');
  t.match(ok.stdout, '\ntotal: 2 inputs, 0 errors, 1 warning\n');
});

t.test('standard input: no file, or -', async (t) => {
  const buf = bytesOf('clean-chat.sse');
  for (const argv of [['doctor'], ['doctor', '-']]) {
    const r = await run(argv, [buf.subarray(0, 100), buf.subarray(100)]);
    t.equal(r.code, 0);
    t.match(r.stdout, /^stdin: 919 bytes, 6 frames, framing sse, dialect openai-chat, 1 response\n/);
  }
});

t.test('an unreadable input among several: the others are examined, one line names it, exit 2 at the end', async (t) => {
  const nope = fx('no-such-file.sse');
  const dir = join(repoRoot, 'fixtures', 'doctor');
  const r = await run(['doctor', fx('clean-chat.sse'), nope, dir, fx('anthropic-usage.sse')]);
  t.equal(r.code, 2);
  t.equal(r.stderr, `wirefold: ${nope}: no such file or directory\nwirefold: ${dir}: is a directory\n`);
  const heads = r.stdout.split('\n').filter((l) => l.startsWith(repoRoot));
  t.same(
    heads.map((l) => l.slice(0, l.indexOf(':'))),
    [fx('clean-chat.sse'), fx('anthropic-usage.sse')],
  );
  t.match(r.stdout, '\ntotal: 4 inputs (2 unreadable), 0 errors, 1 warning\n');
  const worse = await run(['doctor', nope, fx('responses-gap.sse')]);
  t.equal(worse.code, 2, 'an unreadable input (2) wins over an error found (1)');
  t.match(worse.stdout, 'error sequence_gap');
  const alone = await run(['doctor', nope]);
  t.equal(alone.code, 2);
  t.equal(alone.stdout, '');
  t.equal(alone.stderr, `wirefold: ${nope}: no such file or directory\n`);
});

t.test('--json: one JSON report per input, one line each, the data the text report is made of', async (t) => {
  const files = [fx('clean-chat.sse'), fx('chat-error-no-done.sse'), fx('gemini-usage-signatures.sse')];
  const r = await run(['doctor', '--json', ...files]);
  t.equal(r.code, 1, 'the exit status of the text report');
  t.equal(r.stderr, '');
  const lines = r.stdout.split('\n');
  t.equal(lines.pop(), '', 'each ends its line');
  t.equal(lines.length, files.length, 'one line per input, no total line');
  const reports = lines.map((l) => JSON.parse(l) as JsonReport);
  t.same(
    reports.map((j) => j.name),
    files,
  );
  for (const [i, file] of files.entries()) {
    const built = report(readFileSync(file), file);
    t.same(reports[i], { ...built, errors: reports[i]!.errors, warnings: reports[i]!.warnings }, `${file}: the InputReport as built`);
  }
  const [clean, failed, gemini] = reports as [JsonReport, JsonReport, JsonReport];
  t.match(clean, { framing: 'sse', dialects: ['openai-chat'], frames: 6, errors: 0, warnings: 0, anomalies: [] });
  t.match(clean.responses[0], {
    id: 'chatcmpl-doc1',
    counts: { start: 1, raw: 2, text_delta: 2, usage: 1, done: 1 },
    stopReason: 'end',
    providerReason: 'stop',
    usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
  });
  const buf = bytesOf('chat-error-no-done.sse');
  t.match(failed, { errors: 2, warnings: 0 });
  t.match(failed.responses[0]!.anomalies, [
    { code: 'provider_error', severity: 'error', at: { frame: 2, offset: blockAt(buf, 'event: error') } },
    { code: 'missing_terminal', severity: 'error', at: { offset: buf.length }, atEnd: true },
  ]);
  t.match(gemini, { errors: 0, warnings: 3 });
  const one = await run(['doctor', '--json'], bytesOf('clean-chat.sse'));
  t.equal(one.code, 0);
  t.match(JSON.parse(one.stdout), { name: 'stdin', responses: [{ stopReason: 'end' }] });
});

t.test('doctor --help and -h: its own usage, exit 0', async (t) => {
  const main = await run(['--help']);
  for (const argv of [['doctor', '--help'], ['doctor', '-h'], ['--help', 'doctor']]) {
    const r = await run(argv);
    t.equal(r.code, 0, argv.join(' '));
    t.equal(r.stderr, '');
    t.match(r.stdout, /^Usage: wirefold doctor \[options\] \[file \.\.\.\]\n/);
    t.not(r.stdout, main.stdout);
    for (const word of ['--json', '--framing', '--dialect', 'missing_terminal', 'usage_repeated', 'Exit status']) t.match(r.stdout, word);
  }
});

t.test('options that are not doctor\'s, and --json without doctor, are usage errors', async (t) => {
  for (const argv of [['doctor', '--strict'], ['doctor', '--out', 'final'], ['doctor', '--raw'], ['--json']]) {
    const r = await run(argv);
    t.equal(r.code, 2, argv.join(' '));
    t.equal(r.stdout, '');
    t.match(r.stderr, /^wirefold: .+\nTry 'wirefold (doctor )?--help'\.\n$/);
  }
});

t.test('forced framing and dialect are honoured and shown', async (t) => {
  const r = await run(['doctor', '--dialect', 'xai-chat', '--framing', 'sse', fx('clean-chat.sse')]);
  t.equal(r.code, 0);
  t.match(r.stdout, 'framing sse (forced), dialect xai-chat (forced), 1 response');
});

t.test('no colours when stdout is not a TTY; colours on a TTY', async (t) => {
  const plain = await run(['doctor', fx('chat-invalid-json.sse')]);
  t.notMatch(plain.stdout, '\u001b[');
  const prev = process.env['NO_COLOR'];
  delete process.env['NO_COLOR'];
  const tty = await run(['doctor', fx('chat-invalid-json.sse')], Buffer.alloc(0), true);
  if (prev !== undefined) process.env['NO_COLOR'] = prev;
  t.match(tty.stdout, '\u001b[31merror\u001b[0m invalid_json');
  t.match(tty.stdout, '\u001b[33mwarning\u001b[0m not_json');
});

t.test('the report does not depend on how the bytes are cut', async (t) => {
  for (const name of ['gemini-usage-signatures.sse', 'chat-invalid-json.sse', 'responses-gap.sse', 'xai-messages-index-reuse.sse']) {
    const buf = bytesOf(name);
    const whole = formatReport(report(buf));
    for (const c of quickChunkings(buf)) t.equal(formatReport(report(buf, 'x', c.chunks)), whole, `${name} ${c.name}`);
  }
});

// ---------------------------------------------------------------------------
// the corpus

const cf = (name: string): string => join(corpusDir, name);

/** The chunks of a Gemini capture, parsed independently of the library (error bodies give none). */
function geminiChunks(bytes: Buffer, array: boolean): unknown[] {
  const text = bytes.toString('utf8');
  try {
    if (array) return JSON.parse(text) as unknown[];
    return text
      .split(/\r?\n\r?\n/)
      .filter((b) => b.startsWith('data:'))
      .map((b) => JSON.parse(b.slice(5)) as unknown);
  } catch {
    return [];
  }
}

function hasCounts(chunk: unknown): boolean {
  const u = (chunk as { usageMetadata?: Record<string, unknown> }).usageMetadata;
  return u !== undefined && ['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount'].some((k) => typeof u[k] === 'number');
}

t.test('corpus: concrete findings', async (t) => {
  const groq = await run(['doctor', cf('openai-chat/pydantic-ai--compat-groq-error-event.sse')]);
  t.equal(groq.code, 1);
  t.match(groq.stdout, '    events: start 1, raw 1, reasoning_delta 93, error 1, done 1\n');
  t.match(groq.stdout, '    error provider_error at byte 27741 (frame 94): tool_use_failed: Tool call validation failed');
  t.match(groq.stdout, '    error missing_terminal at byte 28181 (end of input): the stream ended without `data: [DONE]`\n');

  const gemini = await run(['doctor', cf('gemini-sse/vercel-ai--thought-signature-empty-text.sse')]);
  t.equal(gemini.code, 0);
  t.match(
    gemini.stdout,
    'warning usage_repeated at byte 376 (frame 1): usageMetadata on 3 chunks (running totals): summing gives promptTokenCount 27, ' +
      'candidatesTokenCount 59, thoughtsTokenCount 906, totalTokenCount 992; right is the last: 9, 23, 302, 334\n',
  );
  t.match(gemini.stdout, 'warning signature_on_empty_part at byte 729 (frame 2)');

  const array = await run(['doctor', cf('gemini-json-array/llm-gemini--function-call.json')]);
  t.match(array.stdout, 'framing json-array, dialect gemini');
  t.match(array.stdout, 'warning signature_on_function_call at byte 785 (frame 1)');

  const anthropic = await run(['doctor', cf('anthropic-messages/llm-anthropic--text-basic.sse')]);
  t.equal(anthropic.code, 0);
  t.match(anthropic.stdout, 'summing gives input_tokens 34, output_tokens 11; right (message_delta is cumulative): 17, 10\n');
  t.match(anthropic.stdout, '    usage: input 17, cached 0, output 10, total 27\n');

  const xai = await run(['doctor', cf('xai-responses/vercel-ai--x-search.sse'), cf('xai-chat/vercel-ai--reasoning-short.sse')]);
  t.equal(xai.code, 0);
  t.match(xai.stdout, 'dialect xai-responses, 1 response\n');
  t.match(xai.stdout, '    usage: input 27236, cached 4585, output 3077, reasoning 1091, total 30313\n');
  t.match(xai.stdout, 'dialect xai-chat, 1 response\n');
  t.match(xai.stdout, '\ntotal: 2 inputs, ok\n');

  const body = await run(['doctor', cf('gemini-sse/crewai--http400-not-sse.body')]);
  t.equal(body.code, 1);
  t.match(body.stdout, 'framing json-values, dialect none detected, 1 response');
  t.match(body.stdout, '    error provider_error at byte 0 (frame 0): INVALID_ARGUMENT: API key not valid.');

  const live = await run(['doctor', cf('gemini-live/js-genai--tool-call.ws.jsonl')]);
  t.equal(live.code, 1);
  t.match(live.stdout, 'error incomplete_stream at byte 1312 (end of input)');

  const realtime = await run(['doctor', cf('openai-realtime/pydantic-ai--three-vad-turns-rate-limits.ws.jsonl')]);
  t.equal(realtime.code, 0, 'messages between and after realtime turns are not trailing data');
  t.match(realtime.stdout, 'dialect openai-realtime, 3 responses\n');
  t.match(realtime.stdout, '  response 3: ');

  const resumed = await run(['doctor', cf('openai-responses/pydantic-ai--background-resume-starting-after.sse')]);
  t.equal(resumed.code, 0, 'a resumed stream starting at sequence_number 1 is not a gap');
});

t.test('corpus: every file gets a report; exit 1 exactly when the pipeline saw an error', async (t) => {
  for (const f of corpusFiles()) {
    const r = await run(['doctor', f.path]);
    t.match(r.stdout, /\n  result: (ok|\d+ errors?, \d+ warnings?)\n$/, f.name);
    const events = decodeAll([f.bytes]);
    const pipelineError = events.some((e) => e.type === 'error');
    if (pipelineError) t.equal(r.code, 1, `${f.name}: an error event is an error anomaly`);
    else if (r.code === 1) t.match(r.stdout, /error (missing_terminal|trailing_data|no_frames)/, `${f.name}: the only errors the events do not show`);
    // Gemini streams with token counts on several chunks get the naive-sum warning, the others not.
    if (f.dir === 'gemini-sse' || f.dir === 'gemini-json-array') {
      const counted = geminiChunks(f.bytes, f.dir === 'gemini-json-array').filter((c) => hasCounts(c)).length;
      if (counted >= 2) t.match(r.stdout, `warning usage_repeated at byte `, `${f.name}: usage on ${counted} chunks`);
      else t.notMatch(r.stdout, 'usage_repeated', `${f.name}: usage on ${counted} chunk(s)`);
    }
  }
});

t.test('agent session streams: a session line per stop, with the figures of the kind: session final', async (t) => {
  const inputs = [
    join(repoRoot, 'fixtures', 'anthropic-agents', 'requires-action.sse'),
    join(repoRoot, 'fixtures', 'anthropic-agents', 'previews-usage.sse'),
    join(repoRoot, 'fixtures', 'claude-agent-sdk', 'subagent-max-turns.ndjson'),
    join(repoRoot, 'fixtures', 'openai-agents', readdirSync(join(repoRoot, 'fixtures', 'openai-agents')).find((f) => !f.endsWith('.md'))!),
  ];
  for (const input of inputs) {
    const finals = (await runCli(['--out', 'final', input])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FinalResult)
      .filter((f) => f.kind === 'session');
    t.ok(finals.length > 0, `${input}: a session final`);
    const json = JSON.parse((await runCli(['doctor', '--json', input])).stdout) as JsonReport;
    t.same(
      json.sessions,
      finals.map((f) => ({
        id: f.id,
        model: f.model,
        turns: f.summary!.turns,
        failedTurns: f.summary!.failedTurns,
        reportedTurns: f.summary!.reportedTurns,
        stop: f.summary!.stop,
        providerReason: f.providerReason,
        pending: f.summary!.pending,
        usage: f.usage,
        usageFrom: f.summary!.usageFrom,
        cost: f.summary!.cost,
      })),
      `${input}: doctor's sessions are the finals' summaries`,
    );
    const text = (await runCli(['doctor', input])).stdout;
    const lines = text.split('\n').filter((l) => /^ {2}session\b/.test(l));
    t.equal(lines.length, finals.length, `${input}: one session line each`);
    for (const [i, f] of finals.entries()) {
      const line = lines[i]!;
      t.match(line, new RegExp(`: ${f.summary!.turns} turns?`), 'the turns');
      t.match(line, `stop ${f.summary!.stop ?? 'none'}`, 'the stop');
      if (f.summary!.pending.length > 0) t.match(line, `waiting on ${f.summary!.pending.join(', ')}`);
      if (f.summary!.cost !== null) t.match(line, `cost ${f.summary!.cost.amount} ${f.summary!.cost.currency}`);
      t.match(line, f.summary!.usageFrom === 'session' ? "(the session's own)" : "(the turns' sum)");
    }
  }
  // a stream without sessions has no sessions field (the JSON report unchanged)
  const plain = JSON.parse((await runCli(['doctor', '--json', join(repoRoot, 'fixtures', 'quickstart', 'anthropic-tool-use.sse')])).stdout) as JsonReport;
  t.equal('sessions' in plain, false);
});
