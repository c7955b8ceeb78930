/**
 * --audio-out writes a playable file: raw PCM (OpenAI Realtime's and Gemini's
 * `audio/pcm`, Gemini's `audio/L16;codec=pcm;rate=24000`) as WAV, whose header
 * is parsed here field by field; other codecs as they came. --files-out
 * writes generated images decoded.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UnifiedEvent } from '../lib/events.js';
import { createAudioWriter, wavFormat } from '../lib/cli/media-out.js';
import { runStage } from '../lib/stage.js';
import { runCli } from './helpers/cli.js';
import { parseCanonicalWav as parseWav } from './helpers/wav.js';
import { repoRoot } from './helpers/corpus.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'wirefold-audio-out-'));

t.test('Gemini Live audio (audio/pcm;rate=24000) is written as a valid WAV file', async (t) => {
  const fixture = join(repoRoot, 'fixtures', 'gemini-live', 'audio-transcript.json');
  const out = tmp();
  const r = await runCli(['--out', 'final', '--audio-out', out, fixture]);
  t.equal(r.code, 0);
  const finals = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { audio: { bytes: number } | null });
  const withAudio = finals.filter((f) => f.audio !== null);
  t.equal(withAudio.length, 1);
  const files = readdirSync(out);
  t.equal(files.length, 1);
  t.match(files[0], /^01-audio-transcript\.json-001.*\.wav$/);
  const file = readFileSync(join(out, files[0]!));
  const wav = parseWav(t, file);
  t.equal(wav.format, 1, 'PCM');
  t.equal(wav.channels, 1);
  t.equal(wav.sampleRate, 24000, 'the rate= of the MIME type');
  t.equal(wav.byteRate, 48000, 'rate × channels × 2 bytes');
  t.equal(wav.blockAlign, 2);
  t.equal(wav.bits, 16);
  t.equal(wav.dataSize, withAudio[0]!.audio!.bytes, 'data chunk = the decoded bytes of the final');
  t.equal(wav.riffSize, file.length - 8, 'RIFF size = file size - 8');
  t.equal(file.length, 44 + wav.dataSize);
  // The samples, as the fixture's inlineData parts carry them (read without the library), unchanged.
  const text = readFileSync(fixture, 'utf8');
  const parts = [...text.matchAll(/"mimeType": "audio\/pcm;rate=24000",\s*"data": "([^"]*)"/g)].map((m) => Buffer.from(m[1]!, 'base64'));
  t.equal(parts.length, 3);
  t.same(wav.data, Buffer.concat(parts), 'little-endian samples copied as received, no swap');
});

const start: UnifiedEvent = { type: 'start', id: 'r1', model: null };
const done: UnifiedEvent = { type: 'done', stopReason: 'end', providerReason: null };
const delta = (mimeType: string | null, bytes: number[]): UnifiedEvent => ({
  type: 'audio_delta',
  index: 0,
  mimeType,
  data: Buffer.from(bytes).toString('base64'),
});

/** Runs the writer over the events; the paths it wrote. */
function write(events: UnifiedEvent[]): string[] {
  const writer = createAudioWriter(tmp(), 'x');
  runStage(writer, events);
  return writer.files;
}

t.test('Gemini TTS audio/L16;codec=pcm;rate=16000: WAV at that rate, the sizes patched when the response ends', async (t) => {
  const [path, ...rest] = write([start, delta('audio/L16;codec=pcm;rate=16000', [1, 0, 2, 0]), delta('audio/L16;codec=pcm;rate=16000', [3, 0]), done]);
  t.same(rest, []);
  t.match(path, /x-001-r1\.wav$/);
  const file = readFileSync(path!);
  const wav = parseWav(t, file);
  t.same([wav.format, wav.channels, wav.sampleRate, wav.byteRate, wav.blockAlign, wav.bits], [1, 1, 16000, 32000, 2, 16]);
  t.equal(wav.dataSize, 6);
  t.equal(wav.riffSize, file.length - 8);
  t.same(wav.data, Buffer.from([1, 0, 2, 0, 3, 0]));
});

