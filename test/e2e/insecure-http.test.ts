import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { createClient } from '../../src/client/client.js';
import { UsageError } from '../../src/diagnostics/errors.js';
import { runCli } from '../helpers/run-cli.js';
import { skipBecause, wildcardBindAllowed, wildcardBindReason } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An emulator on another host (a compose service beside an application's tests) is reached over
 * plain http only with an explicit opt-in: `allowInsecureHttp` in the library,
 * SESSIONCTL_ALLOW_HTTP=1 for the CLI. Without it the key is refused before anything is sent.
 */
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');
const KEY = 'ak_insecure_0000001';
const REFUSED = (origin: string, from = '--base-url'): string =>
  `error: ${from} ${origin} uses plain http; the API key is only sent over https (or http to localhost, 127.0.0.0/8, [::1])\n` +
  `hint: use https://${origin.slice('http://'.length)}; for an emulator on another host (a compose service in tests) opt in with allowInsecureHttp: true in the library, SESSIONCTL_ALLOW_HTTP=1 for the CLI\n`;

describe('plain http to a host that is not loopback', () => {
  test('the CLI refuses it without SESSIONCTL_ALLOW_HTTP=1, saying how to opt in (nothing is sent)', async () => {
    const r = await runCli(['get', 'trs_abcdefabcdef', '--base-url', 'http://emulator:4010'], { env: { COMPOSIO_API_KEY: KEY } });
    expect([r.exitCode, r.stdout, r.stderr]).toStrictEqual([2, '', REFUSED('http://emulator:4010')]);
    const other = await runCli(['get', 'trs_abcdefabcdef', '--base-url', 'http://emulator:4010'], { env: { COMPOSIO_API_KEY: KEY, SESSIONCTL_ALLOW_HTTP: 'yes' } });
    expect(other.exitCode, 'only 1 opts in').toBe(2);
  });

  test('the library refuses it unless allowInsecureHttp, and takes it with', () => {
    expect(() => createClient({ baseUrl: 'http://emulator:4010', apiKey: KEY })).toThrow(UsageError);
    expect(createClient({ baseUrl: 'http://emulator:4010/', apiKey: KEY, allowInsecureHttp: true }).baseUrl).toBe('http://emulator:4010');
  });
});

describe('a refused base URL names where it came from', () => {
  const other = 'http://emulator:4010';
  /** A project whose sessionctl.yaml sets `base_url`, with a manifest in sessions/. */
  function project(baseUrl: string): string {
    const dir = tempDir('base-url-from');
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessionctl.yaml'), `paths: [sessions/]\nbase_url: ${baseUrl}\nstate: state.json\n`);
    writeFileSync(join(dir, 'sessions', 'agent.yaml'), 'name: agent\nuser_id: alice\ntoolkits: [gmail]\n');
    return dir;
  }

  test.each([
    ['--base-url', ['get', 'trs_abcdefabcdef', '--base-url', other], {}, '--base-url'],
    ['COMPOSIO_BASE_URL, for a command on one session', ['get', 'trs_abcdefabcdef'], { COMPOSIO_BASE_URL: other }, 'COMPOSIO_BASE_URL'],
    ['COMPOSIO_BASE_URL, for apply', ['apply', 'agent.yaml'], { COMPOSIO_BASE_URL: other }, 'COMPOSIO_BASE_URL'],
  ])('%s', async (_name, args, env, from) => {
    const dir = tempDir('base-url-from');
    writeFileSync(join(dir, 'agent.yaml'), 'name: agent\nuser_id: alice\ntoolkits: [gmail]\n');
    const r = await runCli(args, { cwd: dir, env: { COMPOSIO_API_KEY: KEY, ...env } });
    expect([r.exitCode, r.stdout, r.stderr]).toStrictEqual([2, '', REFUSED(other, from)]);
  });

  test("the project file's base_url, named by its path from where the run is", async () => {
    const dir = project(other);
    const here = await runCli(['apply'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
    expect([here.exitCode, here.stdout, here.stderr]).toStrictEqual([2, '', REFUSED(other, "sessionctl.yaml's base_url")]);
    const below = await runCli(['plan', '--refresh'], { cwd: join(dir, 'sessions'), env: { COMPOSIO_API_KEY: KEY } });
    expect([below.exitCode, below.stdout, below.stderr]).toStrictEqual([2, '', REFUSED(other, "../sessionctl.yaml's base_url")]);
  });

  test('the one that won is named: COMPOSIO_BASE_URL over the project file, --base-url over both', async () => {
    const dir = project('https://backend.composio.dev');
    const fromEnv = await runCli(['apply'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: other } });
    expect([fromEnv.exitCode, fromEnv.stderr]).toStrictEqual([2, REFUSED(other, 'COMPOSIO_BASE_URL')]);
    const fromFlag = await runCli(['apply', '--base-url', 'http://gateway:8080'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: other } });
    expect([fromFlag.exitCode, fromFlag.stderr]).toStrictEqual([2, REFUSED('http://gateway:8080')]);
  });

  test('every refusal of the value names it: not a URL, a query', async () => {
    const notUrl = await runCli(['get', 'trs_abcdefabcdef'], { env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: 'backend.composio.dev' } });
    expect([notUrl.exitCode, notUrl.stderr]).toStrictEqual([2, 'error: COMPOSIO_BASE_URL is not a valid URL: "backend.composio.dev"\nhint: use an absolute URL such as https://backend.composio.dev\n']);
    const query = await runCli(['get', 'trs_abcdefabcdef'], { env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: 'https://backend.composio.dev/?region=eu' } });
    expect([query.exitCode, query.stderr]).toStrictEqual([2, 'error: COMPOSIO_BASE_URL must not contain a query or fragment\n']);
  });
});

