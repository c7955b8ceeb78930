/**
 * --audio-out <dir> and --files-out <dir>: write what a response carries as
 * base64 to files of their own. Pass-through stages, so the fused pipeline
 * stays one.
 * - audio: each response's audio_delta events (choice 0), decoded into one
 *   file per response;
 * - files: each completed `file` event (a generated image, an inlineData
 *   part) into one file each; partial previews are not written.
 * Names: `<prefix>-<response number>[-<response id>][-<file number>].<ext>`,
 * so the files of one input sort in stream order.
 * Raw audio (16-bit PCM `audio/pcm`, `audio/L16`; G.711 mu-law `audio/PCMU`,
 * `audio/basic` and A-law `audio/PCMA`) has no container a player could
 * open, so it is written as a WAV file (see createAudioWriter); any other
 * codec is written as it came, in its own container (mp3, ogg, flac…).
 * Audio whose stream names no type (xAI TTS's pcm/mulaw/alaw, OpenAI
 * speech's pcm) is `.bin` unless the option audioFormat (`--audio-format`) names it.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { UnifiedEvent } from '../events.js';
import type { Stage } from '../stage.js';

const EXTENSIONS: Record<string, string> = {
  'audio/pcm': 'pcm',
  'audio/l16': 'pcm',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/json': 'json',
};

/** `audio/L16;codec=pcm;rate=24000` → `audio/l16` (MIME types are case-insensitive). */
function baseOf(mimeType: string): string {
  return mimeType.split(';')[0]!.trim().toLowerCase();
}

function extensionOf(mimeType: string | null): string {
  if (mimeType === null) return 'bin';
  return EXTENSIONS[baseOf(mimeType)] ?? 'bin';
}

/**
 * Output rate of raw PCM whose MIME type gives none: 24 kHz is the documented
 * output rate of both OpenAI Realtime (`audio/pcm` at 24000 Hz, the `pcm16`
 * of the beta) and Gemini Live / Gemini TTS (16-bit PCM at 24 kHz), the two
 * streams that send raw PCM without a `rate=` everywhere.
 */
const DEFAULT_PCM_RATE = 24000;
/** G.711 (mu-law, A-law) is sampled at 8 kHz (RFC 3551's PCMU/PCMA clock rate, RFC 2046's audio/basic). */
const DEFAULT_G711_RATE = 8000;

/** WAVE_FORMAT_PCM, WAVE_FORMAT_ALAW, WAVE_FORMAT_MULAW (mmreg.h). */
export type WavFormatTag = 1 | 6 | 7;

export interface WavFormat {
  /** 1: 16-bit linear PCM; 6: 8-bit A-law; 7: 8-bit mu-law. */
  tag: WavFormatTag;
  bitsPerSample: 16 | 8;
  sampleRate: number;
  channels: number;
}