t.test('a response cut off (no done) still gets its sizes at the end of the input; an odd byte count is padded', async (t) => {
  const [path] = write([start, delta('audio/pcm', [1, 2, 3])]);
  const file = readFileSync(path!);
  const wav = parseWav(t, file);
  t.equal(wav.sampleRate, 24000, 'no rate=: the 24 kHz of OpenAI Realtime and Gemini output');
  t.equal(wav.dataSize, 3, 'the data size counts the audio, not the pad byte');
  t.equal(file.length, 44 + 4, 'one pad byte: RIFF chunks are word-aligned');
  t.equal(wav.riffSize, file.length - 8);
});

t.test('each response its own WAV file', async (t) => {
  const files = write([start, delta('audio/pcm;rate=24000', [1, 0]), done, { ...start, id: 'r2' }, delta('audio/l16', [2, 0, 3, 0]), done]);
  t.equal(files.length, 2);
  t.same(files.map((f) => parseWav(t, readFileSync(f)).dataSize), [2, 4]);
});

t.test('other codecs keep their own container and extension', async (t) => {
  const cases: [string | null, string][] = [
    ['audio/flac', 'flac'],
    ['audio/aac', 'aac'],
    ['audio/mpeg', 'mp3'],
    ['audio/ogg', 'ogg'],
    ['audio/wav', 'wav'],
    [null, 'bin'],
  ];
  for (const [mime, ext] of cases) {
    const [path] = write([start, delta(mime, [0x66, 0x4c, 0x61, 0x43]), done]);
    t.match(path, new RegExp(`\\.${ext}$`), String(mime));
    t.same(readFileSync(path!), Buffer.from([0x66, 0x4c, 0x61, 0x43]), `${String(mime)}: the bytes as they came, no header`);
  }
});

t.test('wavFormat: the rate= and channels= of a raw codec\'s MIME type, else its usual rate, mono; never throws', async (t) => {
  const pcm = (sampleRate: number, channels = 1) => ({ tag: 1, bitsPerSample: 16, sampleRate, channels });
  t.same(wavFormat('audio/pcm'), pcm(24000));
  t.same(wavFormat('audio/l16'), pcm(24000));
  t.same(wavFormat('audio/pcm;rate=24000'), pcm(24000));
  t.same(wavFormat('audio/L16;codec=pcm;rate=24000'), pcm(24000));
  t.same(wavFormat('audio/L16; rate=8000; channels=2'), pcm(8000, 2));
  for (const bad of ['audio/pcm;rate=', 'audio/pcm;rate=abc', 'audio/pcm;rate=0', 'audio/pcm;rate=-5', 'audio/pcm;rate=1e5', 'audio/pcm;rate=99999999999', 'audio/pcm;;=;rate']) {
    t.same(wavFormat(bad), pcm(24000), bad);
  }
  t.same(wavFormat('audio/PCMU'), { tag: 7, bitsPerSample: 8, sampleRate: 8000, channels: 1 }, 'G.711 at its 8 kHz');
  t.same(wavFormat('audio/basic'), { tag: 7, bitsPerSample: 8, sampleRate: 8000, channels: 1 });
  t.same(wavFormat('audio/pcma;rate=16000'), { tag: 6, bitsPerSample: 8, sampleRate: 16000, channels: 1 });
  t.equal(wavFormat('audio/mpeg'), null);
  t.equal(wavFormat('audio/wav'), null, 'already a container');
  t.equal(wavFormat(null), null);
});

/** Runs the CLI with `--out final --audio-out` on a fixture; the finals and the files written. */
async function audioOut(fixturePath: string): Promise<{ finals: { audio: { mimeType: string | null; sampleRate?: number; bytes: number } | null }[]; files: Buffer[] }> {
  const out = tmp();
  const r = await runCli(['--out', 'final', '--audio-out', out, fixturePath]);
  const finals = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { audio: { mimeType: string | null; sampleRate?: number; bytes: number } | null });
  return { finals, files: readdirSync(out).sort().map((f) => readFileSync(join(out, f))) };
}

