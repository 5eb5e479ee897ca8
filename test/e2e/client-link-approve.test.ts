/**
 * Offline link flows (issue 10 item 4): `sessionctl link ... --emulator --approve` completes the
 * connection without a browser, so execute and proxy succeed offline right after it.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { call } from '../conformance/emulator-http.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = tempDir('link-approve');
  await mkdir(join(dir, 'sessions'));
  await copyFile(join(repo, 'examples/support-agent.yaml'), join(dir, 'sessions/support-agent.yaml'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('link --emulator --approve', () => {
  test('before it execute and proxy fail for want of a connection; after it both succeed offline', async () => {
    const opts = { cwd: dir, env: {} };
    expect((await runCli(['apply', 'sessions', '--emulator'], opts)).exitCode).toBe(0);
    const args = ['--arg', 'owner=octocat', '--arg', 'repo=hello-world'];
    const before = await runCli(['execute', 'support-agent', 'GITHUB_GET_A_REPOSITORY', ...args, '--emulator'], opts);
    expect(before.exitCode).toBe(1);
    expect(before.stderr).toContain("No active connection for toolkit 'github'");
    const proxyArgs = ['proxy', 'support-agent', '--toolkit', 'github', '--method', 'GET', '--endpoint', '/user', '--emulator'];
    const proxyBefore = await runCli(proxyArgs, opts);
    expect(proxyBefore.exitCode).toBe(3);
    expect(proxyBefore.stderr).toContain('ToolRouterV2_NoActiveConnection');

    const linked = await runCli(['link', 'support-agent', 'github', '--emulator', '--approve'], opts);
    expect(linked.exitCode, linked.stderr).toBe(0);
    expect(linked.stderr).toMatch(/approved on the emulator: github is connected \(ca_[A-Za-z0-9_-]+\)/);

    const after = await runCli(['execute', 'support-agent', 'GITHUB_GET_A_REPOSITORY', ...args, '--emulator', '--format', 'json'], opts);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).error).toBeNull();
    const proxied = await runCli([...proxyArgs, '--format', 'json'], opts);
    expect(proxied.exitCode, proxied.stderr).toBe(0);
    expect(JSON.parse(proxied.stdout).status).toBe(200);
  });

  test('--approve against a running emulator by --base-url, and refused for any other service', async () => {
    const emu: RunningEmulator = await startEmulator({ port: 0 });
    try {
      const s = await call(emu.url, 'POST', '/api/v3/tool_router/session', { key: 'k-approve-123456', body: { user_id: 'u' } });
      const env = { COMPOSIO_API_KEY: 'k-approve-123456' };
      const r = await runCli(['link', s.json.session_id, 'github', '--approve', '--base-url', emu.url], { cwd: dir, env });
      expect(r.exitCode, r.stderr).toBe(0);
      const kits = await call(emu.url, 'GET', `/api/v3/tool_router/session/${s.json.session_id}/toolkits?toolkits=github&is_connected=true`, { key: 'k-approve-123456' });
      expect(kits.json.items.map((t: { slug: string; connected_account: { status: string } }) => [t.slug, t.connected_account.status])).toEqual([['github', 'ACTIVE']]);
    } finally {
      await emu.close();
    }
    const refused = await runCli(['link', 'trs_abc123', 'github', '--approve', '--base-url', 'https://backend.composio.dev'], { cwd: dir, env: { COMPOSIO_API_KEY: 'k-approve-123456' } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--approve completes a link only on an emulator');
  });

  test('--approve against an emulator with --api-key keys sends the run\'s key, which approves its own accounts alone', async () => {
    const emu: RunningEmulator = await startEmulator({ port: 0, apiKeys: ['k-approve-own-0001', 'k-approve-other-0002'] });
    try {
      const s = await call(emu.url, 'POST', '/api/v3/tool_router/session', { key: 'k-approve-own-0001', body: { user_id: 'u' } });
      const r = await runCli(['link', s.json.session_id, 'github', '--approve', '--base-url', emu.url], { cwd: dir, env: { COMPOSIO_API_KEY: 'k-approve-own-0001' } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('k-approve-own-0001');
      const kits = await call(emu.url, 'GET', `/api/v3/tool_router/session/${s.json.session_id}/toolkits?toolkits=github`, { key: 'k-approve-own-0001' });
      expect(kits.json.items[0].connected_account.status).toBe('ACTIVE');
      // Another key's link: its account is not this key's to approve (the session is not even found).
      const theirs = await call(emu.url, 'POST', '/api/v3/tool_router/session', { key: 'k-approve-other-0002', body: { user_id: 'u' } });
      const refused = await runCli(['link', theirs.json.session_id, 'github', '--approve', '--base-url', emu.url], { cwd: dir, env: { COMPOSIO_API_KEY: 'k-approve-own-0001' } });
      expect(refused.exitCode).toBe(3);
    } finally {
      await emu.close();
    }
  });
});

