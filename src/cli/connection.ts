import { Option, type Command } from 'commander';
import { API_KEY_ENV, resolveApiKey } from '../client/api-key.js';
import { printable } from '../client/errors.js';
import { safeInline } from '../report/text.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl } from '../client/base-url.js';
import type { SessionClient } from '../client/client.js';
import { UsageError } from '../diagnostics/errors.js';
import type { ApiVersion } from '../wire/json.js';
import type { CommandEnv } from './command.js';
import { integerOption } from './integer-option.js';

/** The options `addConnectionOptions` defines, as commander's `opts()` returns them. */
export interface ConnectionOptions {
  baseUrl?: string;
  /** Where `baseUrl` came from when not from `--base-url`: the project file (`projectForRun` fills both). */
  baseUrlFrom?: string;
  apiKeyFile?: string;
  verbose?: boolean;
  timeout?: number;
  apiVersion?: string;
  /** Never a value: the option exists only to refuse keys on the command line. */
  apiKey?: never;
}

/** The variable the base URL falls back to when `--base-url` is not given. */
export const BASE_URL_ENV = 'COMPOSIO_BASE_URL';

/**
 * Options whose value falls back to an environment variable, for `--help` ("env: NAME"). Not
 * commander's `Option.env()`: it reads `process.env`, and every variable must come through the
 * injected Io (`clientFromOptions` reads the fallback from there).
 */
export const optionEnvFallbacks: Readonly<Record<string, string>> = { '--base-url': BASE_URL_ENV };

/**
 * Adds the options every networked command shares. The base URL's env fallback is shown in help
 * ("env: COMPOSIO_BASE_URL") but never given as a commander default from the environment, and no
 * key value is ever a default: commander prints defaults in `--help` (runtime-facts §6).
 */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--base-url <url>', `the service's base URL (default: ${DEFAULT_BASE_URL}; plain http only to loopback, or with ${ALLOW_HTTP_ENV}=1)`))
    .addOption(new Option('--api-key-file <path>', 'read the API key from this file (otherwise from COMPOSIO_API_KEY)'))
    .addOption(new Option('--api-version <version>', `the API version of paths and shapes: 3 or 3.1 (default: 3; env: ${API_VERSION_ENV}); delete, attach and history use v3.1 routes either way`))
    .addOption(new Option('--verbose', 'trace HTTP requests and responses to stderr (credentials redacted)'))
    .addOption(new Option('--timeout <ms>', 'give up on one API call, retries included, after this many milliseconds (default: 120000)').argParser(parseTimeout))
    .addOption(
      new Option('--api-key <key>', 'not accepted: use COMPOSIO_API_KEY or --api-key-file').hideHelp().argParser(() => {
        throw new UsageError(
          '--api-key is not accepted: a key on the command line is visible to other users (ps) and in shell history and CI logs',
          'set COMPOSIO_API_KEY, or put the key in a file readable only by you and pass --api-key-file PATH',
        );
      }),
    );
}

const parseTimeout = integerOption(1, 3_600_000, 'a whole number of milliseconds between 1 and 3600000');

export const API_VERSION_ENV = 'COMPOSIO_API_VERSION';

/**
 * SESSIONCTL_ALLOW_HTTP=1: the key may go over plain http to a host that is not loopback (an
 * emulator run as a compose service beside an application's tests). An environment variable, not
 * a flag, so that a compose file or CI job sets it once for every command.
 */
export const ALLOW_HTTP_ENV = 'SESSIONCTL_ALLOW_HTTP';

export function insecureHttpAllowed(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[ALLOW_HTTP_ENV] === '1';
}

/** `--api-version`, else COMPOSIO_API_VERSION, else 3; anything but 3 or 3.1 is a usage error naming where it came from. */
export function apiVersionOf(opts: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): ApiVersion {
  const fromFlag = opts.apiVersion !== undefined;
  const raw = opts.apiVersion ?? env[API_VERSION_ENV] ?? '3';
  const value = raw.trim() === '' && !fromFlag ? '3' : raw.trim();
  if (value === '3' || value === '3.1') return value;
  throw new UsageError(`${fromFlag ? '--api-version' : API_VERSION_ENV} must be 3 or 3.1, got ${JSON.stringify(raw)}`);
}

/**
 * The run's base URL, checked and normalised (`normalizeBaseUrl`): `--base-url`, else
 * COMPOSIO_BASE_URL, else the project file's `base_url`, else the service's. A refusal names the
 * one the value came from, so that a variable set long ago is not taken for a flag nobody typed.
 */
export function runBaseUrl(opts: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env[BASE_URL_ENV];
  const [raw, from] =
    opts.baseUrl !== undefined ? [opts.baseUrl, opts.baseUrlFrom ?? '--base-url'] : fromEnv !== undefined ? [fromEnv, BASE_URL_ENV] : [DEFAULT_BASE_URL, 'the default base URL'];
  return normalizeBaseUrl(raw, { allowInsecureHttp: insecureHttpAllowed(env) }, from);
}

/**
 * Builds the client for a networked command: resolves the key (file, then COMPOSIO_API_KEY),
 * registers it with the redactor so no output can carry it, checks the base URL, and wires
 * `--verbose` traces to stderr. undici is loaded here, lazily, so commands that never touch the
 * network (validate, plan) do not pay for it.
 */
export async function clientFromOptions(opts: ConnectionOptions, env: CommandEnv): Promise<SessionClient> {
  const apiVersion = apiVersionOf(opts, env.io.env);
  const resolved = await resolveApiKey({
    env: env.io.env,
    apiKeyFile: opts.apiKeyFile,
    cwd: env.io.cwd,
    warn: (message) => env.io.stderr.write(`warning: ${message}\n`),
  });
  // Masked (and, in GitHub Actions, registered with ::add-mask::) before any request can trace it.
  env.masker.add(resolved.key, API_KEY_ENV);
  env.redactor.add(resolved.key);
  const baseUrl = runBaseUrl(opts, env.io.env);
  const { createClient } = await import('../client/client.js');
  return createClient({
    baseUrl,
    allowInsecureHttp: insecureHttpAllowed(env.io.env),
    apiKey: resolved.key,
    apiVersion,
    ...(opts.timeout === undefined ? {} : { timeouts: { callMs: opts.timeout, attemptMs: Math.min(30_000, opts.timeout) } }),
    ...(opts.verbose === true ? { onTrace: (line: string) => env.io.stderr.write(`${traceLine(line, env)}\n`) } : {}),
  });
}

/**
 * A `--verbose` line as it may be printed: headers and URLs come from the service and the
 * command line, so sensitive values are masked and control characters shown escaped.
 */
export function traceLine(line: string, env: Pick<CommandEnv, 'masker'>): string {
  return safeInline(printable(env.masker.text(line)));
}
