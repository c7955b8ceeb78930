/**
 * compose(...stages): a user-assembled chain of stage Transforms (and any
 * Duplex of the user's, e.g. a filter between normalizer and accumulator) as
 * one Duplex, built with pumpify: errors and backpressure propagate through it.
 * Each hop costs a stream boundary; createStream fuses the built-in stages instead.
 */
import pumpify from 'pumpify';
import type { Duplex, Stream } from 'node:stream';

export function compose(...stages: Stream[]): Duplex {
  if (stages.length < 2) throw new TypeError('compose() needs at least two stages');
  return new pumpify.obj(stages);
}
