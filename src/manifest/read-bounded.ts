import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** What `readFileBounded` found: the bytes, a size past the limit, or the error of the read. */
export type BoundedRead = { bytes: Buffer } | { tooLarge: number } | { error: unknown };

/**
 * Reads at most `maxBytes + 1` bytes. A regular file larger than the limit is refused from its
 * size alone, without reading it; a pipe or device (`/dev/zero`, `<(command)`) is read only until
 * it passes the limit, so no input can make the read itself unbounded.
 *
 * Synchronous on purpose: files are loaded one after the other anyway, and each awaited step of
 * `fs/promises` is a round trip through the thread pool. Validating 1,000 small files spent
 * about 0.65 s of a 1.5 s run idle, waiting for those round trips (bench/RESULTS.md).
 */
export function readFileBounded(file: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    return { error };
  }
  try {
    const s = fstatSync(fd);
    if (s.isDirectory()) return { error: Object.assign(new Error('is a folder'), { code: 'EISDIR' }) };
    if (s.isFile() && s.size > maxBytes) return { tooLarge: s.size };
    // A regular file is read into one buffer of its size plus one byte, which notices a file that
    // grew (or a /proc file that reports size 0); past its size, and for pipes, in 64 KiB chunks.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(s.isFile() && total <= s.size ? s.size + 1 - total : 64 * 1024, maxBytes + 1 - total);
      if (want <= 0) break;
      const buffer = Buffer.allocUnsafe(want);
      const bytesRead = readSync(fd, buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > maxBytes) return { tooLarge: total };
    return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
  } catch (error) {
    return { error };
  } finally {
    closeSync(fd);
  }
}