t.test('Gemini streaming TTS (audio/L16;codec=pcm;rate=24000 chunks): one valid WAV, the final says the rate and the decoded size', async (t) => {
  const { finals, files } = await audioOut(join(repoRoot, 'fixtures', 'gemini', 'tts-l16-stream.sse'));
  t.same(finals.map((f) => f.audio), [{ mimeType: 'audio/L16;codec=pcm;rate=24000', sampleRate: 24000, bytes: 6000 }]);
  t.equal(files.length, 1);
  const wav = parseWav(t, files[0]!);
  t.same([wav.format, wav.channels, wav.sampleRate, wav.byteRate, wav.blockAlign, wav.bits], [1, 1, 24000, 48000, 2, 16]);
  t.equal(wav.dataSize, 6000);
  t.equal(wav.riffSize, files[0]!.length - 8);
  // the samples: the fixture's base64 parts, decoded here without the library
  const parts = [...readFileSync(join(repoRoot, 'fixtures', 'gemini', 'tts-l16-stream.sse'), 'utf8').matchAll(/"data":"([^"]*)"/g)].map((m) => Buffer.from(m[1]!, 'base64'));
  t.same(wav.data, Buffer.concat(parts));
});

t.test('an OpenAI Realtime translation session (session.output_audio.delta, sample_rate 24000): one WAV for the session', async (t) => {
  const { finals, files } = await audioOut(join(repoRoot, 'fixtures', 'corpus', 'openai-realtime', 'vercel-ai--speech-translation.ws.jsonl'));
  t.same(finals.map((f) => f.audio), [{ mimeType: 'audio/pcm;rate=24000', sampleRate: 24000, bytes: 3 }]);
  t.equal(files.length, 1);
  const wav = parseWav(t, files[0]!);
  t.same([wav.channels, wav.sampleRate, wav.dataSize], [1, 24000, 3]);
  t.same(wav.data, Buffer.from('AQID', 'base64'));
});

t.test('xAI TTS: one file per utterance; raw PCM without a MIME type stays .bin, mp3 is .mp3', async (t) => {
  const pcm = await audioOut(join(repoRoot, 'fixtures', 'xai-tts', 'pcm-two-utterances.ws.jsonl'));
  t.same(pcm.finals.map((f) => f.audio?.bytes), [2400, 1440]);
  t.same(pcm.files.map((f) => f.length), [2400, 1440], 'the decoded bytes, no header (the codec is not on the wire)');
  const mp3 = await audioOut(join(repoRoot, 'fixtures', 'xai-tts', 'mp3-timestamps-error.ws.jsonl'));
  t.equal(mp3.files.length, 1, 'the failed utterance had no audio');
  t.equal(mp3.files[0]!.toString('latin1', 0, 3), 'ID3');
  t.equal(mp3.files[0]!.length, mp3.finals[0]!.audio!.bytes);
});

t.test('--files-out: the 1.3 MB PNG of a Gemini image-output stream (js-genai capture), decoded, once', async (t) => {
  const src = join(repoRoot, 'fixtures', 'corpus', 'gemini-sse', 'js-genai--image-output.sse');
  const out = tmp();
  const r = await runCli(['--out', 'final', '--files-out', out, src]);
  t.equal(r.code, 0, r.stderr);
  const files = readdirSync(out);
  t.equal(files.length, 1);
  t.match(files[0], /\.png$/);
  const png = readFileSync(join(out, files[0]!));
  const b64 = /"inlineData":\{"data":"([^"]+)"/.exec(readFileSync(src, 'utf8'))![1]!;
  t.equal(png.length, Buffer.from(b64, 'base64').length);
  t.equal(png.length, (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0), 'the size the base64 says');
  t.same([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'PNG');
});
