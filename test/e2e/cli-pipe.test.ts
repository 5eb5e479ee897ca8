import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const bin = fileURLToPath(new URL('../../dist/sessionctl.js', import.meta.url));

/**
 * Runs the built bin into a reader that has already gone (`| true` exits before node has started),
 * so its first write meets a closed pipe; returns the bin's own exit code and stderr. `sh`, not
 * bash, which reads ~/.bashrc when its input is a socket.
 */
function runIntoClosedPipe(args: string[]): { code: number; stderr: string } {
  if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build`');
  const dir = tempDir('pipe');
  const quoted = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ');
  spawnSync('sh', ['-c', `{ ${quoted} 2>"${dir}/err"; echo $? >"${dir}/code"; } | true`], {
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
  });
  return { code: Number(readFileSync(join(dir, 'code'), 'utf8')), stderr: readFileSync(join(dir, 'err'), 'utf8') };
}

describe('a reader that closes the pipe early', () => {
  it.each([['completion', 'zsh'], ['schema'], ['--help']])('sessionctl %s ends quietly, without a stack trace', (...args) => {
    const r = runIntoClosedPipe(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
