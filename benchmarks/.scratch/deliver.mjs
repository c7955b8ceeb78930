// Where does time go at small chunks: sync step vs for-await direct vs pipeline(body, createStream) vs SDK.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const [file, size, runs = '11'] = process.argv.slice(2);
const C = Number(size);
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8'));
const dialect = stats.dialect === 'gemini-sse' ? 'gemini' : stats.dialect;
const L = await import('/work/main/dist/index.js');
const { createOutputStage } = await import('/work/main/dist/pipeline/create-stream.js');
const chunks = []; for (let i = 0; i < data.length; i += C) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(C, data.length - i)));
function body() {
  let i = 0;
  return new Response(new ReadableStream({ pull(c) { if (i >= chunks.length) { c.close(); return; } c.enqueue(chunks[i++]); } })).body;
}
const sink = () => new Writable({ objectMode: true, write(o, e, cb) { cb(); } });
const emit = () => {};
const methods = {
  emptyLoop: async () => { for await (const c of body()) {} },
  sync: async () => { const s = createOutputStage({ dialect, output: 'final' }); for (const c of chunks) s.push(c, emit); s.end(emit); },
  direct: async () => { const s = createOutputStage({ dialect, output: 'final' }); for await (const c of body()) s.push(c, emit); s.end(emit); },
  pipeNoop: () => pipeline(body(), sink()),
  piped: () => pipeline(body(), L.createStream({ dialect, output: 'final' }), sink()),
  events: () => pipeline(body(), L.createStream({ dialect, output: 'events' }), sink()),
  nofast: () => pipeline(body(), L.createStream({ dialect, output: 'final', fastPath: false }), sink()),
  stages: () => pipeline(body(), stats.dialect === 'gemini-json-array' ? L.jsonArrayFramer() : L.sseFramer(), L.decoder(), L.normalizer({ dialect }), L.finalAccumulator(), sink()),
};
if (stats.dialect === 'anthropic-messages') {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  methods.sdk = async () => { const client = new Anthropic({ apiKey: 'x', baseURL: 'http://x', maxRetries: 0, fetch: async () => new Response(body(), { headers: { 'content-type': 'text/event-stream' } }) }); await client.messages.stream({ model: 'm', max_tokens: 1, messages: [] }).finalMessage(); };
}
const only = process.env.ONLY?.split(',');
const names = only ? only.filter((k) => k in methods) : Object.keys(methods);
const times = Object.fromEntries(names.map((k) => [k, []]));
for (let r = 0; r < Number(runs) + 2; r++) for (const k of names) { const t = process.hrtime.bigint(); await methods[k](); if (r >= 2) times[k].push(Number(process.hrtime.bigint() - t) / 1e6); }
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(stats.dialect, C, names.map((k) => `${k} ${med(times[k]).toFixed(0)}ms`).join('  '));
