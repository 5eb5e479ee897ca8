import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import { wholeNumber } from '../../util/whole-number.js';
import { EMULATOR_ADMIN_KEY_ENV, EMULATOR_KEYS_ENV, emulatorKeys, type EmulatorKeyFlags } from '../emulator-keys.js';
import { integerOption } from '../integer-option.js';
import type { CommandEnv, RegisterCommand } from '../command.js';

interface EmulatorFlags extends EmulatorKeyFlags {
  host: string;
  port: number;
  dataDir?: string;
  rateLimit?: number;
  catalog?: string;
  maxFileSize?: string;
  mcpStreamsPerKey: number;
  mcpStreams: number;
  mcpIdleTimeout: number;
}

/** `--rate-limit`: requests per minute, written `600/min` or `600`. */
function parseRate(raw: string): number {
  const n = wholeNumber(raw.trim().replace(/\/min$/, ''), 1);
  if (n === undefined) throw new InvalidArgumentError('expected requests per minute per key, such as 600/min');
  return n;
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1000, kib: 1024, m: 1024 ** 2, mb: 1000 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1000 ** 3, gib: 1024 ** 3 };

/** `--max-file-size`: bytes, or a number with a unit (`100MiB`, `1GiB`, `500MB`). */
export function parseSize(raw: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = UNITS[(m?.[2] ?? 'x').toLowerCase()];
  const bytes = m === null || unit === undefined ? NaN : Number(m[1]) * unit;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError(`--max-file-size must be a size such as 104857600, 100MiB or 1GiB, got '${raw}'`);
  return bytes;
}

/**
 * `sessionctl emulator`: a local, stateful emulator of the Tool Router API (v3 and v3.1). Prints its URL
 * (one line) on stdout, one line per request on stderr, and stops cleanly on SIGINT/SIGTERM. Its
 * API keys and admin key are registered with the redactor, so no log line can carry them.
 */
export const registerEmulator: RegisterCommand = (program, env) => {
  program
    .command('emulator')
    .description('Serve a local, stateful emulator of the Tool Router API (v3 and v3.1, each session\'s MCP endpoint, admin surface under /_emulator/).')
    .option('--host <host>', 'interface to bind (loopback unless you say otherwise)', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', integerOption(0, 65_535, 'a port number from 0 to 65535 (0 picks a free one)'), 4010)
    .addOption(
      new Option('--api-key <key>', 'accept only this key (repeatable); without it any non-empty key works, each its own project')
        .argParser((value: string, previous: string[] = []) => [...previous, value])
        .default([], 'any key'),
    )
    .option('--api-keys-file <path>', `accept the keys in this file, one per line (also: ${EMULATOR_KEYS_ENV}, separated by commas)`)
    .option('--admin-key <key>', `with API keys: this key acts on the whole admin surface (every tenant, whole-server reset, the rate limit); better: --admin-key-file or ${EMULATOR_ADMIN_KEY_ENV}`)
    .option('--admin-key-file <path>', 'read the admin key from this file (one per line, # comments skipped)')
    .option('--data-dir <dir>', 'keep state in this directory (written atomically) instead of memory')
    .option('--rate-limit <n/min>', 'requests per minute per key, answered with 429 and Retry-After past it', parseRate)
    .option('--max-file-size <size>', 'largest mount file an upload may carry (bytes, or 100MiB, 1GiB; default: 256MiB)')
    .option('--catalog <file>', 'serve this catalogue ({"toolkits": [...], "tools": [...]}) instead of the built-in one')
    // The library's defaults (emulator/server.ts), repeated so that help shows them without loading it.
    .option('--mcp-streams-per-key <n>', 'open MCP streams one key may hold; past it, 429', integerOption(1, 100_000, 'a whole number of streams, at least 1'), 16)
    .option('--mcp-streams <n>', 'open MCP streams the emulator holds in all; past it, 503', integerOption(1, 1_000_000, 'a whole number of streams, at least 1'), 128)
    .option('--mcp-idle-timeout <seconds>', 'close an MCP stream that carried nothing for this long', integerOption(1, 86_400, 'seconds, from 1 to 86400'), 60)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl emulator --port 4010                        # then: COMPOSIO_BASE_URL=http://127.0.0.1:4010',
        '  sessionctl emulator --port 0 --data-dir .emulator      # a free port; state kept across restarts',
        '  sessionctl emulator --api-keys-file keys.txt --rate-limit 600/min   # or SESSIONCTL_EMULATOR_API_KEYS',
        '  sessionctl emulator --catalog my-catalog.json          # your own toolkits and tools',
        `  ${EMULATOR_ADMIN_KEY_ENV}=... sessionctl emulator --api-keys-file keys.txt   # a shared emulator with an admin key`,
        '  curl -s -X POST http://127.0.0.1:4010/_emulator/reset -H "content-type: application/json" -d "{}"',
        '',
        'The first line on stdout is the URL; one line per request goes to stderr. Ctrl-C stops it.',
        'Serves /api/v3 and /api/v3.1 on one store, and each session\'s MCP endpoint at its mcp.url.',
        'Admin surface (health, reset, faults, rate limits, PATCH out of band, link approval): docs/emulator.md.',
        'Without API keys it is one local user\'s: no key needed, it sees and changes everything. With them it is',
        'shared: every /_emulator/ route needs a key in x-api-key (401 without), an API key sees and resets its own',
        'sessions, accounts, faults and counters alone (another key\'s are 404), and the admin key the whole server.',
      ].join('\n'),
    )
    .action((flags: EmulatorFlags) => serve(flags, env));
};

