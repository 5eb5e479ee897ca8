import type { RegisterCommand } from './command.js';
import { processIo } from './io.js';
import { runCli } from './run.js';

/** Runs the CLI in this process: the real streams and environment, and the exit code set at the end. */
export async function runMain(commands: readonly RegisterCommand[]): Promise<void> {
  // A reader that stops early (`sessionctl schema | head`) closes the pipe: that is not a failure of
  // ours and deserves no stack trace. Stop quietly with the exit code decided so far, as cat does.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(process.exitCode ?? 0);
    });
  }
  process.exitCode = await runCli(process.argv.slice(2), processIo(), commands);
}
