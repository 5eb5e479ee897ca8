import { existsSync } from 'node:fs';
import type { PlanItem, PlanOptions } from '../plan/plan.js';
import { hasSession } from '../state/entry.js';
import type { ApiVersion } from '../wire/json.js';
import { projectIgnores, type ProjectRunOptions } from '../validate/project-checks.js';

/**
 * The planner's options for a run over `paths`: `--prune` scoped to those paths (standard input
 * names no file, so it scopes nothing) less the files the project ignores, and without it the
 * count of what it would delete.
 */
export function planOptions(
  paths: readonly string[],
  options: { cwd: string; prune?: boolean; pruneRoots?: readonly string[]; recreateUnknown?: boolean; project?: ProjectRunOptions; apiVersion?: ApiVersion },
): PlanOptions {
  const ignored = projectIgnores(options.project);
  // A root that exists is read as that file or folder, as the loader reads it, even when its name holds glob characters.
  const scope = { roots: (options.pruneRoots ?? paths).filter((p) => p !== '-'), cwd: options.cwd, literal: existsSync, ...(ignored !== undefined ? { ignored } : {}) };
  return {
    ...(options.prune === true ? { prune: scope } : { countPrunable: scope }),
    ...(options.recreateUnknown === true ? { recreateUnknown: true } : {}),
    ...(options.apiVersion !== undefined ? { apiVersion: options.apiVersion } : {}),
  };
}

/** Whether refresh reads this item's session: it has one, and nothing stands in the way. */
export function refreshable(item: PlanItem): boolean {
  return item.recorded !== undefined && hasSession(item.recorded) && !item.blocked && item.action !== 'create';
}
