import { basename, dirname, resolve } from 'node:path';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifestFile } from '../manifest/load.js';
import { maskSecretsInSources } from '../validate/mask.js';
import type { PolicySpec } from '../validate/policies/types.js';
import { configChecks } from './checks.js';
import { outsideOf, realTarget } from '../util/confine.js';
import { confinementFindings } from './confine.js';
import { checkoutRoot, findProjectFile, notAFile } from './find.js';
import { configSchemaDiagnostics } from './schema.js';
import { configSecrets } from './secrets.js';
import { emptyProject, type ProjectConfig, type ProjectFileData } from './types.js';
import { policyKinds } from '../validate/policies/index.js';
import { PlainDocument, readFastData, readFastText } from '../validate/fast-path/try-fast-path.js';

export interface LoadProjectOptions {
  /** Where the search for `sessionctl.yaml` starts, and what an explicit `file` is relative to. */
  cwd: string;
  /** Variables for `${VAR}` in the file (as in manifests). */
  env: Readonly<Record<string, string | undefined>>;
  /** `--config FILE`: this file, which must exist; `false` (`--no-config`): none; absent: search upwards from `cwd`. */
  file?: string | false;
  /** `false`: the file is read by the manifest loader alone, never by the fast path (`--no-fast-path`). Default true. */
  fastPath?: boolean;
  /** Unsaved texts by absolute path, read instead of the file (an editor's buffer: `sessionctl lsp`). */
  texts?: ReadonlyMap<string, string>;
}

export interface ProjectLoad {
  /** The configuration; absent when the file has errors (nothing about the run could be trusted). */
  config: ProjectConfig | undefined;
  /** The file's findings, located in it: `config/` codes, and the loader's for YAML and `${VAR}`. */
  diagnostics: Diagnostic[];
  /** The file, absolute, or absent when there is none. */
  file: string | undefined;
  /** The file's text for code frames, any secret in it masked. */
  sources: Map<string, string>;
  /** Literal secrets found in the file, for the caller's redactor. */
  secrets: string[];
}

/** The config file is configuration: anything this large is a mistake (or hostile). */
const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Loads the project configuration for a working directory: `sessionctl.yaml` (or `.yml`) found
 * from `cwd` upwards to the repository's root, or the file given. It is read by the manifest
 * loader (the same size, encoding, depth, token, alias, duplicate-key and tag checks, and
 * `${VAR}` expansion), checked against `schemas/sessionctl-config.schema.json`, then for what the
 * schema cannot say (codes that exist, one condition per policy, safe patterns, no secrets).
 * Without a file, the configuration is empty (every setting at its default).
 *
 * Callers stop when `config` is absent (exit code 2), after reporting `diagnostics`.
 */
export async function loadProjectConfig(options: LoadProjectOptions): Promise<ProjectLoad> {
  const none: ProjectLoad = { config: emptyProject(options.cwd), diagnostics: [], file: undefined, sources: new Map(), secrets: [] };
  if (options.file === false) return none;
  const file = options.file === undefined ? findProjectFile(options.cwd) : resolve(options.cwd, options.file);
  if (file === undefined) return none;
  // A found file is the checkout's, so it must be in it; --config names the user's own choice.
  const escape = options.file === undefined ? linkedOut(file, options.cwd) : undefined;
  if (escape !== undefined) return { config: undefined, diagnostics: [escape], file, sources: new Map(), secrets: [] };
  const why = notAFile(file);
  if (why !== undefined) {
    const diagnostic: Diagnostic =
      options.file !== undefined
        ? {
            code: 'config/not-found',
            severity: 'error',
            message: `the configuration file ${options.file} cannot be used: ${why}`,
            hint: 'Check the path given with --config, or create the file with `sessionctl init --config`.',
            file,
          }
        : {
            code: 'config/not-found',
            severity: 'error',
            message: `${basename(file)} was found here, but ${why}`,
            hint: 'Replace it with the project file, or remove it: skipping it would run without the project\'s rules and policies (`--no-config` runs without any).',
            file,
          };
    return { config: undefined, diagnostics: [diagnostic], file, sources: new Map(), secrets: [] };
  }
  const root = checkoutRoot(dirname(file));
  const fast = options.fastPath === false || options.texts?.has(file) === true ? undefined : await loadCleanConfig(file, root);
  if (fast !== undefined) return fast;
  const parsed = await loadManifestFile(file, { env: options.env, maxFileBytes: MAX_CONFIG_BYTES, ...(options.texts !== undefined ? { texts: options.texts } : {}) });
  // An empty file, or one of comments only, is a project with every setting at its default.
  const diagnostics = parsed.diagnostics.filter((d) => d.code !== 'yaml/empty');
  const [doc, second] = parsed.documents;
  if (second !== undefined) {
    diagnostics.push({
      code: 'config/invalid-value',
      severity: 'error',
      message: 'sessionctl.yaml holds more than one YAML document',
      hint: 'Remove the `---` and merge the settings into one document.',
      file,
      range: second.locate(''),
    });
  }
  const found = doc === undefined ? { diagnostics: [], secrets: [] } : configSecrets(doc);
  diagnostics.push(...found.diagnostics);
  let config: ProjectConfig | undefined;
  if (doc !== undefined) {
    // A secret is the finding at its place; the schema's complaint about the same value is noise.
    const secretAt = new Set(found.diagnostics.map((d) => d.pointer));
    const schema = configSchemaDiagnostics(doc).filter((d) => !secretAt.has(d.pointer));
    diagnostics.push(...schema);
    diagnostics.push(...configChecks(doc));
    // A `..` the schema refused already is one finding, not two.
    const refusedAt = new Set([...secretAt, ...schema.map((d) => d.pointer)]);
    diagnostics.push(...confinementFindings(doc, root).filter((d) => !refusedAt.has(d.pointer)));
  }
  if (!diagnostics.some((d) => d.severity === 'error')) config = resolveConfig(file, (doc?.data ?? {}) as ProjectFileData);
  const sources = parsed.text === undefined ? new Map<string, string>() : maskSecretsInSources(new Map([[file, parsed.text]]), found.secrets);
  return { config, diagnostics: sortDiagnostics(diagnostics), file, sources, secrets: [...new Set(found.secrets.map((s) => s.secret))] };
}

