import { readFile, stat } from 'node:fs/promises';
import { platform } from 'node:os';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../diagnostics/errors.js';
import { ValueMasker } from '../util/sensitive.js';

export const API_KEY_ENV = 'COMPOSIO_API_KEY';

export interface ResolveApiKeyOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `--api-key-file`; wins over the environment when given. */
  apiKeyFile?: string | undefined;
  /** Base for a relative `apiKeyFile`. */
  cwd?: string;
  /** Receives warnings (a key file others can read). */
  warn?: (message: string) => void;
}

export interface ResolvedApiKey {
  key: string;
  source: 'env' | 'file';
}

/**
 * Finds the API key: `--api-key-file` (Docker-secrets style; one trailing newline trimmed) or
 * `COMPOSIO_API_KEY`. Never from argv: other local users can read a process's arguments, and
 * they end up in shell history and CI logs (runtime-facts §6). No message ever contains the key.
 */
export async function resolveApiKey(options: ResolveApiKeyOptions): Promise<ResolvedApiKey> {
  if (options.apiKeyFile !== undefined) {
    const path = resolve(options.cwd ?? '.', options.apiKeyFile);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'an I/O error';
      throw new InputError(`cannot read the API key file (${code})`, options.apiKeyFile, { cause: err });
    }
    try {
      const mode = (await stat(path)).mode;
      if (platform() !== 'win32' && (mode & 0o077) !== 0) {
        options.warn?.(`the API key file ${options.apiKeyFile} can be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 on it`);
      }
    } catch {
      // The file was just read; a failing stat only loses the warning.
    }
    const key = text.replace(/\r?\n$/, '');
    checkKey(key, `the API key file ${options.apiKeyFile}`);
    return { key, source: 'file' };
  }
  const key = options.env[API_KEY_ENV];
  if (key === undefined || key === '') {
    throw new UsageError(
      `no API key: set ${API_KEY_ENV} or pass --api-key-file PATH`,
      'keys are never accepted on the command line, where other users and logs can see them',
    );
  }
  checkKey(key, API_KEY_ENV);
  return { key, source: 'env' };
}

/** A header value must be visible ASCII; say so without echoing the value. */
function checkKey(key: string, where: string): void {
  if (key === '') throw new InputError(`${where} is empty`);
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new InputError(`${where} holds spaces, line breaks or non-ASCII characters; an API key is one line of visible ASCII`);
  }
}

/**
 * What the client runs every string of an error or a trace through: the key masked (`(sensitive:
 * COMPOSIO_API_KEY)`) as it is and in the spellings a service may echo it in (JSON-escaped,
 * percent-encoded, cut short), whatever its length.
 */
export function keyScrubber(apiKey: string): (text: string) => string {
  const masker = new ValueMasker({ minText: 1 });
  masker.add(apiKey, API_KEY_ENV);
  return (text) => masker.text(text);
}
