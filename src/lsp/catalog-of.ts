import { dirname } from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import { loadProjectConfig } from '../project/load.js';
import { catalogFor } from '../validate/project-checks.js';

/**
 * The catalogue a file's findings are checked against: its project's `catalog`, else the bundled
 * one (also when the project file has errors: completion goes on while it is fixed).
 */
export async function catalogOf(file: string, env: Readonly<Record<string, string | undefined>>, texts?: ReadonlyMap<string, string>): Promise<Catalog> {
  const loaded = await loadProjectConfig({ cwd: dirname(file), env, ...(texts !== undefined ? { texts } : {}) });
  try {
    return await catalogFor(loaded.config?.catalog);
  } catch {
    return catalogFor(undefined);
  }
}
