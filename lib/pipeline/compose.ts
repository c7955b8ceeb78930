/**
 * compose(...stages): a user-assembled chain of stage Transforms (and any
 * Duplex of the user's, e.g. a filter between normalizer and accumulator) as
 * one Duplex, built with pumpify: errors and backpressure propagate through it.
 * A Duplex of the user's between two stages costs a stream hop; wirefold's
 * own stages piped into each other run one another (pipeline/transform.ts),
 * and createStream fuses them into one Transform.
 */
import pumpify from 'pumpify';
import type { Duplex, Stream } from 'node:stream';

export function compose(...stages: Stream[]): Duplex {
  if (stages.length < 2) throw new TypeError('compose() needs at least two stages');
  return new pumpify.obj(stages);
}
