import type { Diagnostic, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { PolicyRule } from '../diagnostics/report-base.js';
import { expandManifestPaths, loadManifests } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { declaredValues, sensitiveValues } from '../manifest/sensitive.js';
import { runVariables } from '../manifest/variables.js';
import type { SensitiveValue } from '../util/sensitive.js';
import { checkLoaded } from './check-loaded.js';
import { applyDiagnosticControls } from './controls.js';
import type { FoundSecret } from './mask.js';
import { selectProjectFiles, type ProjectRunOptions } from './project-checks.js';

export interface InMemoryOptions extends LoadOptions {
  /** Dotenv files whose variables fill `${VAR}` under the environment's; a later file wins over an earlier one. */
  envFiles?: readonly string[];
  /**
   * What the project's `sessionctl.yaml` adds: policies, severities, ignored files, the catalogue.
   * Without it the run checks against the bundled catalogue and applies only the files' own
   * suppression comments.
   */
  project?: ProjectRunOptions;
}

export interface CheckedManifests {
  /** The files of the run, the project's ignored ones left out. */
  files: string[];
  /** Every document of those files, whole: data and positions. */
  documents: ManifestDocument[];
  /** Env-file, load, YAML, interpolation, schema, rule, catalogue and policy findings, controlled and sorted. */
  diagnostics: Diagnostic[];
  /** The findings that suppression comments silenced. */
  suppressed: SuppressedDiagnostic[];
  /** Source text per file, secrets not yet masked. */
  sources: Map<string, string>;
  secrets: FoundSecret[];
  /** The run's sensitive values: of the variables declared sensitive, and expanded from secrets. */
  sensitive: SensitiveValue[];
  /** The variables `${VAR}` was expanded with: the environment over the env files'. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Loads every manifest of `paths` and checks them all in memory, as validate does: the first
 * step of plan, apply and diff, which need each document whole, and the reference that
 * validate's file-by-file run is compared with.
 */
export async function checkInMemory(paths: readonly string[], options: InMemoryOptions): Promise<CheckedManifests> {
  const { envFiles, project, ...load } = options;
  const variables = await runVariables({ cwd: options.cwd, ...(load.env !== undefined ? { env: load.env } : {}), ...(envFiles !== undefined ? { envFiles } : {}) });
  const listed = await expandManifestPaths(paths, options.cwd);
  const files = selectProjectFiles(listed.files, paths, options.cwd, project);
  const kept = new Set(files);
  const dropped = new Set(listed.files.filter((f) => !kept.has(f)));
  const loaded = await loadManifests(paths, { ...load, env: variables.env });
  const documents = loaded.documents.filter((d) => kept.has(d.file));
  const loaderFindings = loaded.diagnostics.filter((d) => d.file === undefined || !dropped.has(d.file));
  const checked = await checkLoaded(documents, loaderFindings, { acrossDocuments: true, checks: project?.checks ?? { dir: options.cwd, policies: [] } });
  const sources = new Map([...loaded.sources].filter(([file]) => !dropped.has(file)));
  const controlled = applyDiagnosticControls([...variables.diagnostics, ...loaderFindings, ...checked.diagnostics], {
    sources,
    ...(project?.severities !== undefined ? { severities: project.severities } : {}),
    policyCodes: policyCodesOf(project),
    ...(project?.policiesLocked === true ? { policiesLocked: true } : {}),
  });
  const sensitive = [...declaredValues(variables.env, options.sensitive), ...documents.flatMap((doc) => sensitiveValues(new Set(doc.sensitive?.values())))];
  return { files, documents, ...controlled, sources, secrets: checked.secrets, sensitive, env: variables.env };
}

/** The project's policies as the report's rules (SARIF's, for their `policy/<id>` codes). */
export function policyRulesOf(project: ProjectRunOptions | undefined): PolicyRule[] {
  return (project?.checks.policies ?? []).map((p) => ({ code: `policy/${p.id}`, severity: p.severity, description: p.message }));
}

/** The codes suppression comments may name beyond the catalogue's: every policy of the project. */
export function policyCodesOf(project: ProjectRunOptions | undefined): string[] {
  return project?.policyCodes ?? (project?.checks.policies ?? []).map((p) => `policy/${p.id}`);
}
