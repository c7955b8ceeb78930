/**
 * The built CLI's main() in a process of its own (plain node: no tsx loader
 * in its workers), the SSE log part sizes made small (argv[2]: part bytes;
 * then the CLI's arguments), for sse-split tests whose workers die: a worker
 * out of memory would end the test runner's own process. `npm test` builds
 * dist/ first.
 */
import { PassThrough, Readable } from 'node:stream';
import { sseCutSizes } from '../../dist/cli/sse-cut.js';
import { main } from '../../dist/cli/main.js';

sseCutSizes.rangeBytes = Number(process.argv[2]);
sseCutSizes.minBytes = 0;
const stdout = new PassThrough();
const stderr = new PassThrough();
stdout.pipe(process.stdout);
stderr.pipe(process.stderr);
process.exitCode = await main(process.argv.slice(3), { stdin: Readable.from([]), stdout, stderr });
