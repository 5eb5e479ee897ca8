import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { builtInCatalog, catalogFromJson, type Catalog } from '../catalog/catalog.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { catalogSlugs, namesCatalogSlugs } from './catalog-slugs.js';
import { pathMatcher, relativePath } from './path-globs.js';
import { PolicySet } from './policies/index.js';
import type { PolicySpec } from './policies/types.js';
import type { CatalogRule } from './rule.js';
import { toolWrongToolkit } from './rules/tool-wrong-toolkit.js';
import { unknownTool } from './rules/unknown-tool.js';
import { unknownToolkit } from './rules/unknown-toolkit.js';
import type { SeverityControls } from './severity.js';

/**
 * The checks a run makes beyond the schema and the built-in rules: the catalogue checks and the
 * project's policies. Plain data, so that it crosses to worker threads.
 */
export interface ProjectChecks {
  /** The folder that policy `files` globs are relative to (the folder of `sessionctl.yaml`). */
  dir: string;
  policies: readonly PolicySpec[];
  /** The catalogue: the bundled one when absent, a JSON file (`--catalog`) by path, or `false` for none. */
  catalog?: string | false;
}

/** What a project (`sessionctl.yaml`) contributes to a validate run; see `projectRunOptions` in `src/project/`. */
export interface ProjectRunOptions {
  checks: ProjectChecks;
  severities?: SeverityControls;
  /** Files below `dir` matching these globs are left out of the run (`ignore`). */
  ignore?: { dir: string; globs: readonly string[] };
  /** The project file itself, not validated as a manifest unless named. */
  configFile?: string;
  /** Every policy's code (`policy/<id>`), those turned off included: suppression comments may name them. */
  policyCodes?: string[];
  /** `inline_policy_suppression: false` in the file: comments cannot silence `policy/*`. */
  policiesLocked?: boolean;
}

export const catalogRules: readonly CatalogRule[] = [unknownToolkit, toolWrongToolkit, unknownTool];

/** The project file's names: found while listing a folder, such a file is configuration, not a manifest. */
const PROJECT_FILE_NAMES = new Set(['sessionctl.yaml', 'sessionctl.yml']);

/**
 * The files of a run once the project had its say: the listed files (`expandManifestPaths`) less
 * those its `ignore` globs match, and less project files met while listing folders.
 */
export function selectProjectFiles(listed: readonly string[], paths: readonly string[], cwd: string, project: ProjectRunOptions | undefined): string[] {
  const named = new Set(paths.map((p) => resolve(cwd, p)));
  const ignored = projectIgnores(project);
  return listed.filter((file) => {
    // Named on the command line, it is checked as asked (and its findings say it is no manifest).
    if ((file === project?.configFile || PROJECT_FILE_NAMES.has(basename(file))) && !named.has(file)) return false;
    return ignored === undefined || !ignored(file);
  });
}

/** Whether the project's `ignore` covers an absolute file path; undefined when it ignores nothing. */
export function projectIgnores(project: ProjectRunOptions | undefined): ((file: string) => boolean) | undefined {
  const ignore = project?.ignore;
  if (ignore === undefined || ignore.globs.length === 0) return undefined;
  const matches = pathMatcher(ignore.globs);
  return (file) => {
    const rel = relativePath(ignore.dir, file);
    return rel !== undefined && matches(rel);
  };
}

const catalogs = new Map<string, Promise<Catalog>>();
/** The catalogues loaded so far, by source: documents after the first use them without waiting. */
const ready = new Map<string, Catalog>();

/**
 * The catalogue for `source`, loaded once per process (per thread) and only when a document
 * needs it: the bundled data is half a megabyte of JSON. A `--catalog` file is checked by the
 * CLI before the run starts (`readCatalogFile`), so here it only fails if it changed since.
 */
export function catalogFor(source: string | undefined): Promise<Catalog> {
  const key = source ?? '';
  let loading = catalogs.get(key);
  if (loading === undefined) {
    loading = (source === undefined ? builtInCatalog() : readCatalogFile(source)).then(
      (catalog) => {
        ready.set(key, catalog);
        return catalog;
      },
      (err: unknown) => {
        // Not kept: the CLI checks the file before a run (`checkCatalog`), and a process that
        // runs again once the file is fixed (the library, in-process tests) must read it again.
        catalogs.delete(key);
        throw err;
      },
    );
    catalogs.set(key, loading);
  }
  return loading;
}

/** Reads and checks a catalogue file (`{toolkits: [...], tools: [...]}`, the emulator's `--catalog`). Throws an Error naming the problem. */
export async function readCatalogFile(path: string): Promise<Catalog> {
  const text = await readFile(path, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`, { cause: err });
  }
  return catalogFromJson(data);
}

const policySets = new WeakMap<ProjectChecks, PolicySet>();

/** Catalogue and policy findings of one document. */
export async function projectDiagnostics(doc: ManifestDocument, checks: ProjectChecks): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  if (checks.catalog !== false && namesCatalogSlugs(doc.data)) {
    const catalog = ready.get(checks.catalog ?? '') ?? (await catalogFor(checks.catalog));
    const slugs = catalogSlugs(doc.data);
    for (const rule of catalogRules) out.push(...rule.check(doc, catalog, slugs));
  }
  if (checks.policies.length > 0) {
    let set = policySets.get(checks);
    if (set === undefined) {
      set = new PolicySet(checks.policies, checks.dir);
      policySets.set(checks, set);
    }
    out.push(...set.check(doc));
  }
  return out;
}
