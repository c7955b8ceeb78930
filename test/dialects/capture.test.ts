import t from 'tap';
import type { Frame, Json, ProviderEvent } from '../../lib/events.js';
import { createAutoFramer } from '../../lib/framing/detect.js';
import { createDecoder, decodeFrame } from '../../lib/dialects/decoder.js';
import { createMessageDecoder, isSendRecord, type CaptureOptions, type CaptureProviderEvent } from '../../lib/dialects/capture.js';
import { detectDialect } from '../../lib/dialects/registry.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';
import { decodeAll } from '../../lib/pipeline/events-stage.js';
import { chain, runStage } from '../../lib/stage.js';
import { chunkings } from '../helpers/chunks.js';
import { corpusFiles, fixture } from '../helpers/corpus.js';

/** bytes → provider events (auto framing + decoder). */
function decode(input: string | Buffer, options: CaptureOptions & { positions?: boolean } = {}): CaptureProviderEvent[] {
  const { positions, ...decoderOptions } = options;
  const stage = chain(createAutoFramer({ positions: positions ?? false }), createDecoder(decoderOptions));
  return runStage(stage, [typeof input === 'string' ? Buffer.from(input) : input]);
}

const json = (payload: Json, frame: number): ProviderEvent => ({ kind: 'json', payload, event: 'message', frame });
const send = (payload: Json, frame: number): CaptureProviderEvent => ({ kind: 'json', payload, event: 'message', frame, direction: 'send' });

const records = [
  { dir: 'send', data: '{"setup":{"model":"m"}}' },
  { dir: 'recv', data: '{\n  "setupComplete": {}\n}\n' },
  { dir: 'recv', data: '{"serverContent":{"turnComplete":true}}' },
  { dir: 'recv', data: 'not json' },
  { dir: 'recv', data: '[DONE]' },
  { dir: 'send', data: 'hello?' },
];
const captureText = records.map((r) => JSON.stringify(r)).join('\n') + '\n';

t.test('capture records: recv data is the message, send records are kept marked', (tt) => {
  for (const { name, chunks } of chunkings(captureText)) {
    const got = runStage(chain(createAutoFramer(), createDecoder()), chunks);
    tt.same(
      got,
      [
        send(records[0]!, 0),
        json({ setupComplete: {} }, 1),
        json({ serverContent: { turnComplete: true } }, 2),
        { kind: 'invalid', text: 'not json', message: got[3]?.kind === 'invalid' ? got[3].message : '', event: 'message', frame: 3 },
        { kind: 'done', event: 'message', frame: 4 },
        send(records[5]!, 5),
      ],
      name,
    );
  }
  tt.end();
});

t.test("captures: 'all' parses the client messages too (text kept when it is not JSON)", (tt) => {
  const got = decode(captureText, { captures: 'all' });
  tt.same(got[0], send({ dir: 'send', data: { setup: { model: 'm' } } }, 0));
  tt.same(got[5], send({ dir: 'send', data: 'hello?' }, 5));
  tt.equal(got.length, 6);
  tt.end();
});

t.test('invalid captures option', (tt) => {
  tt.throws(() => createDecoder({ captures: 'both' as 'all' }), { code: 'invalid_option' });
  tt.throws(() => createMessageDecoder({ captures: 'x' as 'all' }), { code: 'invalid_option' });
  // transform options passed through the same object are ignored
  tt.doesNotThrow(() => createDecoder({ highWaterMark: 4 } as CaptureOptions));
  tt.end();
});

t.test('the shape is decided on the first JSON object: plain streams are never unwrapped', (tt) => {
  const plain = '{"type":"x"}\n{"dir":"recv","data":"{\\"a\\":1}"}\n';
  tt.same(decode(plain), [json({ type: 'x' }, 0), json({ dir: 'recv', data: '{"a":1}' }, 1)]);
  // a non-record line inside a capture passes as it is
  const mixed = '{"dir":"recv","data":"{\\"a\\":1}"}\n{"b":2}\n';
  tt.same(decode(mixed), [json({ a: 1 }, 0), json({ b: 2 }, 1)]);
  // records of messages stored already parsed
  tt.same(decode('{"dir":"recv","data":{"a":1}}'), [json({ a: 1 }, 0)]);
  tt.end();
});

t.test('positions of unwrapped messages are the record positions', (tt) => {
  const got = decode(captureText, { positions: true });
  const lineStarts = [0];
  for (let i = 0; i < captureText.length; i++) if (captureText[i] === '\n') lineStarts.push(Buffer.byteLength(captureText.slice(0, i + 1)));
  tt.same(
    got.map((e) => e.at),
    records.map((_, i) => ({ frame: i, offset: lineStarts[i] })),
  );
  tt.end();
});

