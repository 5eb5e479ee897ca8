import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { loadEnvFile } from './env-file.js';

export interface VariablesOptions {
  cwd: string;
  /** The environment's variables; they win over the env file's. Default: none. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Dotenv files whose variables fill `${VAR}` under the environment's (`--env-file`, else the
   * project's `env_files`); a later file wins over an earlier one.
   */
  envFiles?: readonly string[];
}

/**
 * The variables a run expands `${VAR}` with: the environment, over the env files' when any are
 * given, and the env files' findings. The one place every command that loads manifests gets them.
 */
export async function runVariables(options: VariablesOptions): Promise<{ env: Readonly<Record<string, string | undefined>>; diagnostics: Diagnostic[] }> {
  let env = options.env ?? {};
  const diagnostics: Diagnostic[] = [];
  // Each file is merged under what is already there, so the last file is read first.
  for (const file of [...(options.envFiles ?? [])].reverse()) {
    const loaded = await loadEnvFile(file, { cwd: options.cwd, base: env });
    env = loaded.env;
    diagnostics.push(...loaded.diagnostics);
  }
  return { env, diagnostics };
}
