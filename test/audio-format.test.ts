/**
 * Option audioFormat / --audio-format: the MIME type of audio whose stream
 * names none (xAI TTS `codec=pcm|mulaw|alaw`, OpenAI speech `response_format:
 * "pcm"`: the codec is only in the request). It fills the audio deltas'
 * null `mimeType` (so the final's audio and --audio-out see it), never a
 * type the stream gave, and a bad value is an OptionError. --audio-out then
 * writes PCM as a 44-byte-header WAV and G.711 as a WAV of format 7
 * (mu-law) or 6 (A-law), whose headers are parsed here field by field.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStream, events, finals, OptionError, type FinalResult, type UnifiedEvent } from '../lib/index.js';
import { runCli } from './helpers/cli.js';
import { parseWav } from './helpers/wav.js';
import { repoRoot } from './helpers/corpus.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'wirefold-audio-format-'));
const xaiPcm = join(repoRoot, 'fixtures', 'xai-tts', 'pcm-two-utterances.ws.jsonl');
const xaiMp3 = join(repoRoot, 'fixtures', 'xai-tts', 'mp3-timestamps-error.ws.jsonl');
const speechPcm = join(repoRoot, 'fixtures', 'openai-speech', 'pcm-no-done.sse');

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The base64 audio of a capture's deltas, decoded here without the library, per utterance (`audio.done` ends one). */
function xaiUtterances(path: string): Buffer[] {
  const out: Buffer[] = [];
  let cur: Buffer[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const rec = JSON.parse(line) as { dir: string; data: string };
    if (rec.dir !== 'recv') continue;
    const msg = JSON.parse(rec.data) as { type: string; delta?: string };
    if (msg.type === 'audio.delta' && msg.delta !== undefined) cur.push(Buffer.from(msg.delta, 'base64'));
    else if (msg.type === 'audio.done') {
      out.push(Buffer.concat(cur));
      cur = [];
    }
  }
  return out;
}

/** Runs the CLI with `--out final --audio-out <dir>` and `flags`; the finals and the files written, in name order. */
async function audioOut(t: Test, input: string, flags: string[]): Promise<{ finals: FinalResult[]; names: string[]; files: Buffer[] }> {
  const out = tmp();
  const r = await runCli(['--out', 'final', '--audio-out', out, ...flags, input]);
  t.equal(r.code, 0, r.stderr);
  const names = readdirSync(out).sort();
  return {
    finals: r.stdout.trim().split('\n').map((l) => JSON.parse(l) as FinalResult),
    names,
    files: names.map((n) => readFileSync(join(out, n))),
  };
}

t.test('finals({ audioFormat }): audio with no type on the wire takes it (with its rate); without the option it stays null', async (t) => {
  const plain = await collect(finals([readFileSync(xaiPcm)]));
  t.same(plain.map((f) => f.audio), [
    { mimeType: null, bytes: 2400 },
    { mimeType: null, bytes: 1440 },
  ]);
  const typed = await collect(finals([readFileSync(xaiPcm)], { audioFormat: 'audio/pcm;rate=24000' }));
  t.same(typed.map((f) => f.audio), [
    { mimeType: 'audio/pcm;rate=24000', sampleRate: 24000, bytes: 2400 },
    { mimeType: 'audio/pcm;rate=24000', sampleRate: 24000, bytes: 1440 },
  ]);
  const evs = await collect(events([readFileSync(xaiPcm)], { audioFormat: 'audio/pcm;rate=24000' }));
  const deltas = evs.filter((e): e is Extract<UnifiedEvent, { type: 'audio_delta' }> => e.type === 'audio_delta');
  t.equal(deltas.length, 4);
  t.ok(deltas.every((d) => d.mimeType === 'audio/pcm;rate=24000'), 'on every delta');
});

t.test('audioFormat never overrides a type the stream gave (a sniffed mp3 stays audio/mpeg)', async (t) => {
  const typed = await collect(finals([readFileSync(xaiMp3)], { audioFormat: 'audio/pcm;rate=24000' }));
  t.equal(typed[0]!.audio!.mimeType, 'audio/mpeg');
});

t.test('createStream({ audioFormat }) too; a bad value is an OptionError from the factory', async (t) => {
  const s = createStream({ output: 'final', audioFormat: 'audio/PCMU' });
  const out: FinalResult[] = [];
  s.on('data', (f: FinalResult) => out.push(f));
  s.end(readFileSync(xaiPcm));
  await new Promise((resolve) => s.on('end', resolve));
  t.same(out.map((f) => f.audio?.mimeType), ['audio/PCMU', 'audio/PCMU']);
  for (const bad of [42, '', 'pcm', 'audio', 'text/plain', 'audio/pcm;rate=0', 'audio/pcm;rate=abc', 'audio/pcm;channels=-1', 'audio/pcm;rate', 'audio/pcm rate=1']) {
    let caught: unknown = null;
    try {
      createStream({ audioFormat: bad as string });
    } catch (err) {
      caught = err;
    }
    t.ok(caught instanceof OptionError, JSON.stringify(bad));
    t.match((caught as OptionError).message, /^option audioFormat: expected an audio MIME type/);
    t.equal((caught as OptionError).code, 'invalid_option');
  }
  t.throws(() => finals([Buffer.from('')], { audioFormat: 'mp3' }), OptionError, 'finals() checks it too');
  for (const good of ['audio/pcm', 'audio/L16;codec=pcm;rate=24000', 'audio/pcm; rate=16000; channels=2', 'audio/basic', 'audio/pcma;rate="8000"']) {
    t.doesNotThrow(() => createStream({ audioFormat: good }), good);
  }
});

