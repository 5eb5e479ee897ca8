/**
 * A session's mount files, keyed by their relative path. Paths are user input, so every access is
 * by own property: `__proto__`, `constructor` or `toString` are file names like any other, never
 * the object's prototype or its methods (a plain `files[path]` would upload into the prototype and
 * find `toString` in every mount).
 */
import type { FileRecord, SessionRecord } from './store.js';

/** The files of one mount (an empty object when it has none). */
export function ownFiles(session: SessionRecord, mount: string): Record<string, FileRecord> {
  return Object.hasOwn(session.mounts, mount) ? (session.mounts[mount] as Record<string, FileRecord>) : {};
}

export function fileAt(session: SessionRecord, mount: string, path: string): FileRecord | undefined {
  const files = ownFiles(session, mount);
  return Object.hasOwn(files, path) ? files[path] : undefined;
}

/** Stores `file` at its path; returns the file it replaced. */
export function putFile(session: SessionRecord, mount: string, file: FileRecord): FileRecord | undefined {
  if (!Object.hasOwn(session.mounts, mount)) define(session.mounts, mount, {});
  const old = fileAt(session, mount, file.mount_relative_path);
  define(session.mounts[mount] as Record<string, FileRecord>, file.mount_relative_path, file);
  return old;
}

/** Removes the file at `path`; returns it, or undefined when there was none. */
export function removeFile(session: SessionRecord, mount: string, path: string): FileRecord | undefined {
  const old = fileAt(session, mount, path);
  if (old !== undefined) delete ownFiles(session, mount)[path];
  return old;
}

/** An own, enumerable data property, even for `__proto__` (which plain assignment would not create). */
function define<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