/**
 * A project file with nothing to report, read as the manifests' fast path reads them (js-yaml, no
 * positions; `src/validate/fast-path/`): yaml's first parse in a process costs ~6 ms, a tenth of a
 * one-file `validate` (bench/RESULTS.md). Undefined for a file with a hazard the fast path leaves
 * to the loader, or with any finding: the loader then reads it and locates each one. The two give
 * the same result (`test/unit/project/load-fast-path.test.ts`).
 */
async function loadCleanConfig(file: string, root: string): Promise<ProjectLoad | undefined> {
  const text = readFastText(file, MAX_CONFIG_BYTES);
  if (text === undefined) return undefined;
  const data = await readFastData(text);
  if (data === undefined) return undefined;
  const doc = new PlainDocument(file, data);
  if (configSecrets(doc).diagnostics.length > 0 || configSchemaDiagnostics(doc).length > 0 || configChecks(doc).length > 0 || confinementFindings(doc, root).length > 0) return undefined;
  return { config: resolveConfig(file, data as ProjectFileData), diagnostics: [], file, sources: new Map([[file, text]]), secrets: [] };
}

const kindNames = new Set(policyKinds.map((k) => k.name));

/**
 * A `sessionctl.yaml` found in the checkout that is a symbolic link out of it, refused as a
 * manifest link is (`input/symlink-outside`), before a byte of it is read: a link to
 * `/etc/shadow` or a key file would otherwise reach the CI log in the code frames of its YAML
 * errors. Undefined when the file is inside.
 */
function linkedOut(file: string, cwd: string): Diagnostic | undefined {
  // A loop leads nowhere: notAFile says so.
  if (realTarget(file) === undefined || outsideOf(checkoutRoot(cwd), file) === undefined) return undefined;
  return {
    code: 'input/symlink-outside',
    severity: 'error',
    message: `${basename(file)} is a symbolic link that leads out of the repository; it is not read`,
    hint: 'Commit the project file itself, or name a file of your own with --config (`--no-config` runs without any).',
    file,
  };
}

/** The file's settings with every path made absolute against its folder. */
function resolveConfig(file: string, data: ProjectFileData): ProjectConfig {
  const dir = dirname(file);
  const config: ProjectConfig = { ...emptyProject(dir), file };
  const abs = (p: string): string => resolve(dir, p);
  if (data.paths !== undefined) config.paths = data.paths.map(abs);
  if (data.api_version !== undefined) config.apiVersion = String(data.api_version) === '3' ? '3' : '3.1';
  if (data.base_url !== undefined) config.baseUrl = data.base_url;
  // A URL, and anything the state's own check refuses (another scheme, spaces around it), is kept as
  // written: made absolute, ` postgres://...` would become a folder in the repository.
  if (data.state !== undefined) config.state = /^[a-z][a-z0-9+.-]+:|^\s|\s$|[\u0000-\u001f\u007f]/i.test(data.state) ? data.state : abs(data.state);
  if (data.require_state !== undefined) config.requireState = data.require_state;
  if (data.confirm_fleet_deletes_over !== undefined) config.confirmFleetDeletesOver = data.confirm_fleet_deletes_over;
  if (data.unset_variables !== undefined) config.unsetVariables = data.unset_variables;
  if (data.formats !== undefined) {
    config.formats = data.formats.map((f) => {
      const eq = f.indexOf('=');
      return eq === -1 || f.slice(eq + 1) === '-' ? f : `${f.slice(0, eq)}=${abs(f.slice(eq + 1))}`;
    });
  }
  if (data.env_files !== undefined) config.envFiles = data.env_files.map(abs);
  if (data.ignore !== undefined) config.ignore = data.ignore;
  if (data.catalog !== undefined) config.catalog = abs(data.catalog);
  if (data.rules !== undefined) config.rules = data.rules;
  if (data.overrides !== undefined) config.overrides = data.overrides;
  if (data.sensitive !== undefined) config.sensitive = data.sensitive;
  if (data.inline_policy_suppression !== undefined) config.inlinePolicySuppression = data.inline_policy_suppression;
  config.policies = (data.policies ?? []).map((p): PolicySpec => {
    const kind = Object.keys(p).find((k) => kindNames.has(k))!;
    const spec: PolicySpec = { id: p.id, message: p.message, severity: p.severity ?? 'error', kind, value: p[kind] };
    if (p.hint !== undefined) spec.hint = p.hint;
    if (p.files !== undefined) spec.files = p.files;
    return spec;
  });
  return config;
}
