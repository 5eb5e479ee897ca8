import { loadAndValidate, type InputOptions, type ValidatedManifests } from '../runner/inputs.js';

/** Options of `loadManifests`: where paths are relative to, the variables, an env file. */
export type LoadManifestsOptions = Omit<InputOptions, 'env'> & { env?: InputOptions['env'] };

/**
 * Loads manifests from files, folders or globs and validates them as `sessionctl plan` does: every
 * document with its data and positions, and every finding. `env` defaults to none: nothing is read
 * from the process environment.
 */
export function loadManifests(paths: readonly string[], options: LoadManifestsOptions): Promise<ValidatedManifests> {
  return loadAndValidate(paths, { ...options, env: options.env ?? {} });
}

export type { ValidatedManifests };
