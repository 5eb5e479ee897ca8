import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliBundle, spawnEmulator } from '../conformance/cli-bundle.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';
import { skipBecause, wildcardBindAllowed, wildcardBindReason } from '../helpers/skip.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const SENTINEL = 'sentinel-key-DO-NOT-PRINT-7f3a9c';

async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = await cliBundle();
  const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

describe('sessionctl emulator', () => {
  it('--help shows examples', async () => {
    const r = await runToExit(['emulator', '--help']);
    expect(r.code).toBe(0);
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples.split('\n').filter((l) => l.startsWith('  sessionctl emulator')).length).toBeGreaterThanOrEqual(4);
    expect(examples).toContain('docs/emulator.md');
  });

  it('prints its URL on stdout, logs requests on stderr without keys, and stops cleanly on SIGTERM', async () => {
    const emu = await spawnEmulator(['--port', '0', '--api-key', SENTINEL]);
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call(emu.url, 'GET', '/_emulator/health', { key: SENTINEL })).status).toBe(200);
    const id = await createSession(emu.url, SENTINEL);
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: `${SENTINEL}x` })).status).toBe(401);
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`)).status).toBe(401);
    const code = await emu.stop('SIGTERM');
    expect(code).toBe(0);
    expect(emu.stdout()).toBe(`${emu.url}\n`);
    expect(emu.stderr()).toContain('GET /_emulator/health 200');
    expect(emu.stderr()).toContain('POST /api/v3/tool_router/session 201');
    expect(emu.stderr()).toContain(`GET /api/v3/tool_router/session/${id} 401`);
    expect(emu.stderr()).toContain('emulator stopped (SIGTERM)');
    expect(emu.stdout() + emu.stderr()).not.toContain(SENTINEL);
  });

  it.skipIf(skipBecause(!wildcardBindAllowed, wildcardBindReason))('warns when it listens beyond loopback without keys', async () => {
    const emu = await spawnEmulator(['--port', '0', '--host', '0.0.0.0']);
    try {
      expect((await call(emu.url, 'GET', '/_emulator/health')).status).toBe(200);
    } finally {
      await emu.stop();
    }
    expect(emu.stderr()).toContain('warning: listening on 0.0.0.0, not loopback: other machines can reach this emulator, and any key is accepted');
  });

  it('--rate-limit and --data-dir', async () => {
    const dir = tempDir('emu-cli');
    const emu = await spawnEmulator(['--port', '0', '--rate-limit', '2/min', '--data-dir', dir]);
    try {
      const id = await createSession(emu.url, 'cli-key-123456');
      expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: 'cli-key-123456' })).status).toBe(200);
      expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: 'cli-key-123456' })).status).toBe(429);
    } finally {
      await emu.stop();
    }
    const again = await spawnEmulator(['--port', '0', '--data-dir', dir]);
    try {
      expect((await call(again.url, 'GET', '/_emulator/health')).json.sessions).toBe(1);
    } finally {
      await again.stop();
    }
  });

  it('--catalog serves another catalogue', async () => {
    const dir = tempDir('emu-cat');
    const file = join(dir, 'catalog.json');
    writeFileSync(
      file,
      JSON.stringify({
        toolkits: [{ slug: 'acme', name: 'Acme', auth_schemes: ['API_KEY'], composio_managed_auth_schemes: [], no_auth: false }],
        tools: [{ slug: 'ACME_PING', name: 'Ping', toolkit: 'acme', tags: ['readOnlyHint'], input: { required: [], properties: {} } }],
      }),
    );
    const emu = await spawnEmulator(['--port', '0', '--catalog', file]);
    try {
      const ok = await call(emu.url, 'POST', SESSION, { key: 'cat-key-123456', body: { user_id: 'u', toolkits: { enable: ['acme'] } } });
      expect(ok.status).toBe(201);
      const gone = await call(emu.url, 'POST', SESSION, { key: 'cat-key-123456', body: { user_id: 'u', toolkits: { enable: ['gmail'] } } });
      expect(gone.json.error.slug).toBe('ToolRouterV2_InvalidToolkitSlugs');
    } finally {
      await emu.stop();
    }
  });

  it.each([
    [['--port', '99999'], "error: option '--port <port>' argument '99999' is invalid. expected a port number from 0 to 65535 (0 picks a free one)"],
    [['--port', '-1'], "error: option '--port <port>' argument '-1' is invalid. expected a port number from 0 to 65535"],
    [['--port', '80.5'], "error: option '--port <port>' argument '80.5' is invalid. expected a port number"],
    [['--rate-limit', 'lots'], "error: option '--rate-limit <n/min>' argument 'lots' is invalid. expected requests per minute per key, such as 600/min"],
    [['--rate-limit', '0/min'], "error: option '--rate-limit <n/min>' argument '0/min' is invalid. expected requests per minute"],
    [['--catalog', '/nonexistent/catalog.json'], 'cannot read the catalogue: ENOENT'],
    [['--bogus'], "unknown option '--bogus'"],
    [['--mcp-streams-per-key', '0'], "error: option '--mcp-streams-per-key <n>' argument '0' is invalid. expected a whole number of streams, at least 1"],
    [['--mcp-streams', 'many'], "error: option '--mcp-streams <n>' argument 'many' is invalid. expected a whole number of streams"],
    [['--mcp-idle-timeout', '0'], "error: option '--mcp-idle-timeout <seconds>' argument '0' is invalid. expected seconds, from 1 to 86400"],
  ])('bad input %j exits 2 with a clear message, and never shows the key', async (args, message) => {
    const r = await runToExit(['emulator', '--api-key', SENTINEL, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect(r.stdout + r.stderr).not.toContain(SENTINEL);
  });

  it('a data directory that cannot be used exits 2 naming it', async () => {
    const dir = tempDir('emu-dd');
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const r = await runToExit(['emulator', '--port', '0', '--data-dir', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: cannot use the data directory (ENOTDIR)`);
    writeFileSync(join(dir, 'state.json'), 'not json');
    const corrupt = await runToExit(['emulator', '--port', '0', '--data-dir', dir]);
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toContain('state.json is not valid JSON');
  });

  it('a host that does not resolve exits 2', async () => {
    // In this process, where the loopback guard answers `.invalid` names itself: no DNS query leaves.
    const r = await runCli(['emulator', '--port', '0', '--host', 'no-such-host.invalid']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: --host no-such-host.invalid does not resolve\n');
    expect(r.stdout).toBe('');
  });

  it('a catalogue that is not a catalogue exits 2', async () => {
    const dir = tempDir('emu-cat');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ toolkits: [{ slug: 'a' }], tools: [{ slug: 'X', toolkit: 'b' }] }));
    const r = await runToExit(['emulator', '--port', '0', '--catalog', join(dir, 'bad.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("catalog: tools[0].toolkit must name one of the catalogue's toolkits");
  });

  it('a port in use exits 2', async () => {
    const emu = await spawnEmulator(['--port', '0']);
    try {
      const port = new URL(emu.url).port;
      const r = await runToExit(['emulator', '--port', port, '--api-key', SENTINEL]);
      expect(r.stdout + r.stderr).not.toContain(SENTINEL);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    } finally {
      await emu.stop();
    }
  });
});

