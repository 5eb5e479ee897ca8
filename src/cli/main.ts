#!/usr/bin/env node
import { processIo } from './io.js';
import { runCli } from './run.js';

// A reader that stops early (`sessionctl schema | head`) closes the pipe: that is not a failure of
// ours and deserves no stack trace. Stop quietly with the exit code decided so far, as cat does.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await runCli(process.argv.slice(2), processIo());
