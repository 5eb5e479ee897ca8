import { lockOwner, type StateLockOptions } from '../state/file-lock.js';
import { describeHolder, formatWait } from '../state/lock.js';

/**
 * The state lock's owner and liveness check for this process; with `stderr`, a line when the run
 * starts waiting (`--lock-timeout`) for a lock another run holds, naming it, and one when it takes
 * over a stale lock, saying why it was stale.
 */
export function processLock(stderr?: { write(text: string): unknown }): StateLockOptions {
  return {
    owner: lockOwner(process.pid),
    ...(stderr !== undefined
      ? {
          onWait: (holder, timeoutMs) => void stderr.write(`waiting up to ${formatWait(timeoutMs)} (--lock-timeout) for the state lock held by ${describeHolder(holder)}\n`),
          // A lock taken from another run is said, with why it was judged stale: a person can check.
          onTakeOver: (holder, why) => void stderr.write(`took over the state lock of ${describeHolder(holder)}: ${why}\n`),
        }
      : {}),
    isAlive: (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (err) {
        // EPERM: it runs, under another user.
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
}
