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
 * Raw PCM audio (`audio/pcm`, `audio/L16`) has no container a player could
 * open, so it is written as a WAV file (see createAudioWriter); any other
 * codec is written as it came, in its own container (mp3, ogg, flac…).
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { UnifiedEvent } from '../events.js';
import type { Stage } from '../stage.js';

const EXTENSIONS: Record<string, string> = {
  'audio/pcm': 'pcm',
  'audio/l16': 'pcm',
  'audio/pcmu': 'ulaw',
  'audio/pcma': 'alaw',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'audio/g711_ulaw': 'ulaw',
  'audio/g711_alaw': 'alaw',
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

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/**
 * The WAV format of a raw PCM MIME type, or null for any other codec.
 * 16-bit samples, as every provider sends them. `rate=` and `channels=`
 * parameters (RFC 2586's for L16; Gemini's `audio/pcm;rate=24000`) are read
 * when they are positive integers, else 24000 Hz and mono.
 */
export function pcmFormat(mimeType: string | null): PcmFormat | null {
  if (mimeType === null) return null;
  const base = baseOf(mimeType);
  if (base !== 'audio/pcm' && base !== 'audio/l16') return null;
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
    // (the header's byte rate, rate × channels × 2, must fit its 32 bits)
    sampleRate: positive(params.get('rate'), 100_000_000) ?? DEFAULT_PCM_RATE,
    channels: positive(params.get('channels'), 16) ?? 1,
  };
}

const WAV_HEADER_BYTES = 44;
/** The largest size a RIFF field holds; a longer recording keeps this (players then read to the end of the file). */
const MAX_RIFF_SIZE = 0xffffffff;

/**
 * A canonical 44-byte WAV header: RIFF/WAVE, a 16-byte `fmt ` chunk of PCM
 * (format 1), 16 bits per sample, then the `data` chunk's header. The sizes
 * (RIFF at byte 4, data at byte 40) are those of `dataBytes`; the writer
 * streams, so it writes 0 first and patches both when the response ends.
 */
export function wavHeader(format: PcmFormat, dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = format.channels * 2;
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(Math.min(MAX_RIFF_SIZE, WAV_HEADER_BYTES - 8 + dataBytes + (dataBytes % 2)), 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(Math.min(MAX_RIFF_SIZE, format.sampleRate * blockAlign), 28); // byte rate
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(Math.min(MAX_RIFF_SIZE, dataBytes), 40);
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
 * they come (a long session never sits in memory). Raw PCM becomes a WAV
 * file: a header with zero sizes first, both sizes rewritten in place when
 * the response ends. The samples are copied as received, little-endian as
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
  let wav: PcmFormat | null = null;
  let dataBytes = 0;

  function close(): void {
    if (fd === null) return;
    if (wav !== null) {
      // RIFF chunks are word-aligned: an odd data chunk (a cut sample) is followed by a pad byte.
      if (dataBytes % 2 === 1) writeSync(fd, Buffer.alloc(1));
      const sizes = wavHeader(wav, dataBytes);
      writeSync(fd, sizes, 4, 4, 4); // RIFF size: the file less its first 8 bytes
      writeSync(fd, sizes, 40, 4, 40); // data size: the decoded bytes
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
          wav = pcmFormat(ev.mimeType);
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
