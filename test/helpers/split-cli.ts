/**
 * The CLI's main() in a process of its own, the SSE log part sizes made small
 * (argv[2]: part bytes; then the CLI's arguments), for sse-split tests whose
 * workers die: a worker out of memory ends the test runner's process too.
 */
import { sseCutSizes } from '../../lib/cli/sse-cut.js';
import { runCli } from './cli.js';

sseCutSizes.rangeBytes = Number(process.argv[2]);
sseCutSizes.minBytes = 0;
const r = await runCli(process.argv.slice(3));
process.stdout.write(r.stdout);
process.stderr.write(r.stderr);
process.exitCode = r.code;
