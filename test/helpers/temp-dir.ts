import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created = new Set<string>();

/**
 * A new empty folder `sessionctl-<what>-XXXXXX` in the temp dir. It is removed when the test file
 * ends (test/helpers/setup.ts), or earlier with `removeTempDir`. Tests make folders only through
 * here (scripts/lint-tests.mjs), so none is left behind.
 */
export function tempDir(what: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sessionctl-${what}-`));
  created.add(dir);
  return dir;
}

/** Removes a folder made by `tempDir` now (a test that makes many, or wants a clean slate). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  created.delete(dir);
}

/** Removes every folder this test file made; the setup file calls it after the file's tests. */
export function removeAllTempDirs(): void {
  for (const dir of created) removeTempDir(dir);
}
