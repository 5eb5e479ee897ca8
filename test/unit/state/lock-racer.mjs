// A racer for the file lock, in its own process: for each line "go <state path>" on stdin it tries
// to take that state's lock with the CLI's real liveness check and answers "held <path> <id>" or
// "locked <path>" (or "error <path> <message>"). It never releases: what it holds stays held, by a
// live process, until the parent ends it. Uses the built dist/ (npm test builds first).
import { createInterface } from 'node:readline';
import { takeFileLock } from '../../../dist/state/file-lock.js';
import { processLock } from '../../../dist/cli/process-lock.js';

const lock = processLock();
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const path = line.slice('go '.length);
  takeFileLock(path, lock).then(
    (id) => process.stdout.write(`held ${path} ${id}\n`),
    (err) => process.stdout.write(/is locked by/.test(err.message) ? `locked ${path}\n` : `error ${path} ${err.message}\n`),
  );
}