/** Starts the emulator, says where, and serves until SIGINT or SIGTERM. */
async function serve(flags: EmulatorFlags, env: CommandEnv): Promise<void> {
  const { apiKeys, adminKeys } = await emulatorKeys(flags, env);
  for (const key of [...apiKeys, ...adminKeys]) env.redactor.add(key);
  const { port, rateLimit: rate } = flags;
  const maxFileBytes = flags.maxFileSize === undefined ? undefined : parseSize(flags.maxFileSize);
  // Loaded here, not at the top: other commands do not pay for the emulator's modules.
  const { startEmulator } = await import('../../emulator/server.js');
  const catalog = flags.catalog === undefined ? undefined : await loadCatalog(flags.catalog, env.io.cwd);
  let emulator;
  try {
    emulator = await startEmulator({
      host: flags.host,
      port,
      apiKeys,
      adminKeys,
      mcpStreamsPerKey: flags.mcpStreamsPerKey,
      mcpStreams: flags.mcpStreams,
      mcpIdleTimeoutMs: flags.mcpIdleTimeout * 1000,
      ...(flags.dataDir === undefined ? {} : { dataDir: resolve(env.io.cwd, flags.dataDir) }),
      ...(rate === undefined ? {} : { rateLimitPerMinute: rate }),
      ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
      ...(catalog === undefined ? {} : { catalog }),
      log: (line) => env.io.stderr.write(`${line}\n`),
    });
  } catch (err) {
    throw startFailure(err, flags, port);
  }
  env.io.stdout.write(`${emulator.url}\n`);
  const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(flags.host);
  if (!loopback) {
    env.io.stderr.write(
      `warning: listening on ${flags.host}, not loopback: other machines can reach this emulator${apiKeys.length === 0 ? ', and any key is accepted (restrict it with --api-key or --api-keys-file)' : ''}\n`,
    );
  }
  env.io.stderr.write(
    `emulator listening on ${emulator.url} (${apiKeys.length > 0 ? `${apiKeys.length} key(s)` : 'any key'}${adminKeys.length > 0 ? ', an admin key' : ''}${flags.dataDir === undefined ? ', state in memory' : `, state in ${flags.dataDir}`}); Ctrl-C stops it\n`,
  );
  const signal = await untilStopped();
  try {
    await emulator.close();
  } catch (err) {
    // Only the last state write can fail here (disk full, directory removed): say so, located.
    throw new InputError(`could not save the emulator state (${(err as NodeJS.ErrnoException).code ?? 'error'})`, flags.dataDir, { cause: err });
  }
  env.io.stderr.write(`emulator stopped (${signal})\n`);
}

async function loadCatalog(path: string, cwd: string): Promise<import('../../catalog/catalog.js').Catalog> {
  const { catalogFromJson } = await import('../../catalog/catalog.js');
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new InputError(`cannot read the catalogue: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, path, { cause: err });
  }
  try {
    return catalogFromJson(JSON.parse(text));
  } catch (err) {
    throw new InputError(err instanceof SyntaxError ? `not JSON: ${err.message}` : (err as Error).message, path);
  }
}

/** Why the emulator could not start, as a usage or input error (a port in use, a bad data directory). */
function startFailure(err: unknown, flags: EmulatorFlags, port: number): unknown {
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (syscall === 'listen' || code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL') {
    if (code === 'EADDRINUSE') return new UsageError(`port ${port} on ${flags.host} is in use`, 'pick another with --port, or --port 0 for any free port');
    return new UsageError(`cannot listen on ${flags.host}:${port} (${code ?? 'error'})`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new UsageError(`--host ${flags.host} does not resolve`);
  // Anything else happened while opening the data directory (unreadable, not a directory, a
  // corrupt state file): an input error naming it.
  if (flags.dataDir !== undefined && err instanceof Error) {
    return new InputError(code === undefined ? err.message : `cannot use the data directory (${code})`, flags.dataDir, { cause: err });
  }
  return err;
}

/** Resolves with the name of the first SIGINT or SIGTERM. */
function untilStopped(): Promise<string> {
  return new Promise<string>((done) => {
    const onInt = (): void => finish('SIGINT');
    const onTerm = (): void => finish('SIGTERM');
    const finish = (name: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      done(name);
    };
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
