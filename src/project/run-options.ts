import { relative } from 'node:path';
import type { ProjectRunOptions } from '../validate/project-checks.js';
import type { ProjectConfig } from './types.js';

/**
 * What a loaded project configuration contributes to a run over manifests (validate's
 * `validatePaths`, and plan, apply and diff through `projectDiagnostics` and
 * `applyDiagnosticControls`): its policies and catalogue, severities, ignored files. `catalog`
 * is the `--catalog` flag, which wins over the file's `catalog`; `false` turns the catalogue
 * checks off.
 */
export function projectRunOptions(config: ProjectConfig, options: { catalog?: string | false } = {}): ProjectRunOptions {
  const catalog = offEverywhere(config, 'catalog/unknown-toolkit') && offEverywhere(config, 'catalog/unknown-tool') && offEverywhere(config, 'catalog/tool-wrong-toolkit') ? false : (options.catalog ?? config.catalog);
  const policies = config.policies.filter((p) => !offEverywhere(config, `policy/${p.id}`));
  const run: ProjectRunOptions = {
    checks: { dir: config.dir, policies, ...(catalog !== undefined ? { catalog } : {}) },
    severities: { dir: config.dir, rules: config.rules, overrides: config.overrides },
  };
  if (config.ignore.length > 0) run.ignore = { dir: config.dir, globs: config.ignore };
  if (config.file !== undefined) run.configFile = config.file;
  if (config.policies.length > 0) run.policyCodes = config.policies.map((p) => `policy/${p.id}`);
  if (config.inlinePolicySuppression === false) run.policiesLocked = true;
  return run;
}

/**
 * True when `rules` turns a code off and no override sets it again: its checks need not run at
 * all (the catalogue is then never loaded).
 */
function offEverywhere(config: ProjectConfig, code: string): boolean {
  const group = `${code.slice(0, code.indexOf('/'))}/*`;
  const global = config.rules[code] ?? config.rules[group];
  return global === 'off' && !config.overrides.some((o) => Object.hasOwn(o.rules, code) || Object.hasOwn(o.rules, group));
}

/** The dotenv files of a run: `--env-file`, else the project's `env_files` (relative to the working directory). */
export function envFilesOf(flag: string | undefined, config: ProjectConfig, cwd: string): string[] | undefined {
  // Kept as the user would write them from here: findings name the file by this path.
  return flag !== undefined ? [flag] : config.envFiles?.map((file) => relative(cwd, file));
}