describe('sessionctl emulator keys from a file and the environment (issue 14 item 6)', () => {
  it('accepts the keys of --api-keys-file and SESSIONCTL_EMULATOR_API_KEYS, and prints none of them', async () => {
    const dir = tempDir('emu-keys');
    try {
      const file = join(dir, 'keys.txt');
      writeFileSync(file, '# team keys\nfile-key-AAAA-1111\n\nfile-key-BBBB-2222\n', { mode: 0o600 });
      const emu = await spawnEmulator(['--port', '0', '--api-keys-file', file], { SESSIONCTL_EMULATOR_API_KEYS: 'env-key-CCCC-3333, env-key-DDDD-4444' });
      for (const key of ['file-key-AAAA-1111', 'file-key-BBBB-2222', 'env-key-CCCC-3333', 'env-key-DDDD-4444']) {
        expect((await call(emu.url, 'POST', SESSION, { key, body: { user_id: 'u' } })).status).toBe(201);
      }
      expect((await call(emu.url, 'POST', SESSION, { key: 'other-key-0000', body: { user_id: 'u' } })).status).toBe(401);
      expect(await emu.stop()).toBe(0);
      expect(emu.stderr()).toContain('4 key(s)');
      for (const key of ['AAAA', 'BBBB', 'CCCC', 'DDDD']) expect(emu.stdout() + emu.stderr()).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unreadable or empty keys file is exit 2, located', async () => {
    const dir = tempDir('emu-keys');
    try {
      writeFileSync(join(dir, 'empty.txt'), '# nothing\n');
      const missing = await runToExit(['emulator', '--port', '0', '--api-keys-file', join(dir, 'nope.txt')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('nope.txt: cannot read the API keys file (ENOENT)');
      const empty = await runToExit(['emulator', '--port', '0', '--api-keys-file', join(dir, 'empty.txt')]);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('empty.txt: the API keys file holds no key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an admin key from --admin-key-file acts for the whole server and is never printed', async () => {
    const dir = tempDir('emu-admin');
    try {
      const file = join(dir, 'admin.txt');
      writeFileSync(file, '# the admin key\nadmin-key-EEEE-5555\n', { mode: 0o600 });
      const emu = await spawnEmulator(['--port', '0', '--api-key', 'tenant-key-FFFF-6666', '--admin-key-file', file]);
      await createSession(emu.url, 'tenant-key-FFFF-6666');
      expect((await call(emu.url, 'GET', '/_emulator/counts')).status).toBe(401);
      expect((await call(emu.url, 'GET', '/_emulator/counts', { key: 'admin-key-EEEE-5555' })).json.sessions).toBe(1);
      expect((await call(emu.url, 'POST', SESSION, { key: 'admin-key-EEEE-5555', body: { user_id: 'u' } })).status).toBe(401);
      expect(await emu.stop()).toBe(0);
      expect(emu.stderr()).toContain('1 key(s), an admin key');
      for (const key of ['EEEE', 'FFFF']) expect(emu.stdout() + emu.stderr()).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['an admin key without API keys', ['--admin-key', 'admin-key-GGGG-7777'], 'an admin key needs API keys'],
    ['an admin key that is also an API key', ['--api-key', 'same-key-HHHH-8888', '--admin-key', 'same-key-HHHH-8888'], 'the admin key is also one of the API keys'],
    ['an admin key with a space', ['--api-key', 'tenant-key-IIII-9999', '--admin-key', 'admin JJJJ 0000'], 'an emulator admin key holds spaces'],
  ])('%s is exit 2, and the key is not printed', async (_name, args, message) => {
    const r = await runToExit(['emulator', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    for (const key of ['GGGG', 'HHHH', 'JJJJ']) expect(r.stdout + r.stderr).not.toContain(key);
  });
});