t.test('--audio-format audio/pcm;rate=24000: xAI TTS codec=pcm utterances written as 16-bit PCM WAV files', async (t) => {
  const { finals: fs, names, files } = await audioOut(t, xaiPcm, ['--audio-format', 'audio/pcm;rate=24000']);
  t.same(fs.map((f) => f.audio?.sampleRate), [24000, 24000]);
  t.equal(names.length, 2);
  t.ok(names.every((n) => n.endsWith('.wav')), names.join(', '));
  const expected = xaiUtterances(xaiPcm);
  t.same(expected.map((b) => b.length), [2400, 1440]);
  files.forEach((file, i) => {
    const wav = parseWav(t, file);
    t.same([wav.fmtSize, wav.format, wav.channels, wav.sampleRate, wav.byteRate, wav.blockAlign, wav.bits], [16, 1, 1, 24000, 48000, 2, 16]);
    t.equal(wav.factSamples, null, 'PCM needs no fact chunk');
    t.equal(file.length, 44 + wav.dataSize, 'the canonical 44-byte header');
    t.equal(wav.dataSize, fs[i]!.audio!.bytes, 'data size = the decoded bytes');
    t.same(wav.data, expected[i], 'the samples as sent');
  });
});

t.test('--audio-format on OpenAI speech response_format pcm (no type on the wire): a WAV at the given rate', async (t) => {
  const { finals: fs, files } = await audioOut(t, speechPcm, ['--audio-format', 'audio/pcm;rate=24000']);
  t.equal(files.length, 1);
  const wav = parseWav(t, files[0]!);
  t.same([wav.format, wav.channels, wav.sampleRate, wav.bits], [1, 1, 24000, 16]);
  t.equal(wav.dataSize, fs[0]!.audio!.bytes);
  const b64 = [...readFileSync(speechPcm, 'utf8').matchAll(/"audio":"([^"]*)"/g)].map((m) => Buffer.from(m[1]!, 'base64'));
  t.same(wav.data, Buffer.concat(b64));
});

/** A hand-made xAI TTS session (the fixture's shape) of one utterance carrying `bytes`. */
function g711Capture(bytes: Buffer): string {
  const half = Math.floor(bytes.length / 2);
  const rec = (dir: string, msg: object): string => JSON.stringify({ dir, data: JSON.stringify(msg) });
  return [
    rec('send', { type: 'text.delta', delta: 'Hi.' }),
    rec('send', { type: 'text.done' }),
    rec('recv', { type: 'audio.delta', delta: bytes.subarray(0, half).toString('base64') }),
    rec('recv', { type: 'audio.delta', delta: bytes.subarray(half).toString('base64') }),
    rec('recv', { type: 'audio.done', trace_id: 't-1' }),
    '',
  ].join('\n');
}

// G.711 bytes with no audio signature (not 0xFF first, not ID3/RIFF/OggS/fLaC); 801: an odd size, padded in the file.
const g711 = Buffer.from(Array.from({ length: 801 }, (_, i) => (0x55 + i * 7) & 0xff));

for (const [mime, tag, rate, name] of [
  ['audio/PCMU', 7, 8000, 'mu-law'],
  ['audio/basic', 7, 8000, 'mu-law'],
  ['audio/PCMA;rate=16000', 6, 16000, 'A-law'],
] as const) {
  t.test(`--audio-format ${mime}: a WAV of format ${tag} (${name}), 8-bit, with its fact chunk`, async (t) => {
    const input = join(tmp(), 'g711.ws.jsonl');
    writeFileSync(input, g711Capture(g711));
    const { finals: fs, names, files } = await audioOut(t, input, ['--audio-format', mime]);
    t.equal(fs[0]!.audio!.mimeType, mime);
    t.match(names[0], /\.wav$/);
    const file = files[0]!;
    const wav = parseWav(t, file);
    t.same([wav.fmtSize, wav.format, wav.channels, wav.sampleRate, wav.byteRate, wav.blockAlign, wav.bits], [18, tag, 1, rate, rate, 1, 8]);
    t.equal(file.readUInt16LE(36), 0, 'cbSize 0');
    t.equal(wav.factSamples, 801, 'one sample per byte');
    t.equal(wav.dataSize, 801, 'data size = the decoded bytes');
    t.equal(wav.dataSize, fs[0]!.audio!.bytes);
    t.same(wav.data, g711, 'the bytes as sent');
    t.equal(file.length, 58 + 801 + 1, '58-byte header, the data, one pad byte');
  });
}

t.test('--audio-format: a bad MIME type is a usage error (exit 2), before any input is read', async (t) => {
  const r = await runCli(['--audio-format', 'pcm', xaiPcm]);
  t.equal(r.code, 2);
  t.match(r.stderr, /--audio-format takes an audio MIME type/);
  t.equal(r.stdout, '');
  const d = await runCli(['doctor', '--audio-format', 'audio/pcm', xaiPcm]);
  t.equal(d.code, 2, 'not an option of doctor');
});
