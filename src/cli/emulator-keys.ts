/**
 * The keys `sessionctl emulator` takes: the API keys (`--api-key`, `--api-keys-file`,
 * SESSIONCTL_EMULATOR_API_KEYS) and the admin key of a shared emulator (`--admin-key`,
 * `--admin-key-file`, SESSIONCTL_EMULATOR_ADMIN_KEY). A file or the environment keeps a key out of
 * the process list and shell history.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../diagnostics/errors.js';
import type { CommandEnv } from './command.js';

export const EMULATOR_KEYS_ENV = 'SESSIONCTL_EMULATOR_API_KEYS';
export const EMULATOR_ADMIN_KEY_ENV = 'SESSIONCTL_EMULATOR_ADMIN_KEY';

export interface EmulatorKeyFlags {
  apiKey: string[];
  apiKeysFile?: string;
  adminKey?: string;
  adminKeyFile?: string;
}

/** The lines of a keys file that hold a key (blank lines and `#` comments skipped); refused when none does. */
async function keysInFile(path: string, what: string, env: CommandEnv): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(resolve(env.io.cwd, path), 'utf8');
  } catch (err) {
    throw new InputError(`cannot read the ${what} file (${(err as NodeJS.ErrnoException).code ?? 'error'})`, path, { cause: err });
  }
  const keys = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (keys.length === 0) throw new InputError(`the ${what} file holds no key`, path);
  return keys;
}

/** A key is one line of visible ASCII: what a header can carry, and nothing a log could be fooled by. */
function checkKey(key: string, what: string): void {
  if (!/^[\x21-\x7e]+$/.test(key)) throw new UsageError(`an emulator ${what} holds spaces, line breaks or non-ASCII characters; a key is one line of visible ASCII`);
}

/**
 * The API keys and the admin keys. An admin key needs API keys (without them the admin surface is
 * open to anyone, so it would guard nothing) and must be none of them (it would be both a tenant
 * and the whole server).
 */
export async function emulatorKeys(flags: EmulatorKeyFlags, env: CommandEnv): Promise<{ apiKeys: string[]; adminKeys: string[] }> {
  const apiKeys = [...flags.apiKey];
  if (flags.apiKeysFile !== undefined) apiKeys.push(...(await keysInFile(flags.apiKeysFile, 'API keys', env)));
  apiKeys.push(...(env.io.env[EMULATOR_KEYS_ENV] ?? '').split(/[\s,]+/).filter((k) => k !== ''));
  for (const key of apiKeys) checkKey(key, 'API key');
  const adminKeys: string[] = [];
  if (flags.adminKey !== undefined) adminKeys.push(flags.adminKey);
  if (flags.adminKeyFile !== undefined) adminKeys.push(...(await keysInFile(flags.adminKeyFile, 'admin key', env)));
  const fromEnv = (env.io.env[EMULATOR_ADMIN_KEY_ENV] ?? '').trim();
  if (fromEnv !== '') adminKeys.push(fromEnv);
  for (const key of adminKeys) checkKey(key, 'admin key');
  if (adminKeys.length > 0 && apiKeys.length === 0) {
    throw new UsageError('an admin key needs API keys: without --api-key the admin surface is open to any caller', 'add --api-key (or --api-keys-file), or leave the admin key out');
  }
  if (adminKeys.some((k) => apiKeys.includes(k))) throw new UsageError('the admin key is also one of the API keys; give the admin surface a key of its own');
  return { apiKeys, adminKeys };
}