t.test('HAR: WebSocket messages of every entry, in order; binary frames decoded; HTTP entries skipped', (tt) => {
  const got = decode(fixture('har/gemini-live.har'));
  tt.same(
    got.map((e) => (e.kind === 'json' ? e.payload : e.kind)),
    [
      { dir: 'send', data: '{"setup":{"model":"models/gemini-live-2.5-flash-preview"}}', time: 1777629601, opcode: 1 },
      { setupComplete: { sessionId: 'sess-7f3a' } },
      {
        dir: 'send',
        data: '{"clientContent":{"turns":[{"role":"user","parts":[{"text":"Bonjour"}]}],"turnComplete":true}}',
        time: 1777629601.5,
        opcode: 1,
      },
      { serverContent: { modelTurn: { role: 'model', parts: [{ text: 'Bonjour! ' }] } } },
      { serverContent: { modelTurn: { role: 'model', parts: [{ text: 'Ça va très bien — merci. 🌍' }] } } },
      { serverContent: { generationComplete: true } },
      {
        serverContent: { turnComplete: true },
        usageMetadata: {
          promptTokenCount: 120,
          responseTokenCount: 14,
          totalTokenCount: 134,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: 120 }],
          responseTokensDetails: [{ modality: 'TEXT', tokenCount: 14 }],
        },
      },
    ],
  );
  tt.same(
    got.map((e) => e.direction ?? 'recv'),
    ['send', 'recv', 'send', 'recv', 'recv', 'recv', 'recv'],
  );
  tt.ok(
    got.every((e) => e.frame === 0),
    'one frame: the HAR document',
  );
  // the HAR gives the events of the same server messages written as a pretty-printed log
  const evs = decodeAll([fixture('har/gemini-live.har')]).filter((e) => !(e.type === 'raw' && isSendRecord(e.event)));
  tt.same(evs, decodeAll([fixture('gemini-live/text-turn.json')]));
  tt.end();
});

t.test('HAR edge cases', (tt) => {
  const noWs = { log: { entries: [{ request: { url: 'https://x.test' } }] } };
  tt.same(decode(JSON.stringify(noWs)), [json(noWs, 0)], 'a HAR with no WebSocket keeps the document');
  const odd = { log: { entries: [{ _webSocketMessages: [{ type: 'receive', opcode: 1, data: '{"a":1}' }, { type: 'ping', data: '' }, 7] }] } };
  tt.same(decode(JSON.stringify(odd)), [json({ a: 1 }, 0), json({ type: 'ping', data: '' }, 0), json(7, 0)], 'unknown messages pass as they are');
  const bin = Buffer.from('{"x":"é"}').toString('base64');
  const sent = { log: { entries: [{ _webSocketMessages: [{ type: 'send', opcode: 2, data: bin }] }] } };
  tt.same(decode(JSON.stringify(sent)), [send({ dir: 'send', data: bin, opcode: 2 }, 0)]);
  tt.same(decode(JSON.stringify(sent), { captures: 'all' }), [send({ dir: 'send', data: { x: 'é' }, opcode: 2 }, 0)]);
  tt.end();
});

t.test('binary client frames that are not JSON (STT audio going up): never decoded as text, their size counted', (tt) => {
  // 16-bit PCM whose bytes are no UTF-8 text (0xff 0xfe…) and one that happens to be ASCII but not JSON
  const audio = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x10, 0x27, 0xf0, 0xd8]).toString('base64');
  const ascii = Buffer.from('RIFF....').toString('base64');
  const har = { log: { entries: [{ _webSocketMessages: [{ type: 'send', opcode: 2, data: audio, time: 1 }, { type: 'send', opcode: 2, data: ascii }, { type: 'send', opcode: 1, data: '{"type":"audio.done"}' }] }] } };
  const skipped = [
    send({ dir: 'send', data: null, time: 1, opcode: 2, binary: true, bytes: 8 }, 0),
    send({ dir: 'send', data: null, opcode: 2, binary: true, bytes: 8 }, 0),
  ];
  tt.same(decode(JSON.stringify(har)), [...skipped, send({ dir: 'send', data: '{"type":"audio.done"}', opcode: 1 }, 0)]);
  tt.same(decode(JSON.stringify(har), { captures: 'all' }), [...skipped, send({ dir: 'send', data: { type: 'audio.done' }, opcode: 1 }, 0)], 'captures all: the audio still not parsed');
  // capture records mark a binary frame with "opcode": 2 or "binary": true
  const log = [
    { dir: 'send', opcode: 2, data: audio },
    { dir: 'send', binary: true, data: audio },
    { dir: 'send', binary: true, data: Buffer.from('{"a":1}').toString('base64') },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
  for (const captures of ['recv', 'all'] as const) {
    const got = decode(log, { captures });
    tt.same(
      got.slice(0, 2).map((e) => (e.kind === 'json' ? e.payload : null)),
      [
        { dir: 'send', opcode: 2, data: null, binary: true, bytes: 8 },
        { dir: 'send', binary: true, data: null, bytes: 8 },
      ],
      captures,
    );
    tt.match(got[2], { kind: 'json', payload: { dir: 'send', binary: true, data: captures === 'all' ? { a: 1 } : /^eyJ/ } }, `${captures}: a binary frame holding JSON is a message like any other`);
  }
  tt.end();
});

