import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { loadEnvFile } from './env-file.js';

export interface VariablesOptions {
  cwd: string;
  /** The environment's variables; they win over the env file's. Default: none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A dotenv file whose variables fill `${VAR}` under the environment's (`--env-file`). */
  envFile?: string;
}

/**
 * The variables a run expands `${VAR}` with: the environment, over the env file's when one is
 * given, and the env file's findings. The one place every command that loads manifests gets them.
 */
export async function runVariables(options: VariablesOptions): Promise<{ env: Readonly<Record<string, string | undefined>>; diagnostics: Diagnostic[] }> {
  const env = options.env ?? {};
  if (options.envFile === undefined) return { env, diagnostics: [] };
  const loaded = await loadEnvFile(options.envFile, { cwd: options.cwd, base: env });
  return { env: loaded.env, diagnostics: loaded.diagnostics };
}
