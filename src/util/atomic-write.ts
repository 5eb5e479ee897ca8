import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of a newly written file, before the umask. Default 0o666; use 0o600 for state. */
  mode?: number;
}

/**
 * The target cannot take the write: a block device, a socket, a FIFO nobody reads, a dangling
 * symbolic link. `code` is `ESPECIAL`; the message says what the target is.
 */
export class SpecialFileError extends Error {
  readonly code = 'ESPECIAL';
}

const RENAME_RETRIES = 5;

/** What is written: a text, bytes, or a text in pieces (a big report, never held whole). */
export type WriteData = string | Uint8Array | Iterable<string>;

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * part: the data goes to a temporary file in the same folder (a rename across file systems is
 * not atomic), opened with `wx` so a planted file or symlink is never followed, flushed to disk,
 * then renamed over the target. On any error the temporary file is removed and the target is left
 * as it was.
 *
 * What is already at `path` decides how it is written:
 * - nothing, or a regular file: replaced atomically, as above;
 * - a character device (`/dev/null`, a terminal) or a FIFO with a reader (`/dev/stdout` into a
 *   pipe, `>(command)`): written through, since renaming over it would replace the device or pipe
 *   by a plain file that nobody reads. A FIFO that no process reads is refused rather than waited
 *   on; a block device or a socket is refused (a report written onto a disk would destroy it);
 * - a symbolic link: the link is followed, never replaced. To a regular file, the link's final
 *   target is replaced atomically (its own folder holds the temporary file), except through
 *   `/dev/` or `/proc/` (`/dev/stdout` redirected into a file), where it is written through; to a
 *   device or FIFO, written through; a dangling link is refused. Following, rather than refusing, because links
 *   made on purpose (state kept on a shared volume, a dotfile manager) are the common case and the
 *   state is read through the link: refusing to write it back would strand the sessions an apply
 *   has just created. Replacing the link, as a bare rename does, would leave the real file stale
 *   without a word.
 */
export async function writeFileAtomic(path: string, data: WriteData, options: AtomicWriteOptions = {}): Promise<void> {
  const existing = await lstatOrUndefined(path);
  if (existing === undefined || existing.isFile()) return replaceAtomically(path, data, options);
  if (existing.isSymbolicLink()) {
    const target = await statOrUndefined(path);
    if (target === undefined) throw new SpecialFileError('it is a symbolic link to a file that does not exist');
    // `/dev/stdout` into a file (`> out.sarif`): the shell holds that file open; replacing it
    // would cut the shell's output off. Written through, truncated, as `echo > /dev/stdout` does.
    if (target.isFile() && (await throughSystemPath(path))) return writeThrough(path, target, data);
    if (target.isFile()) return replaceAtomically(await realpath(path), data, options);
    return writeThrough(path, target, data);
  }
  return writeThrough(path, existing, data);
}

async function replaceAtomically(path: string, data: WriteData, options: AtomicWriteOptions): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let created = false;
  try {
    const handle = await open(tmp, 'wx', options.mode ?? 0o666);
    created = true;
    try {
      await writeData(handle, data);
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

/** Writes into an existing device or FIFO (see `writeFileAtomic`), or refuses what must not be written. */
async function writeThrough(path: string, s: Stats, data: WriteData): Promise<void> {
  if (s.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
  if (s.isBlockDevice()) throw new SpecialFileError('it is a block device; sessionctl writes reports only to files, character devices and pipes');
  if (s.isSocket()) throw new SpecialFileError('it is a socket');
  let handle: FileHandle;
  try {
    // Non-blocking, so that a FIFO with no reader fails at once (ENXIO) instead of hanging; no
    // O_CREAT (the node exists); O_TRUNC only for a file (it means nothing for devices and pipes).
    handle = await open(path, constants.O_WRONLY | (s.isFIFO() ? constants.O_NONBLOCK : 0) | (s.isFile() ? constants.O_TRUNC : 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw new SpecialFileError('it is a FIFO (named pipe) that no process reads', { cause: err });
    throw err;
  }
  try {
    await writeData(handle, data);
  } finally {
    await handle.close();
  }
}

async function writeData(handle: FileHandle, data: WriteData): Promise<void> {
  if (typeof data === 'string') await writeAll(handle, Buffer.from(data));
  else if (data instanceof Uint8Array) await writeAll(handle, data);
  else for (const piece of data) await writeAll(handle, Buffer.from(piece));
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
      offset += bytesWritten;
    } catch (err) {
      // A full pipe: wait for the reader, as a blocking write would.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * Whether `path` or a link on its way passes through the system's device or process views
 * (`/dev/stdout` -> `/proc/self/fd/1` -> a file), where no file is ever replaced by a rename.
 */
async function throughSystemPath(path: string): Promise<boolean> {
  let p = resolve(path);
  for (let hop = 0; hop < 40; hop++) {
    if (p.startsWith('/dev/') || p.startsWith('/proc/')) return true;
    if (!(await lstat(p)).isSymbolicLink()) return false;
    p = resolve(dirname(p), await readlink(p));
  }
  return false;
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
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

/**
 * Creates `path` with `text` only if it does not exist, and never leaves it half-written: the
 * text goes to a temporary file in the same folder first, which is then hard-linked into place
 * (`link` fails when the target exists, atomically) and removed.
 */
export async function createNewFile(path: string, text: string): Promise<'created' | 'exists'> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.sessionctl.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return 'created';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Writes `path` atomically; without `replace`, only when it does not exist yet. */
export async function writeNewFile(path: string, text: string, replace: boolean): Promise<'created' | 'exists'> {
  await mkdir(dirname(path), { recursive: true });
  if (!replace) return createNewFile(path, text);
  await writeFileAtomic(path, text);
  return 'created';
}
