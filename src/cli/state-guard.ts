import { API_KEY_ENV, resolveApiKey } from '../client/api-key.js';
import { EMULATOR_SERVICE, serviceIdentity, type ServiceIdentity } from '../state/binding.js';
import type { StateBackend } from '../state/backend.js';
import { guardState, type StateUse } from '../state/guard.js';
import type { CommandEnv } from './command.js';
import { runBaseUrl, type ConnectionOptions } from './connection.js';

/**
 * The service a run talks to, for the state's binding: `--emulator`, else the base URL the client
 * would use, with the key when the run has one (COMPOSIO_API_KEY or --api-key-file; a run without
 * one is checked on the base URL alone). The key is masked and redacted here, as the client does,
 * before anything can print it.
 */
export async function runIdentity(flags: ConnectionOptions & { emulator?: boolean }, env: CommandEnv): Promise<ServiceIdentity> {
  if (flags.emulator === true) return serviceIdentity(EMULATOR_SERVICE);
  const service = runBaseUrl(flags, env.io.env);
  const vars = env.io.env;
  if (flags.apiKeyFile === undefined && (vars[API_KEY_ENV] === undefined || vars[API_KEY_ENV] === '')) return serviceIdentity(service);
  const { key } = await resolveApiKey({ env: vars, apiKeyFile: flags.apiKeyFile, cwd: env.io.cwd });
  env.masker.add(key, API_KEY_ENV);
  env.redactor.add(key);
  return serviceIdentity(service, key);
}

/** Whether the run is in CI, as CI systems say it (`CI=true`, `CI=1`; GitHub, GitLab, Buildkite ... set it). */
export function inCi(env: CommandEnv): boolean {
  const ci = env.io.env['CI'];
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

export interface GuardOptions {
  use: StateUse;
  identity?: ServiceIdentity;
  requireState?: boolean;
}

/**
 * Runs the state guards before a command reads or writes anything (see `guardState`): refuses,
 * or writes its notes to standard error, one line each.
 */
export async function guardRun(state: StateBackend, env: CommandEnv, options: GuardOptions): Promise<void> {
  const origin = await state.probe();
  const notes = guardState({
    kind: state.kind,
    location: state.location,
    origin,
    use: options.use,
    ...(options.identity !== undefined ? { identity: options.identity } : {}),
    ...(options.requireState === true ? { requireState: true } : {}),
    ci: inCi(env),
  });
  for (const n of notes) {
    env.io.stderr.write(`${n.level}: ${n.message}\n`);
    if (n.hint !== undefined) env.io.stderr.write(`hint: ${n.hint}\n`);
  }
}
