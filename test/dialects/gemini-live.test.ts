import t, { type Test } from 'tap';
import type { Json, UnifiedEvent } from '../../lib/events.js';
import { createAutoFramer } from '../../lib/framing/detect.js';
import { createJsonValuesFramer } from '../../lib/framing/json-values.js';
import { createDecoder } from '../../lib/dialects/decoder.js';
import { createNormalizer } from '../../lib/dialects/normalizer.js';
import { chain, runStage } from '../../lib/stage.js';
import { corpusFile, corpusFiles, fixture } from '../helpers/corpus.js';
import { decodeEvents as run, stable } from '../helpers/decode.js';
import { briefs, countType, rawLabel, texts } from '../helpers/events.js';

type Ev = UnifiedEvent;

/** Raw payloads are named by their top-level keys (Live messages have no `type`). */
const label = (e: Json): string => rawLabel(e, 'keys');
/** Comparable summary: raw events by their payload's keys, usage/error without the provider object. */
const brief = briefs('keys');

/** The messages of a JSON-values input (pretty-printed or NDJSON), as parsed values and texts. */
function messages(input: Buffer): { texts: string[]; values: Json[] } {
  const frames = runStage(createJsonValuesFramer(), [input]);
  const textsOut = frames.map((f) => f.data);
  return { texts: textsOut, values: textsOut.map((x) => JSON.parse(x) as Json) };
}

const usage0 = { reasoningTokens: null, cachedInputTokens: null };
const start = (id: string | null) => ({ type: 'start', id, model: null, dialect: 'gemini-live' });

const A1 = 'AAABAAIAAwAEAAUABgAHAAgACQAKAAsADAANAA4ADwA=';
const A2 = 'EAARABIAEwAUABUAFgAXABgAGQAaABsAHAAdAB4AHwA=';
const A3 = 'IAAhACIAIwAkACUAJgAnACgAKQAqACsALAAtAC4ALwA=';
const PCM24 = 'audio/pcm;rate=24000';
const L16 = 'audio/l16;rate=48000;channels=2';