/** The machine's own address on a network (not loopback): what a compose service's name resolves to. */
const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address;

describe.skipIf(skipBecause(!wildcardBindAllowed || ownAddress === undefined, !wildcardBindAllowed ? wildcardBindReason : 'the machine has no IPv4 address besides loopback'))(
  'an emulator reached at the machine\'s own address, as a compose service is',
  () => {
    let emu: RunningEmulator;
    let base: string;
    beforeAll(async () => {
      emu = await startEmulator({ port: 0, host: '0.0.0.0', apiKeys: [KEY] });
      base = `http://${ownAddress!}:${new URL(emu.url).port}`;
    });
    afterAll(() => emu.close());

    /** The built CLI in a child process: the test process itself stays on loopback. */
    function cli(args: readonly string[], env: Record<string, string>, cwd: string): Promise<{ exit: number | null; stdout: string; stderr: string }> {
      const child = spawn(process.execPath, [join(dist, 'sessionctl.js'), ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', COMPOSIO_API_KEY: KEY, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      return new Promise((done) => child.once('close', (exit) => done({ exit, stdout, stderr })));
    }

    test('apply creates the session with SESSIONCTL_ALLOW_HTTP=1, and is refused without it', async () => {
      const dir = tempDir('insecure-http');
      writeFileSync(join(dir, 'agent.yaml'), 'name: support-agent\nuser_id: alice\ntoolkits: [gmail]\n');
      const refused = await cli(['apply', 'agent.yaml', '--base-url', base], {}, dir);
      expect([refused.exit, refused.stderr]).toStrictEqual([2, REFUSED(base)]);
      const applied = await cli(['apply', 'agent.yaml', '--base-url', base, '--format', 'json'], { SESSIONCTL_ALLOW_HTTP: '1' }, dir);
      expect(applied.exit, applied.stderr).toBe(0);
      expect((JSON.parse(applied.stdout) as { applied: { tally: { created: number } } }).applied.tally.created).toBe(1);
    });
  },
);
