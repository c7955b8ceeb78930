/** llmstream doctor — placeholder until the reliability work lands. */
import type { CliOptions } from './args.js';
import type { CliIO } from './main.js';

export async function doctor(_opts: CliOptions, io: CliIO): Promise<number> {
  io.stderr.write('llmstream: doctor is not available yet\n');
  return 2;
}
