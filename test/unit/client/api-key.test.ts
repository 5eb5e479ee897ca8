import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveApiKey } from '../../../src/client/api-key.js';
import { InputError, UsageError } from '../../../src/diagnostics/errors.js';
import { tempDir } from '../../helpers/temp-dir.js';

const KEY = 'ak_sentinel_7f3c9e2a1b';
let dir: string;

beforeAll(async () => {
  dir = tempDir('key');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function keyFile(name: string, content: string, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

describe('resolveApiKey', () => {
  test('from COMPOSIO_API_KEY', async () => {
    expect(await resolveApiKey({ env: { COMPOSIO_API_KEY: KEY } })).toEqual({ key: KEY, source: 'env' });
  });

  test('from a file, one trailing newline trimmed, no warning at 0600', async () => {
    const warnings: string[] = [];
    const path = await keyFile('k1', `${KEY}\n`);
    expect(await resolveApiKey({ env: {}, apiKeyFile: path, warn: (m) => warnings.push(m) })).toEqual({ key: KEY, source: 'file' });
    expect(warnings).toEqual([]);
  });

  test('CRLF is trimmed too; a relative path resolves against cwd', async () => {
    await keyFile('k2', `${KEY}\r\n`);
    expect(await resolveApiKey({ env: {}, apiKeyFile: 'k2', cwd: dir })).toEqual({ key: KEY, source: 'file' });
  });

  test('the file wins over the environment', async () => {
    const path = await keyFile('k3', KEY);
    expect((await resolveApiKey({ env: { COMPOSIO_API_KEY: 'other_key_value' }, apiKeyFile: path })).key).toBe(KEY);
  });

  test('warns when others can read the file', async () => {
    const warnings: string[] = [];
    const path = await keyFile('k4', KEY, 0o644);
    await resolveApiKey({ env: {}, apiKeyFile: path, warn: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('chmod 600');
    expect(warnings[0]).not.toContain(KEY);
  });

  test('missing everywhere: a usage error naming both ways', async () => {
    const err = await resolveApiKey({ env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('COMPOSIO_API_KEY');
    expect((err as Error).message).toContain('--api-key-file');
    expect(await resolveApiKey({ env: { COMPOSIO_API_KEY: '' } }).catch((e: unknown) => e)).toBeInstanceOf(UsageError);
  });

  test('an unreadable file is an input error', async () => {
    const err = await resolveApiKey({ env: {}, apiKeyFile: join(dir, 'missing') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain('ENOENT');
  });

  test.each([
    ['empty', '\n'],
    ['two lines', `${KEY}\nsecond_line_${KEY}\n`],
    ['inner space', `ak_with space_${KEY}`],
  ])('a malformed key file (%s) is refused without echoing it', async (name, content) => {
    const path = await keyFile(`bad-${name.replace(/ /g, '-')}`, content);
    const err = await resolveApiKey({ env: {}, apiKeyFile: path }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).not.toContain(KEY);
  });
});
