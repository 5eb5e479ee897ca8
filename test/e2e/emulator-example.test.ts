/**
 * examples/app-test runs as an application would run it (`node --test`), against the package's
 * built entry (`sessionctl` resolves to dist/ by the package's own name), the official SDKs and an
 * MCP client: the README's and docs/emulator.md's recipe keeps working.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));

test('node --test examples/app-test passes', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, ['--test', 'examples/app-test/'], { cwd: repo, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, out).toBe(0);
  expect(out).toMatch(/# pass 3\b/);
  expect(out).toMatch(/# fail 0\b/);
});
