import type { Severity } from '../diagnostics/diagnostic.js';
import type { PolicySpec } from '../validate/policies/types.js';
import type { RuleSettings } from '../validate/severity.js';

/**
 * A project's configuration, `sessionctl.yaml`, resolved: every path and glob is relative to
 * `dir` (globs) or already absolute (paths, files). Settings the file leaves out are absent, and
 * commands fall back to their flags, environment variables and built-in defaults, in that order
 * before this file: a flag or variable always wins.
 */
export interface ProjectConfig {
  /** The file, absolute; absent when there is none (every setting at its default). */
  file?: string;
  /** The folder globs are relative to: the file's folder, or the working directory without a file. */
  dir: string;
  /** Default manifest paths (files, folders, globs), absolute. */
  paths?: string[];
  apiVersion?: '3' | '3.1';
  baseUrl?: string;
  /** The state backend: an absolute file path, or a `postgres://` URL as written (never with a password). */
  state?: string;
  /** plan and apply refuse to start a new state or workspace (`require_state`). */
  requireState?: boolean;
  /** Sessions of per-user manifests destroy and `apply --prune` delete without `--yes` (`confirm_fleet_deletes_over`). */
  confirmFleetDeletesOver?: number;
  /** What a `${VAR}` that is not set is (`unset_variables`): validate's default, and the editor's when `error`. */
  unsetVariables?: 'error' | 'placeholder';
  /** Default `--format` specs; `NAME=FILE` with FILE absolute. */
  formats?: string[];
  /** Default `--env-file`s, absolute, in order (later files win over earlier ones). */
  envFiles?: string[];
  /** Globs (relative to `dir`) of files commands skip. */
  ignore: string[];
  /** A catalogue file (JSON), absolute, instead of the bundled catalogue. */
  catalog?: string;
  rules: RuleSettings;
  overrides: Array<{ files: string[]; rules: RuleSettings }>;
  policies: PolicySpec[];
  /** Names of environment variables whose values are secrets. */
  sensitive: string[];
  /** `false`: suppression comments in manifests cannot silence the policies (`inline_policy_suppression`). */
  inlinePolicySuppression?: boolean;
}

/** The settings as `sessionctl.yaml` writes them (after the schema has accepted them). */
export interface ProjectFileData {
  paths?: string[];
  api_version?: string | number;
  base_url?: string;
  state?: string;
  require_state?: boolean;
  confirm_fleet_deletes_over?: number;
  unset_variables?: 'error' | 'placeholder';
  formats?: string[];
  env_files?: string[];
  ignore?: string[];
  catalog?: string;
  rules?: Record<string, 'off' | Severity>;
  overrides?: Array<{ files: string[]; rules: Record<string, 'off' | Severity> }>;
  policies?: Array<Record<string, unknown> & { id: string; message: string; severity?: Severity; hint?: string; files?: string[] }>;
  sensitive?: string[];
  inline_policy_suppression?: boolean;
}

/** A project without a file: nothing but the working directory. */
export function emptyProject(dir: string): ProjectConfig {
  return { dir, ignore: [], rules: {}, overrides: [], policies: [], sensitive: [] };
}
