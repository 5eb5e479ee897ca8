import { lockOwner, type StateLockOptions } from '../state/file-lock.js';

/** The state lock's owner and liveness check for this process. */
export function processLock(): StateLockOptions {
  return {
    owner: lockOwner(process.pid),
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
