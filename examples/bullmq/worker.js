/**
 * node worker.js: a BullMQ worker whose jobs run in sandboxed processors
 * (decode.js, in child processes): a capture that makes the decoder use a
 * lot of memory, or a crash, takes down one child, not the worker. Start
 * as many as you like, on as many machines: Redis shares the jobs out.
 *
 * A worker that dies (SIGKILL, a lost machine) stops renewing its jobs'
 * locks; once a lock is older than LOCK_MS, another worker's stalled-job
 * check (every STALLED_MS) puts the job back in the queue, and it runs
 * again elsewhere. decode.js writes results so that a second run is harmless.
 */
import { Worker } from 'bullmq';
import { availableParallelism, hostname } from 'node:os';
import { connection, queueName } from './config.js';

const worker = new Worker(queueName, new URL('./decode.js', import.meta.url), {
  connection,
  // stored on each job it runs (job.processedBy): which machine and process did what
  name: `${hostname()}:${process.pid}`,
  concurrency: Number(process.env.CONCURRENCY ?? availableParallelism()),
  // BullMQ's defaults (30 s each) suit jobs of minutes; lower them to take a dead worker's jobs back sooner
  lockDuration: Number(process.env.LOCK_MS ?? 30_000),
  stalledInterval: Number(process.env.STALLED_MS ?? 30_000),
  // a job counts as failed after stalling this many times (each a worker lost while running it)
  maxStalledCount: 2,
});

worker.on('failed', (job, err) => console.error(`job ${job?.id} (${job?.data.path}): ${err.message}`));
worker.on('error', (err) => console.error(`worker: ${err.message}`));
await worker.waitUntilReady();
console.log(`worker ${process.pid} ready on ${queueName}`);

// finish the jobs under way, then exit: they are not left to the stalled check
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await worker.close();
    process.exit(0);
  });
}
