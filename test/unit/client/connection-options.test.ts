import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { addConnectionOptions, apiVersionOf, clientFromOptions, type ConnectionOptions } from '../../../src/cli/connection.js';
import { memoryIo } from '../../../src/cli/io.js';
import { Redactor } from '../../../src/cli/redact.js';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { runCli } from '../../helpers/run-cli.js';
import { ValueMasker } from '../../../src/util/sensitive.js';

const SENTINEL = 'ak_SENTINEL_conn_5e4d3c2b1a';

function command(): { cmd: Command; out: string[]; seen: ConnectionOptions[] } {
  const out: string[] = [];
  const seen: ConnectionOptions[] = [];
  const cmd = addConnectionOptions(new Command('get'))
    .exitOverride()
    .configureOutput({ writeOut: (s) => void out.push(s), writeErr: (s) => void out.push(s) })
    .action((opts: ConnectionOptions) => void seen.push(opts));
  return { cmd, out, seen };
}

describe('connection options', () => {
  test('help names the env variable and never shows a key', async () => {
    const help = (await runCli(['get', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--base-url <url>');
    expect(help).toContain('plain http only to loopback, or with SESSIONCTL_ALLOW_HTTP=1) (env: COMPOSIO_BASE_URL)');
    expect(help).toContain('--api-key-file <path>');
    expect(help).toContain('--verbose');
    expect(help).toContain('--timeout <ms>');
    expect(help).not.toContain('--api-key <key>');
  });

  test('parses the options', async () => {
    const { cmd, seen } = command();
    await cmd.parseAsync(['--base-url', 'http://127.0.0.1:4010', '--api-key-file', 'k.txt', '--verbose', '--timeout', '5000'], { from: 'user' });
    expect(seen[0]).toEqual({ baseUrl: 'http://127.0.0.1:4010', apiKeyFile: 'k.txt', verbose: true, timeout: 5000 });
  });

  test.each([['0'], ['-5'], ['1.5'], ['soon']])('--timeout %s is a usage error', async (value) => {
    const { cmd } = command();
    await expect(cmd.parseAsync(['--timeout', value], { from: 'user' })).rejects.toMatchObject({ code: 'commander.invalidArgument' });
  });

  test.each([[['--api-key', SENTINEL]], [[`--api-key=${SENTINEL}`]]])('a key in argv is refused without echoing it: %j', async (argv) => {
    const { cmd, out, seen } = command();
    const err = await cmd.parseAsync(argv, { from: 'user' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(`${(err as UsageError).message}\n${(err as UsageError).hint}\n${out.join('')}`).not.toContain(SENTINEL);
    expect(seen).toEqual([]);
  });
});

describe('clientFromOptions', () => {
  const env = (vars: Record<string, string>) => ({ io: memoryIo({ env: vars }), redactor: new Redactor(), masker: new ValueMasker(), setExitCode: () => undefined });

  test('base URL: flag, then COMPOSIO_BASE_URL from the injected env, then the default', async () => {
    const e = env({ COMPOSIO_API_KEY: SENTINEL, COMPOSIO_BASE_URL: 'http://127.0.0.1:4999' });
    const fromFlag = await clientFromOptions({ baseUrl: 'http://localhost:4010/' }, e);
    expect(fromFlag.baseUrl).toBe('http://localhost:4010');
    const fromEnv = await clientFromOptions({}, e);
    expect(fromEnv.baseUrl).toBe('http://127.0.0.1:4999');
    const fromDefault = await clientFromOptions({}, env({ COMPOSIO_API_KEY: SENTINEL }));
    expect(fromDefault.baseUrl).toBe('https://backend.composio.dev');
    await Promise.all([fromFlag.close(), fromEnv.close(), fromDefault.close()]);
  });

  test('registers the key with the redactor', async () => {
    const e = env({ COMPOSIO_API_KEY: SENTINEL });
    const c = await clientFromOptions({}, e);
    expect(e.redactor.redact(`key=${SENTINEL}`)).toBe('key=****');
    await c.close();
  });

  test('no key: a usage error naming both ways', async () => {
    await expect(clientFromOptions({}, env({}))).rejects.toThrow(/COMPOSIO_API_KEY.*--api-key-file/);
  });

  test('plain http to a public host is refused', async () => {
    await expect(clientFromOptions({ baseUrl: 'http://backend.composio.dev' }, env({ COMPOSIO_API_KEY: SENTINEL }))).rejects.toBeInstanceOf(UsageError);
  });

  test('the base URL comes from the injected environment, never from process.env', async () => {
    // commander's Option.env() would read process.env and win over the injected Io.
    const saved = process.env['COMPOSIO_BASE_URL'];
    process.env['COMPOSIO_BASE_URL'] = 'http://127.0.0.1:1';
    try {
      const { cmd, seen } = command();
      await cmd.parseAsync([], { from: 'user' });
      expect(seen[0]).toEqual({});
    } finally {
      if (saved === undefined) delete process.env['COMPOSIO_BASE_URL'];
      else process.env['COMPOSIO_BASE_URL'] = saved;
    }
  });
});

describe('--api-version', () => {
  test.each([
    [{}, {}, '3'],
    [{ apiVersion: '3.1' }, {}, '3.1'],
    [{}, { COMPOSIO_API_VERSION: '3.1' }, '3.1'],
    [{ apiVersion: '3' }, { COMPOSIO_API_VERSION: '3.1' }, '3'],
    [{}, { COMPOSIO_API_VERSION: '' }, '3'],
  ] as const)('flags %j with env %j give %s', (opts, env, expected) => {
    expect(apiVersionOf(opts, env)).toBe(expected);
  });

  test.each([
    [{ apiVersion: '4' }, {}, '--api-version must be 3 or 3.1, got "4"'],
    [{}, { COMPOSIO_API_VERSION: 'v3.1' }, 'COMPOSIO_API_VERSION must be 3 or 3.1, got "v3.1"'],
  ] as const)('%j %j is a usage error naming its source', (opts, env, message) => {
    expect(() => apiVersionOf(opts, env)).toThrow(UsageError);
    expect(() => apiVersionOf(opts, env)).toThrow(message);
  });
});
