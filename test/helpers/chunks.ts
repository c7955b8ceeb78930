/** Chunkings for "the result must not depend on chunk boundaries" tests. */

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function splitAt(buf: Buffer, points: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  out.push(buf.subarray(prev));
  return out;
}

export function fixedChunks(buf: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  if (out.length === 0) out.push(buf);
  return out;
}

export function randomChunks(buf: Buffer, seed: number, maxSize = 64): Buffer[] {
  const r = rng(seed);
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const n = 1 + Math.floor(r() * maxSize);
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  if (out.length === 0) out.push(buf);
  return out;
}

export interface Chunking {
  name: string;
  chunks: Buffer[];
}

/**
 * The chunkings every framing test runs: whole, every two-chunk split point
 * (all of them for inputs up to `maxSplitPoints` bytes, evenly sampled past
 * that), 1-byte chunks, fixed sizes and seeded random splits.
 */
export function* chunkings(input: Buffer | string, maxSplitPoints = 400): Generator<Chunking> {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  yield { name: 'whole', chunks: [buf] };
  const step = Math.max(1, Math.ceil(buf.length / maxSplitPoints));
  for (let p = 1; p < buf.length; p += step) yield { name: `split@${p}`, chunks: splitAt(buf, [p]) };
  yield { name: '1-byte', chunks: fixedChunks(buf, 1) };
  for (const size of [2, 3, 7, 64]) yield { name: `${size}-byte`, chunks: fixedChunks(buf, size) };
  for (let seed = 1; seed <= 5; seed++) yield { name: `random#${seed}`, chunks: randomChunks(buf, seed) };
}

/** A smaller set for large inputs (corpus files): whole, 1-byte, fixed and random. */
export function* quickChunkings(input: Buffer): Generator<Chunking> {
  yield { name: 'whole', chunks: [input] };
  yield { name: '1-byte', chunks: fixedChunks(input, 1) };
  yield { name: '7-byte', chunks: fixedChunks(input, 7) };
  for (let seed = 1; seed <= 3; seed++) yield { name: `random#${seed}`, chunks: randomChunks(input, seed, 200) };
}
