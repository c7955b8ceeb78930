/** A WAV file the CLI wrote, read back chunk by chunk for the audio tests. */
import type { Test } from 'tap';

export interface Wav {
  /** The RIFF chunk's size field. */
  riffSize: number;
  fmtSize: number;
  format: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bits: number;
  /** The fact chunk's sample count (G.711 only). */
  factSamples: number | null;
  /** Where the samples start in the file (44 in the canonical PCM header). */
  dataStart: number;
  dataSize: number;
  data: Buffer;
}

/** Walks the RIFF chunks, checking the frame: RIFF size = file - 8, WAVE, `fmt `, then `fact` when present, then `data`. */
export function parseWav(t: Test, file: Buffer): Wav {
  t.equal(file.toString('latin1', 0, 4), 'RIFF');
  t.equal(file.readUInt32LE(4), file.length - 8, 'RIFF size = file size - 8');
  t.equal(file.toString('latin1', 8, 12), 'WAVE');
  let at = 12;
  const chunks = new Map<string, { start: number; size: number }>();
  while (at + 8 <= file.length) {
    const id = file.toString('latin1', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    chunks.set(id, { start: at + 8, size });
    at += 8 + size + (size % 2);
  }
  t.same([...chunks.keys()].filter((k) => k !== 'fact'), ['fmt ', 'data'], 'fmt then data');
  const fmt = chunks.get('fmt ')!;
  const data = chunks.get('data')!;
  const fact = chunks.get('fact');
  const f = fmt.start;
  return {
    riffSize: file.readUInt32LE(4),
    fmtSize: fmt.size,
    format: file.readUInt16LE(f),
    channels: file.readUInt16LE(f + 2),
    sampleRate: file.readUInt32LE(f + 4),
    byteRate: file.readUInt32LE(f + 8),
    blockAlign: file.readUInt16LE(f + 12),
    bits: file.readUInt16LE(f + 14),
    factSamples: fact === undefined ? null : file.readUInt32LE(fact.start),
    dataStart: data.start,
    dataSize: data.size,
    data: file.subarray(data.start, data.start + data.size),
  };
}

/** parseWav, and the canonical 44-byte PCM header: a 16-byte fmt chunk, the samples from byte 44. */
export function parseCanonicalWav(t: Test, file: Buffer): Wav {
  const wav = parseWav(t, file);
  t.equal(wav.fmtSize, 16, 'fmt chunk of 16 bytes (PCM)');
  t.equal(wav.dataStart, 44, 'the samples from byte 44');
  return wav;
}
