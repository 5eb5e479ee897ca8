/**
 * Runs once around the whole run (vitest `globalSetup`). The tests get a temp dir of their own
 * (TMPDIR, which os.tmpdir(), the workers and child processes follow); at the end it must be
 * empty: a folder left in it fails the run, naming the folder. It is removed either way.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'sessionctl-suite-'));
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  return () => {
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    if (left.length > 0) {
      // vitest reports an error thrown here but still exits 0: set the exit code as well.
      process.exitCode = 1;
      throw new Error(`the tests left ${left.length} folder(s) in the temp dir: ${left.sort().join(', ')}`);
    }
  };
}