const expected: Record<string, Json[]> = {
  'text-turn': [
    'raw:setupComplete',
    start('sess-7f3a'),
    { type: 'text_delta', index: 0, text: 'Bonjour! ' },
    { type: 'text_delta', index: 0, text: 'Ça va très bien — merci. 🌍' },
    'raw:serverContent', // generationComplete
    { type: 'usage', inputTokens: 120, outputTokens: 14, totalTokens: 134, ...usage0 },
    { type: 'done', stopReason: 'end', providerReason: null },
  ],
  'audio-transcript': [
    'raw:setupComplete',
    // inputTranscription: what the user said, which opens no response
    { type: 'input_transcript', text: ' What time' },
    { type: 'input_transcript', text: ' is it?' },
    start(null),
    { type: 'reasoning_delta', index: 0, text: '**Answering the time**\n\nI cannot see a clock.' },
    'raw:serverContent', // empty outputTranscription {}
    { type: 'audio_delta', index: 0, mimeType: PCM24, data: A1 },
    { type: 'text_delta', index: 0, text: "I don't", transcript: true },
    { type: 'audio_delta', index: 0, mimeType: PCM24, data: A2 },
    { type: 'text_delta', index: 0, text: ' have a clock.', transcript: true },
    { type: 'audio_delta', index: 0, mimeType: PCM24, data: A3 },
    { type: 'signature', index: 0, signature: 'c2lnLWF1ZGlv', kind: 'thought_signature' },
    'raw:serverContent', // generationComplete
    // responseTokenCount + thoughtsTokenCount; cached counted inside promptTokenCount
    { type: 'usage', inputTokens: 900, outputTokens: 52, totalTokens: 952, reasoningTokens: 12, cachedInputTokens: 512 },
    { type: 'done', stopReason: 'end', providerReason: null },
  ],
  'tool-call-cancel': [
    'raw:setupComplete',
    start('sess-tools'),
    { type: 'tool_call_start', index: 0, id: 'fc-1', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'fc-1', argumentsDelta: '{"city":"Zürich","units":["C"]}' },
    { type: 'tool_call_done', index: 0, id: 'fc-1', name: 'get_weather', arguments: '{"city":"Zürich","units":["C"]}' },
    // no id and no args: a synthetic id, no delta, empty arguments
    { type: 'tool_call_start', index: 1, id: 'call_1', name: 'get_time' },
    { type: 'tool_call_done', index: 1, id: 'call_1', name: 'get_time', arguments: '' },
    { type: 'tool_call_cancel', ids: ['fc-1'] },
    { type: 'done', stopReason: 'tool_use', providerReason: null },
    // a turn that goes on after its tool call ends normally
    start('sess-tools'),
    { type: 'text_delta', index: 0, text: 'Checking again.' },
    { type: 'tool_call_start', index: 0, id: 'fc-2', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, id: 'fc-2', argumentsDelta: '{"city":"Bern"}' },
    { type: 'tool_call_done', index: 0, id: 'fc-2', name: 'get_weather', arguments: '{"city":"Bern"}' },
    { type: 'text_delta', index: 0, text: 'It is sunny in Bern.', transcript: true },
    { type: 'done', stopReason: 'end', providerReason: null },
  ],
  interrupted: [
    'raw:setupComplete',
    start(null),
    { type: 'audio_delta', index: 0, mimeType: PCM24, data: A1 },
    { type: 'text_delta', index: 0, text: 'Once upon', transcript: true },
    { type: 'done', stopReason: 'other', providerReason: 'interrupted' },
    // residue of the interrupted turn, up to its own turnComplete: no new response
    'raw:serverContent',
    'raw:serverContent,usageMetadata',
    { type: 'input_transcript', text: 'Stop, tell me a joke.' },
    start(null),
    { type: 'text_delta', index: 0, text: 'Why did the chicken' },
    { type: 'text_delta', index: 0, text: ' cross the road?' },
    { type: 'usage', inputTokens: 70, outputTokens: 8, totalTokens: 78, ...usage0 },
    { type: 'done', stopReason: 'end', providerReason: null },
  ],
  'go-away-resumption': [
    'raw:setupComplete',
    { type: 'session', kind: 'resumption', newHandle: 'h-1', resumable: true },
    start('sess-resume'),
    { type: 'text_delta', index: 0, text: 'Still here.' },
    { type: 'session', kind: 'resumption', newHandle: null, resumable: false },
    { type: 'done', stopReason: 'end', providerReason: null },
    { type: 'session', kind: 'resumption', newHandle: 'h-2', resumable: true },
    'raw:usageMetadata', // after the turn closed: no response to attach it to
    { type: 'session', kind: 'go_away', timeLeft: '30s' },
  ],
  error: [
    'raw:setupComplete',
    start(null),
    { type: 'text_delta', index: 0, text: 'Let me' },
    { type: 'error', code: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
  ],
  lyria: [
    'raw:setupComplete',
    start(null),
    { type: 'audio_delta', index: 0, mimeType: L16, data: A1 },
    { type: 'audio_delta', index: 1, mimeType: L16, data: A2 },
    // a prompt Lyria left out: a notice, no error, no text (the music goes on)
    {
      type: 'notice',
      code: 'filtered_prompt',
      message: 'The prompt mentions a specific artist. (prompt: music like a famous band)',
      raw: { text: 'music like a famous band', filteredReason: 'The prompt mentions a specific artist.' },
    },
    { type: 'audio_delta', index: 0, mimeType: L16, data: A3 },
    // music has no turn terminal: the end of the input ends the session
    { type: 'done', stopReason: 'end', providerReason: null },
  ],
};

for (const [name, want] of Object.entries(expected)) {
  t.test(`fixture gemini-live/${name}.json`, (tt) => {
    const evs = stable(tt, fixture(`gemini-live/${name}.json`));
    tt.same(evs.map(brief), want);
    tt.end();
  });
}

t.test('raw events carry the message as received; errors keep the provider object', (tt) => {
  const evs = run(fixture('gemini-live/error.json'));
  tt.same(evs[0], { type: 'raw', event: { setupComplete: {} } });
  const err = evs.find((e) => e.type === 'error');
  tt.same(err?.type === 'error' ? err.raw : undefined, {
    error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' },
  });
  const usage = run(fixture('gemini-live/text-turn.json')).find((e) => e.type === 'usage');
  tt.match(usage, { raw: { promptTokenCount: 120, responseTokenCount: 14 } });
  tt.end();
});

/** The same server messages as NDJSON, pretty-printed values, capture records and a HAR export. */
function forms(values: Json[], prettyTexts: string[]): Record<string, Buffer> {
  const ndjson = values.map((v) => JSON.stringify(v)).join('\n') + '\n';
  const pretty = prettyTexts.map((x) => `${x}\n`).join('');
  const capture = prettyTexts.map((x) => JSON.stringify({ dir: 'recv', data: `${x}\n` })).join('\n') + '\n';
  const har = JSON.stringify({
    log: {
      version: '1.2',
      entries: [
        {
          request: { url: 'wss://example.test/ws' },
          _webSocketMessages: prettyTexts.map((x, i) => ({
            type: 'receive',
            time: 1000 + i,
            opcode: i % 2 === 0 ? 1 : 2,
            data: i % 2 === 0 ? x : Buffer.from(x).toString('base64'),
          })),
        },
      ],
    },
  });
  return { ndjson: Buffer.from(ndjson), pretty: Buffer.from(pretty), capture: Buffer.from(capture), har: Buffer.from(har) };
}

t.test('NDJSON, pretty-printed, capture-record and HAR forms give the same events', (tt) => {
  for (const name of Object.keys(expected)) {
    const { texts: prettyTexts, values } = messages(fixture(`gemini-live/${name}.json`));
    const want = run(fixture(`gemini-live/${name}.json`));
    for (const [form, bytes] of Object.entries(forms(values, prettyTexts))) {
      tt.same(form === 'har' ? run(bytes) : stable(tt, bytes, {}, { quick: true }), want, `${name}: ${form}`);
    }
  }
  tt.end();
});

t.test('client messages in a capture are raw, in order, and never open a turn', (tt) => {
  const lines = [
    { dir: 'send', data: '{"setup":{"model":"models/gemini-live-2.5-flash-preview"}}' },
    { dir: 'recv', data: '{\n  "setupComplete": {}\n}\n' },
    { dir: 'send', data: '{"realtimeInput":{"text":"hi"}}' },
    { dir: 'recv', data: '{"serverContent":{"modelTurn":{"parts":[{"text":"Hello"}]}}}' },
    { dir: 'recv', data: '{"serverContent":{"turnComplete":true}}' },
    { dir: 'send', data: '{"realtimeInput":{"audioStreamEnd":true}}' },
  ];
  const input = Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const evs = stable(tt, input);
  tt.same(evs.map(brief), [
    'raw:send',
    'raw:setupComplete',
    'raw:send',
    start(null),
    { type: 'text_delta', index: 0, text: 'Hello' },
    { type: 'done', stopReason: 'end', providerReason: null },
    'raw:send', // after the turn: no response opened, nothing reported missing
  ]);
  tt.same(evs[0], { type: 'raw', event: lines[0] });

  // captures: 'all' parses client messages: the model of `setup` then names the turns
  const stage = chain(chain(createAutoFramer(), createDecoder({ captures: 'all' })), createNormalizer());
  const all = runStage(stage, [input]);
  tt.same(all[0], { type: 'raw', event: { dir: 'send', data: { setup: { model: 'models/gemini-live-2.5-flash-preview' } } } });
  tt.match(all[3], { type: 'start', id: null, model: 'models/gemini-live-2.5-flash-preview' });
  tt.end();
});

t.test('a new setupComplete during a turn closes the cut-off turn', (tt) => {
  const input = [
    '{"setupComplete":{"sessionId":"s1"}}',
    '{"serverContent":{"modelTurn":{"parts":[{"text":"Half a"}]}}}',
    '{"setupComplete":{"sessionId":"s2"}}',
    '{"serverContent":{"modelTurn":{"parts":[{"text":"Again."}]}}}',
    '{"serverContent":{"turnComplete":true}}',
  ].join('\n');
  tt.same(run(input).map(brief), [
    'raw:setupComplete',
    start('s1'),
    { type: 'text_delta', index: 0, text: 'Half a' },
    { type: 'error', code: 'incomplete_stream', message: 'a new session began before the turn completed', terminal: true },
    { type: 'done', stopReason: 'error', providerReason: null },
    'raw:setupComplete',
    start('s2'),
    { type: 'text_delta', index: 0, text: 'Again.' },
    { type: 'done', stopReason: 'end', providerReason: null },
  ]);
  tt.end();
});

t.test('usage inside a turn is kept until done; parts with no event of their own are raw too', (tt) => {
  const input = [
    '{"serverContent":{"modelTurn":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"text":"One."}]},"groundingMetadata":{"x":1}}}',
    '{"usageMetadata":{"promptTokenCount":5,"responseTokenCount":1,"totalTokenCount":6}}',
    '{"usageMetadata":{"promptTokenCount":5,"responseTokenCount":2,"toolUsePromptTokenCount":3,"totalTokenCount":10}}',
    '{"serverContent":{"turnComplete":true,"turnCompleteReason":"NEED_MORE_INPUT"}}',
  ].join('\n');
  tt.same(run(input).map(brief), [
    start(null),
    { type: 'text_delta', index: 1, text: 'One.' },
    'raw:serverContent',
    'raw:usageMetadata',
    'raw:usageMetadata',
    // the last usage wins (never summed); tool-use prompt tokens count as input
    { type: 'usage', inputTokens: 8, outputTokens: 2, totalTokens: 10, ...usage0 },
    { type: 'done', stopReason: 'end', providerReason: 'NEED_MORE_INPUT' },
  ]);
  tt.end();
});

t.test('an interruption before any output opens no response', (tt) => {
  const input = [
    '{"setupComplete":{}}',
    '{"serverContent":{"interrupted":true}}',
    '{"serverContent":{"generationComplete":true}}',
    '{"serverContent":{"turnComplete":true}}',
    '{"toolCallCancellation":{"ids":["a","b"]}}',
  ].join('\n');
  tt.same(run(input).map(brief), [
    'raw:setupComplete',
    'raw:serverContent',
    'raw:serverContent',
    'raw:serverContent',
    { type: 'tool_call_cancel', ids: ['a', 'b'] },
  ]);
  tt.end();
});

const corpusChecks: Record<string, (tt: Test, evs: Ev[]) => void> = {
  'js-genai--activity-start-end.ws.jsonl': (tt, evs) => {
    tt.equal(texts(evs), "Yeah, I can hear you. What's up?");
    tt.equal(countType(evs, 'raw'), 5, 'four client messages (one a 129 KB audio frame) and setupComplete');
    tt.match(evs.at(-2), { type: 'error', code: 'incomplete_stream' }, 'the recording stops before turnComplete');
  },
  'js-genai--generation-complete-usage.ws.jsonl': (tt, evs) => {
    tt.same(evs.filter((e) => e.type === 'usage').map(brief), [
      { type: 'usage', inputTokens: 515, outputTokens: 38, totalTokens: 553, ...usage0 },
    ]);
    tt.same(evs.at(-1), { type: 'done', stopReason: 'end', providerReason: null });
    tt.equal(countType(evs, 'error'), 0);
  },
  'js-genai--output-transcription.ws.jsonl': (tt, evs) => {
    tt.equal(
      texts(evs, (e) => e.transcript === true),
      "We could talk about anything you like. Perhaps you have a hobby or an interest you'd like to discuss, or maybe there's a topic you've been curious about lately.",
    );
    tt.equal(countType(evs, 'text_delta'), 3);
  },
  'js-genai--text-input-audio-out.ws.jsonl': (tt, evs) => {
    tt.equal(texts(evs), "Yes, I'm here! How can I help you today?");
  },
  'js-genai--tool-call.ws.jsonl': (tt, evs) => {
    tt.same(evs.filter((e) => e.type.startsWith('tool_call')).map(brief), [
      { type: 'tool_call_start', index: 0, id: 'function-call-5831923424298605773', name: 'get_current_weather' },
      { type: 'tool_call_delta', index: 0, id: 'function-call-5831923424298605773', argumentsDelta: '{"location":"Redmond, WA"}' },
      { type: 'tool_call_done', index: 0, id: 'function-call-5831923424298605773', name: 'get_current_weather', arguments: '{"location":"Redmond, WA"}' },
    ]);
    const code = evs.find((e) => e.type === 'raw' && label(e.event) === 'serverContent');
    tt.match(code, { event: { serverContent: { modelTurn: { parts: [{ executableCode: { language: 'PYTHON' } }] } } } }, 'executableCode part kept raw');
  },
  'js-genai--vertex-audio-turn.ws.jsonl': (tt, evs) => {
    const audio = evs.filter((e) => e.type === 'audio_delta');
    tt.same(audio.map((a) => (a.type === 'audio_delta' ? [a.mimeType, a.data.length] : null)), [
      ['audio/pcm', 12800],
      ['audio/pcm', 15360],
    ]);
    tt.match(evs.find((e) => e.type === 'start'), { id: 'bb8e976e-1bb9-465a-8f11-c6d37248a698' }, 'Vertex sessionId is the start id');
  },
  'js-genai--vertex-tool-call.ws.jsonl': (tt, evs) => {
    tt.match(evs.find((e) => e.type === 'start'), { id: 'c714f9ce-aa80-413f-b55a-a13609ae9e01' });
    tt.match(evs.find((e) => e.type === 'tool_call_done'), {
      id: '8acdafcd-9c55-44be-84da-da3d2612f9d1',
      name: 'get_current_weather',
      arguments: '{"location":"Redmond, WA"}',
    });
    tt.match(evs.at(-3), { type: 'raw', event: { serverContent: { generationComplete: true } } });
  },
  'js-genai--vertex-transcription.ws.jsonl': (tt, evs) => {
    tt.same(evs.slice(3, 6).map(brief), [
      'raw:serverContent', // the empty outputTranscription {} comes before the turn opens
      start('66755954-0ad4-4e0b-b021-d457073bde47'),
      { type: 'text_delta', index: 0, text: 'We', transcript: true },
    ]);
  },
  'pydantic-ai--audio-in-vad.ws.jsonl': (tt, evs) => {
    tt.equal(countType(evs, 'start'), 1);
    tt.equal(texts(evs, (e) => e.transcript === true), 'Hello, Marcelo.');
    const reasoning = evs.find((e) => e.type === 'reasoning_delta');
    tt.match(reasoning, { text: /^\*\*Acknowledge the Introduction\*\*/ });
    tt.equal(countType(evs, 'audio_delta'), 7);
    tt.equal(evs.filter((e) => e.type === 'raw' && JSON.stringify(e.event).includes('inputTranscription')).length, 0, 'no inputTranscription left raw');
    const heard = evs.filter((e) => e.type === 'input_transcript');
    tt.equal(heard.length, 5, "the user's speech: input_transcript, before the turn opens");
    tt.ok(evs.indexOf(heard.at(-1)!) < evs.findIndex((e) => e.type === 'start'));
    tt.equal(heard.map((e) => (e.type === 'input_transcript' ? e.text : '')).join(''), ' Hello, my name is Marcelo.');
    tt.same(evs.filter((e) => e.type === 'usage').map(brief), [
      { type: 'usage', inputTokens: 1197, outputTokens: 65, totalTokens: 1234, reasoningTokens: 28, cachedInputTokens: null },
    ]);
    tt.same(evs.at(-1), { type: 'done', stopReason: 'end', providerReason: null });
  },
  'vercel-ai--speech-translation.ws.jsonl': (tt, evs) => {
    // Source and translation kept apart; no turnComplete: the input's end ends the session, no error.
    tt.equal(evs.filter((e) => e.type === 'input_transcript').map((e) => (e.type === 'input_transcript' ? `${e.text}|${e.language}` : '')).join(''), 'The quick brown fox|en jumps over the|en lazy dog.|en');
    tt.equal(texts(evs, (e) => e.transcript === true), 'El zorro marrón rápido salta sobre el perro perezoso.');
    tt.same(evs.filter((e) => e.type === 'audio_delta').map((e) => (e.type === 'audio_delta' ? [e.mimeType, Buffer.from(e.data, 'base64').length] : null)), [
      ['audio/pcm;rate=24000', 8],
      ['audio/pcm;rate=24000', 12],
    ]);
    tt.equal(countType(evs, 'error'), 0);
    // five usageMetadata deltas (50, 25, 25, 25, 25 each way): their sum
    tt.same(evs.slice(-2).map(brief), [
      { type: 'usage', inputTokens: 150, outputTokens: 150, totalTokens: 300, ...usage0 },
      { type: 'done', stopReason: 'end', providerReason: null, language: 'es' },
    ]);
    tt.equal((evs.at(-2) as { raw: unknown[] }).raw.length, 5, 'the deltas as received');
  },
  'pydantic-ai--history-seeding.ws.jsonl': (tt, evs) => {
    tt.equal(texts(evs, (e) => e.transcript === true), 'Your name is Alice, and your favorite color is teal.');
    tt.equal(countType(evs, 'audio_delta'), 55);
    tt.match(evs.find((e) => e.type === 'usage'), { inputTokens: 1150, outputTokens: 113, totalTokens: 1235, reasoningTokens: 28 });
  },
  'pydantic-ai--session-resumption.ws.jsonl': (tt, evs) => {
    tt.same(evs.filter((e) => e.type === 'session').map(brief), [
      { type: 'session', kind: 'resumption', newHandle: '95e91930-b35b-482b-8880-17efc49ec2f2', resumable: true },
    ]);
    tt.match(evs.find((e) => e.type === 'tool_call_done'), { id: 'fc_3880303533621599938', name: 'get_weather', arguments: '{"city":"London"}' });
    tt.equal(texts(evs, (e) => e.transcript === true), 'It is foggy and 12 degrees in London.');
    tt.match(evs.find((e) => e.type === 'usage'), { inputTokens: 482, outputTokens: 69, totalTokens: 551 });
    tt.same(evs.at(-1), { type: 'done', stopReason: 'end', providerReason: null }, 'the turn went on after the tool response');
  },
  'pydantic-ai--tool-call-round.ws.jsonl': (tt, evs) => {
    tt.match(evs.find((e) => e.type === 'tool_call_done'), {
      id: 'function-call-3225422447732038294',
      name: 'record_reading',
      arguments: '{"zqx_measurement":5,"qbf_note":"steady"}',
    });
    tt.equal(texts(evs, (e) => e.transcript === true), 'I have recorded a reading of 5 with the note "steady."');
    tt.equal(countType(evs, 'audio_delta'), 52);
    tt.match(evs.find((e) => e.type === 'usage'), { inputTokens: 1267, outputTokens: 103, totalTokens: 1370 });
    tt.same(evs.at(-1), { type: 'done', stopReason: 'end', providerReason: null });
  },
};

t.test('corpus gemini-live', (tt) => {
  const files = corpusFiles(['gemini-live']);
  tt.equal(files.length, 13);
  for (const f of files) {
    tt.test(f.name, (t2) => {
      const evs = stable(t2, f.bytes, {}, { quick: true });
      t2.equal(evs.filter((e) => e.type === 'error' && e.code === 'invalid_json').length, 0, 'no invalid_json');
      t2.equal(countType(evs, 'start'), 1, 'one turn');
      t2.equal(countType(evs, 'done'), 1, 'exactly one done per response');
      const lines = f.bytes.toString('utf8').split('\n').filter((l) => l !== '');
      const sends = lines.filter((l) => (JSON.parse(l) as { dir: string }).dir === 'send').length;
      t2.equal(evs.filter((e) => e.type === 'raw' && label(e.event) === 'send').length, sends, 'every client message is a raw event');
      const check = corpusChecks[f.name.slice('gemini-live/'.length)];
      t2.ok(check, 'has concrete checks');
      check?.(t2, evs);

      // The recv messages alone, as NDJSON and as the pretty-printed wire text, give the same events.
      const recv = lines.map((l) => JSON.parse(l) as { dir: string; data: string }).filter((r) => r.dir === 'recv');
      const withoutSends = evs.filter((e) => !(e.type === 'raw' && label(e.event) === 'send'));
      t2.same(run(recv.map((r) => r.data).join('')), withoutSends, 'pretty-printed form');
      t2.same(run(recv.map((r) => JSON.stringify(JSON.parse(r.data))).join('\n')), withoutSends, 'NDJSON form');
      t2.end();
    });
  }
  tt.end();
});

t.test('corpus bytes are read, not copied', (tt) => {
  tt.ok(corpusFile('gemini-live/js-genai--tool-call.ws.jsonl').length > 0);
  tt.end();
});
