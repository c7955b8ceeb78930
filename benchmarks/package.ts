/**
 * The library as the benchmarks run it: the built package (dist/, what npm
 * installs and a service imports), not lib/ compiled on the fly by tsx.
 * tsx's esbuild keeps function names (`keepNames`): every function made at
 * run time (a response's handlers, an encoder's per-response closures) goes
 * through an Object.defineProperty call that the published code never makes.
 * `npm run bench*` build dist/ first.
 */
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/index.js', import.meta.url))) throw new Error('benchmarks run the built package: `npm run build` first (npm run bench and bench:quick do)');

export { createStream, decoder, finalAccumulator, jsonArrayFramer, normalizer, sseFramer } from '../dist/index.js';
export { createFramer } from '../dist/framing/detect.js';
