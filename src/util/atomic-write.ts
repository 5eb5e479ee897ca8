import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of a newly written file, before the umask. Default 0o666; use 0o600 for state. */
  mode?: number;
}

const RENAME_RETRIES = 5;

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * part: the data goes to a temporary file in the same folder (a rename across file systems is
 * not atomic), opened with `wx` so a planted file or symlink is never followed, flushed to disk,
 * then renamed over the target. On any error the temporary file is removed and the target is left
 * as it was.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let created = false;
  try {
    const handle = await open(tmp, 'wx', options.mode ?? 0o666);
    created = true;
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(tmp, path);
    created = false;
  } finally {
    if (created) await unlink(tmp).catch(() => undefined);
  }
  await syncDir(dir);
}

// On Windows a rename fails with EPERM/EBUSY while another process (an indexer, an editor) has
// the target open; it usually succeeds a moment later.
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt >= RENAME_RETRIES || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
    }
  }
}

/** Makes the rename itself durable. Best effort: some platforms cannot open or sync a folder. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot fsync a directory; the data itself is already synced.
  }
}
