import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `--emulator` on the operate commands uses the in-process emulator whose sessions
 * `apply --emulator` keeps beside the state file, so the offline tour (apply, then get, execute,
 * files ...) works by manifest name with no service and no key.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = tempDir('operate-emulator');
  await mkdir(join(dir, 'sessions'));
  await copyFile(join(repo, 'examples/support-agent.yaml'), join(dir, 'sessions/support-agent.yaml'));
  await writeFile(join(dir, 'hello.txt'), 'hello from the tour\n');
});

afterAll(() => rm(dir, { recursive: true, force: true }));

test('apply --emulator, then the operate commands by manifest name with --emulator', async () => {
  const opts = { cwd: dir, env: {} };
  const applied = await runCli(['apply', 'sessions', '--emulator'], opts);
  expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
  const state = JSON.parse(await readFile(join(dir, '.sessionctl/state.json'), 'utf8')) as { sessions: Array<{ name: string; session_id: string }> };
  const id = state.sessions.find((s) => s.name === 'support-agent')?.session_id;
  expect(id).toMatch(/^trs_/);

  const got = await runCli(['get', 'support-agent', '--emulator', '--format', 'json'], opts);
  expect(got.exitCode, got.stderr).toBe(0);
  expect(JSON.parse(got.stdout).session_id).toBe(id);
  expect(got.stderr).toMatch(/^emulator: http:\/\/127\.0\.0\.1:\d+ \(sessions kept in .*emulator\)\n$/);

  const put = await runCli(['files', 'put', 'support-agent', 'hello.txt', 'notes/hello.txt', '--emulator'], opts);
  expect(put.exitCode, put.stderr).toBe(0);
  // Another process run: the file is still there, kept in the emulator's data folder.
  const back = await runCli(['files', 'get', 'support-agent', 'notes/hello.txt', 'back.txt', '--emulator'], opts);
  expect(back.exitCode, back.stderr).toBe(0);
  expect(await readFile(join(dir, 'back.txt'), 'utf8')).toBe('hello from the tour\n');

  const failed = await runCli(['execute', 'support-agent', 'GMAIL_SEND_EMAIL', '--arg', 'recipient_email=a@example.com', '--emulator'], opts);
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toContain("error: tool GMAIL_SEND_EMAIL failed: No active connection for toolkit 'gmail'");
});
