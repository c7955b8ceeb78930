/**
 * What every part of the example shares, from the environment: where Redis
 * is, the queue's name, where results go. Defaults suit one machine.
 */
import { resolve } from 'node:path';

const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** BullMQ's connection options (ioredis'). */
export const connection = {
  host: url.hostname,
  port: Number(url.port || 6379),
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
};

export const queueName = process.env.QUEUE ?? 'wirefold-captures';

/** The directory of result files, one per job (see decode.js). */
export const resultsDir = resolve(process.env.RESULTS_DIR ?? 'results');

/** A job id as a file name: ids given with `jobId` may hold any character. */
export function resultFile(jobId) {
  return `${encodeURIComponent(jobId)}.json`;
}