t.test('createMessageDecoder: strings, bytes, ArrayBuffers and parsed values, one message each', (tt) => {
  const text = '{"type":"response.created","event_id":"event_1","response":{"object":"realtime.response","id":"r1"}}';
  const bytes = Buffer.from(`xx${text}yy`).subarray(2, 2 + Buffer.byteLength(text));
  const ab = new TextEncoder().encode('{"b":2}').buffer;
  const got = runStage(createMessageDecoder(), [text, bytes, new Uint8Array(Buffer.from('{"a":1}')), ab, { c: 3 }, 'oops', '[DONE]', ['x']]);
  const parsed = JSON.parse(text) as Json;
  tt.same(got.slice(0, 6).map((e) => (e.kind === 'json' ? e.payload : e.kind)), [parsed, parsed, { a: 1 }, { b: 2 }, { c: 3 }, 'invalid']);
  tt.same(got.slice(6), [
    { kind: 'done', event: 'message', frame: 6 },
    { kind: 'json', payload: ['x'], event: 'message', frame: 7 },
  ]);
  tt.same(
    got.map((e) => e.frame),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  tt.end();
});

t.test('createMessageDecoder unwraps capture records given as objects or lines', (tt) => {
  const lines = captureText.split('\n').filter((l) => l !== '');
  const fromLines = runStage(createMessageDecoder(), lines);
  const fromObjects = runStage(createMessageDecoder(), lines.map((l) => JSON.parse(l) as Json));
  tt.same(fromLines.map((e) => (e.kind === 'json' ? e.payload : e.kind)), [records[0], { setupComplete: {} }, { serverContent: { turnComplete: true } }, 'invalid', 'done', records[5]]);
  tt.same(fromObjects, fromLines);
  tt.end();
});

t.test('message decoder + normalizer equals the byte pipeline on every realtime corpus file', (tt) => {
  for (const f of corpusFiles(['gemini-live', 'openai-realtime'])) {
    const lines = f.bytes.toString('utf8').split('\n').filter((l) => l !== '');
    // a client gets the server message text itself: feed only the recv data
    const recv = lines.map((l) => JSON.parse(l) as { dir: string; data: string }).filter((r) => r.dir === 'recv');
    const viaMessages = runStage(chain(createMessageDecoder(), createNormalizer()), recv.map((r) => Buffer.from(r.data)));
    const viaBytes = decodeAll([f.bytes]).filter((e) => !(e.type === 'raw' && isSendRecord(e.event)));
    tt.same(viaMessages, viaBytes, f.name);
  }
  tt.end();
});

t.test('decodeFrame alone does not unwrap', (tt) => {
  const frame: Frame = { event: 'message', data: '{"dir":"recv","data":"{}"}', id: '' };
  tt.same(decodeFrame(frame, 3), json({ dir: 'recv', data: '{}' }, 3));
  tt.end();
});

t.test('detectDialect: realtime and live shapes, other dialects unchanged', (tt) => {
  const cases: [Json, string | null][] = [
    [{ type: 'session.created', event_id: 'event_1', session: { model: 'gpt-realtime' } }, 'openai-realtime'],
    [{ type: 'session.created', event_id: 'u', session: { model: 'Grok-Voice' } }, 'xai-realtime'],
    [{ type: 'input_audio_buffer.speech_started', event_id: 'event_2' }, 'openai-realtime'],
    [{ type: 'rate_limits.updated', event_id: 'event_3', rate_limits: [] }, 'openai-realtime'],
    [{ type: 'response.created', event_id: 'event_4', response: { object: 'realtime.response', id: 'r' } }, 'openai-realtime'],
    [{ type: 'response.output_text.delta', event_id: 'event_5', delta: 'x' }, 'openai-realtime'],
    [{ type: 'response.function_call_arguments.delta', event_id: 'event_6', delta: '{' }, 'openai-realtime'],
    [{ type: 'error', event_id: 'event_7', error: { type: 'invalid_request_error', message: 'm' } }, 'openai-realtime'],
    [{ type: 'ping', event_id: 'u', timestamp: 1 }, 'xai-realtime'],
    [{ type: 'ping' }, null],
    // Responses API events carry sequence_number, not event_id
    [{ type: 'response.output_text.delta', sequence_number: 4, delta: 'x' }, 'openai-responses'],
    [{ type: 'response.created', sequence_number: 0, response: { object: 'response', model: 'grok-4' } }, 'xai-responses'],
    [{ type: 'response.created', response: { object: 'response', model: 'gpt-4o' } }, 'openai-responses'],
    [{ type: 'error', error: { type: 'overloaded_error', message: 'm' } }, null],
    [{ type: 'message_start', message: { model: 'claude-x' } }, 'anthropic-messages'],
    [{ setupComplete: {} }, 'gemini-live'],
    [{ serverContent: {} }, 'gemini-live'],
    [{ serverContent: { turnComplete: true }, usageMetadata: { promptTokenCount: 1 } }, 'gemini-live'],
    [{ filteredPrompt: { text: 'x' } }, 'gemini-live'],
    [{ candidates: [], usageMetadata: {} }, 'gemini'],
    [{ dir: 'send', data: '{}' }, null],
  ];
  for (const [payload, want] of cases) tt.equal(detectDialect(payload), want, JSON.stringify(payload));
  tt.end();
});
