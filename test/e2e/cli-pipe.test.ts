import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../dist/sessionctl.js', import.meta.url));

/** Runs the built bin and closes its stdout after the first chunk, as `| head -1` does. */
function runClosingEarly(args: string[]): Promise<{ code: number | null; stderr: string }> {
  if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build`');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that closes the pipe early', () => {
  it.each([['completion', 'zsh'], ['schema']])('sessionctl %s ends quietly, without a stack trace', async (...args) => {
    const r = await runClosingEarly(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