/** Raw codecs by MIME base type: their WAV format tag, sample size and usual rate. */
const RAW_CODECS: Record<string, { tag: WavFormatTag; bits: 16 | 8; rate: number }> = {
  'audio/pcm': { tag: 1, bits: 16, rate: DEFAULT_PCM_RATE },
  'audio/l16': { tag: 1, bits: 16, rate: DEFAULT_PCM_RATE },
  'audio/basic': { tag: 7, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/pcmu': { tag: 7, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/x-mulaw': { tag: 7, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/g711_ulaw': { tag: 7, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/pcma': { tag: 6, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/x-alaw': { tag: 6, bits: 8, rate: DEFAULT_G711_RATE },
  'audio/g711_alaw': { tag: 6, bits: 8, rate: DEFAULT_G711_RATE },
};

/**
 * The WAV format of a raw codec's MIME type (16-bit PCM, mu-law, A-law), or
 * null for any other codec (it has a container of its own). `rate=` and
 * `channels=` parameters (RFC 2586's for L16; Gemini's `audio/pcm;rate=24000`)
 * are read when they are positive integers, else the codec's usual rate
 * (24 kHz for PCM, 8 kHz for G.711) and mono.
 */
export function wavFormat(mimeType: string | null): WavFormat | null {
  if (mimeType === null) return null;
  const codec = RAW_CODECS[baseOf(mimeType)];
  if (codec === undefined) return null;
  const params = new Map<string, string>();
  for (const part of mimeType.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  const positive = (text: string | undefined, max: number): number | null => {
    if (text === undefined || !/^\d{1,9}$/.test(text)) return null;
    const n = Number(text);
    return n > 0 && n <= max ? n : null;
  };
  return {
    tag: codec.tag,
    bitsPerSample: codec.bits,
    // (the header's byte rate, rate × channels × 2, must fit its 32 bits)
    sampleRate: positive(params.get('rate'), 100_000_000) ?? codec.rate,
    channels: positive(params.get('channels'), 16) ?? 1,
  };
}

/** The largest size a RIFF field holds; a longer recording keeps this (players then read to the end of the file). */
const MAX_RIFF_SIZE = 0xffffffff;

/**
 * A WAV header: RIFF/WAVE, the `fmt ` chunk, then the `data` chunk's header.
 * 16-bit PCM has the canonical 44-byte header (a 16-byte `fmt `). A-law and
 * mu-law are not PCM, for which the format asks for the 18-byte `fmt ` (its
 * cbSize 0) and a `fact` chunk with the number of samples: 58 bytes. The
 * sizes (RIFF, fact, data) are those of `dataBytes`; the writer streams, so
 * it writes the header for 0 bytes first and rewrites it when the response ends.
 */
export function wavHeader(format: WavFormat, dataBytes: number): Buffer {
  const pcm = format.tag === 1;
  const fmtSize = pcm ? 16 : 18;
  const headerBytes = 12 + 8 + fmtSize + (pcm ? 0 : 12) + 8;
  const h = Buffer.alloc(headerBytes);
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const size = (n: number): number => Math.min(MAX_RIFF_SIZE, n);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(size(headerBytes - 8 + dataBytes + (dataBytes % 2)), 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(fmtSize, 16);
  h.writeUInt16LE(format.tag, 20);
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(size(format.sampleRate * blockAlign), 28); // byte rate
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(format.bitsPerSample, 34);
  let at = 36;
  if (!pcm) {
    h.writeUInt16LE(0, 36); // cbSize: no extra format bytes
    h.write('fact', 38, 'latin1');
    h.writeUInt32LE(4, 42);
    h.writeUInt32LE(size(Math.floor(dataBytes / blockAlign)), 46); // samples per channel
    at = 50;
  }
  h.write('data', at, 'latin1');
  h.writeUInt32LE(size(dataBytes), at + 4);
  return h;
}

export interface MediaWriter extends Stage<UnifiedEvent, UnifiedEvent> {
  /** Paths written so far. */
  readonly files: string[];
}

/** Numbers the responses of one input and names their files. */
class ResponseNames {
  private responseNo = 0;
  private responseId: string | null = null;

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  start(id: string | null): void {
    this.responseNo++;
    this.responseId = id;
  }

  path(mimeType: string | null, fileNo?: number): string {
    const id = this.responseId;
    const idPart = id === null || id === '' ? '' : `-${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}`;
    const filePart = fileNo === undefined ? '' : `-${String(fileNo).padStart(2, '0')}`;
    const name = `${this.prefix}-${String(Math.max(this.responseNo, 1)).padStart(3, '0')}${idPart}${filePart}.${extensionOf(mimeType)}`;
    return join(this.dir, name);
  }
}

/**
 * One file per response: its choice-0 audio deltas decoded and appended as
 * they come (a long session never sits in memory). Raw PCM, mu-law and
 * A-law become a WAV file: a header with zero sizes first, rewritten in place
 * when the response ends. The samples are copied as received, little-endian as
 * WAV wants: OpenAI's `pcm16` is documented as little-endian, and so is
 * Gemini's output ("raw 16-bit PCM audio at 24 kHz, little-endian", Google's
 * Live API docs) even though Gemini labels it `audio/L16`, which RFC 2586
 * defines as big-endian (network byte order); swapping by the label would
 * turn Gemini's speech into noise. The format is the first delta's MIME type.
 */
export function createAudioWriter(dir: string, prefix: string): MediaWriter {
  const names = new ResponseNames(dir, prefix);
  const files: string[] = [];
  let fd: number | null = null;
  /** The open file's WAV format, null when it is written as it came. */
  let wav: WavFormat | null = null;
  let dataBytes = 0;

  function close(): void {
    if (fd === null) return;
    if (wav !== null) {
      // RIFF chunks are word-aligned: an odd data chunk (a cut sample) is followed by a pad byte.
      if (dataBytes % 2 === 1) writeSync(fd, Buffer.alloc(1));
      const header = wavHeader(wav, dataBytes);
      writeSync(fd, header, 0, header.length, 0); // the sizes: RIFF (the file less 8 bytes), fact's samples, data (the decoded bytes)
    }
    closeSync(fd);
    fd = null;
    wav = null;
  }

  return {
    push(ev, emit) {
      if (ev.type === 'start') {
        close();
        names.start(ev.id);
      } else if (ev.type === 'audio_delta' && ev.choice === undefined) {
        if (fd === null) {
          wav = wavFormat(ev.mimeType);
          dataBytes = 0;
          const path = names.path(wav === null ? ev.mimeType : 'audio/wav');
          fd = openSync(path, 'w');
          files.push(path);
          if (wav !== null) writeSync(fd, wavHeader(wav, 0));
        }
        const bytes = Buffer.from(ev.data, 'base64');
        writeSync(fd, bytes);
        dataBytes += bytes.length;
      } else if (ev.type === 'done' && ev.choice === undefined) {
        close();
      }
      emit(ev);
    },
    end() {
      close();
    },
    get files() {
      return files;
    },
  };
}

export function createFileWriter(dir: string, prefix: string): MediaWriter {
  const names = new ResponseNames(dir, prefix);
  const files: string[] = [];
  let fileNo = 0;
  return {
    push(ev, emit) {
      if (ev.type === 'start') {
        names.start(ev.id);
        fileNo = 0;
      } else if (ev.type === 'file' && ev.partial !== true) {
        const path = names.path(ev.mimeType, ++fileNo);
        writeFileSync(path, Buffer.from(ev.data, 'base64'));
        files.push(path);
      }
      emit(ev);
    },
    end() {},
    get files() {
      return files;
    },
  };
}
