/**
 * node enqueue.js <capture> ...: one job per capture file, named by its
 * path. Paths are made absolute, so the workers must see the same file
 * system (one machine, or a shared mount); captures in object storage
 * would be named by their keys instead, and fetched in decode.js.
 */
import { resolve } from 'node:path';
import { Queue } from 'bullmq';
import { connection, queueName } from './config.js';

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error('usage: node enqueue.js <capture> ...');
  process.exit(2);
}

const queue = new Queue(queueName, { connection });
// addBulk: one round trip per thousand jobs rather than one per job
for (let i = 0; i < paths.length; i += 1000) {
  const jobs = paths.slice(i, i + 1000).map((p) => ({
    name: 'decode',
    data: { path: resolve(p) },
    // a failed decode (an unreadable file) is kept for inspection, not retried forever
    opts: { attempts: 3, removeOnComplete: false, removeOnFail: false },
  }));
  await queue.addBulk(jobs);
}
console.log(`${paths.length} jobs added to ${queueName}`);
await queue.close();
