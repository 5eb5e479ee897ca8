/**
 * sessionctl as a library: what an application needs to create Tool Router sessions at run time
 * from a committed manifest, and to check them. The CLI is one consumer of this entry; nothing here
 * reads `process`, writes to the console or imports the CLI.
 *
 * ```ts
 * import { parseManifest, requestBody, createClient, checkSession } from 'sessionctl';
 *
 * const { documents, diagnostics } = parseManifest(yamlText, { env: { USER_ID: user.id } });
 * if (diagnostics.some((d) => d.severity === 'error')) throw new Error(diagnostics[0].message);
 * const client = createClient({ baseUrl: 'https://backend.composio.dev', apiKey });
 * const session = await client.createSession(requestBody(documents[0].data));
 * const check = checkSession(documents[0], session);   // drift between declared and effective
 * ```
 *
 * @packageDocumentation
 */

import { parseManifestText } from './manifest/load.js';
import type { ManifestDocument } from './manifest/types.js';
import { sortDiagnostics, type Diagnostic } from './diagnostics/diagnostic.js';
import { validateDocuments } from './validate/index.js';
import { expectedConfig as expectedOf, type ExpectedConfig } from './config/expected.js';
import { requestBody as bodyOf } from './config/request.js';
import type { CreateSessionBody, ManifestData, SessionView } from './config/types.js';
import { verifySession } from './plan/diff.js';
import type { DriftBlockItem } from './plan/blocks.js';

// Manifests: load from files (folders, globs) with every validation, or parse one text.
export { loadAndValidate as loadManifests, type ValidatedManifests, type InputOptions as LoadManifestsOptions } from './plan/inputs.js';
export type { ManifestDocument, LoadOptions } from './manifest/types.js';

// The request body and the expected effective config (functions below take a document or its data).
export { bodyHash, canonicalJson } from './config/request.js';
export type { ExpectedConfig, Origin, MetaToolRule } from './config/expected.js';
export type { ManifestData, CreateSessionBody, EffectiveConfig, SessionView, Json } from './config/types.js';

// Drift: classified differences, located diagnostics, a unified diff.
export { computeDrift, driftDiagnostics, type DriftItem, type DriftKind, type Effective } from './config/drift.js';
export { unifiedConfigDiff } from './config/unified.js';

// Validation on its own: documents already loaded, or paths as `sessionctl validate` takes them;
// the manifest JSON Schema's text.
export { validateDocuments, manifestSchemaText } from './validate/index.js';
export { validatePaths, type ValidateRun, type ValidatePathsOptions } from './validate/run.js';

// The project configuration (sessionctl.yaml): load it for a folder, turn it into validatePaths'
// `project` option, apply its severities and the manifests' suppression comments to findings.
export { loadProjectConfig, type LoadProjectOptions, type ProjectLoad } from './project/load.js';
export { projectRunOptions } from './project/run-options.js';
export type { ProjectConfig } from './project/types.js';
export { applyDiagnosticControls, type ControlOptions, type ControlledDiagnostics } from './validate/controls.js';
export { projectDiagnostics, selectProjectFiles, type ProjectChecks, type ProjectRunOptions } from './validate/project-checks.js';

// Diagnostics and their catalogue.
export type { Diagnostic, Severity, Range, Position, Suppression, SuppressedDiagnostic } from './diagnostics/diagnostic.js';
export { catalogue as diagnosticCodes, type Code } from './diagnostics/codes.js';

// The HTTP client for the 13 endpoints, and its error.
export { createClient, type SessionClient, type ClientOptions } from './client/client.js';
export { ApiError, type ApiErrorKind } from './client/errors.js';
export type { Session, SessionConfig, CreateSessionRequest } from './client/types.js';

// The emulator, for an application's own tests.
export { startEmulator, type EmulatorOptions, type RunningEmulator } from './emulator/server.js';

export interface ParseManifestOptions {
  /** Variables for `${VAR}` interpolation, e.g. `{ USER_ID: user.id }`. Nothing is read from the process environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The name used in diagnostics and as the default manifest name (its stem). Default `manifest.yaml`. */
  file?: string;
}

/**
 * Parses and validates one manifest text (one or more YAML documents) with the given variables:
 * the same YAML, schema and rule findings as `sessionctl validate`, positions 1-based. Build the
 * create body of a document with `requestBody(document.data)` once there is no error.
 */
export function parseManifest(text: string, options: ParseManifestOptions = {}): { documents: ManifestDocument[]; diagnostics: Diagnostic[] } {
  const parsed = parseManifestText(text, options.file ?? 'manifest.yaml', { env: options.env ?? {} });
  return { documents: parsed.documents, diagnostics: sortDiagnostics([...parsed.diagnostics, ...validateDocuments(parsed.documents)]) };
}

export interface SessionCheck {
  /** `in-sync`, or `drifted` when a declared value differs or was dropped (with `strict`, also when one was added). */
  status: 'in-sync' | 'drifted';
  /** Every classified difference, `defaulted` included. */
  differences: DriftBlockItem['differences'];
  /** The differences that matter, located at the declared keys of the manifest. */
  diagnostics: Diagnostic[];
  /** A unified diff of the declared against the effective config ('' when they agree). */
  diff: string;
}

/**
 * Checks a live session (a create or GET answer) against the manifest document it was created
 * from: declared against effective, key by key, lists as sets, documented defaults not counted.
 */
export function checkSession(document: ManifestDocument, session: SessionView, options: { strict?: boolean } = {}): SessionCheck {
  const { item, diagnostics } = verifySession(document, expectedOf(document.data as ManifestData), session, options.strict === true);
  return { status: item.status === 'drifted' ? 'drifted' : 'in-sync', differences: item.differences, diagnostics, diff: item.diff };
}

function dataOf(input: ManifestDocument | ManifestData): ManifestData {
  return typeof (input as Partial<ManifestDocument>).locate === 'function' ? ((input as ManifestDocument).data as ManifestData) : (input as ManifestData);
}

/**
 * The wire body of POST /api/v3/tool_router/session for a validated manifest document (or its
 * data): `name` dropped, the bare-list shorthands of `toolkits` and `tools.<toolkit>` expanded to
 * `{enable: [...]}`, everything else as written, `${VAR}` already expanded at parse time.
 */
export function requestBody(manifest: ManifestDocument | ManifestData): CreateSessionBody {
  return bodyOf(dataOf(manifest));
}

/**
 * The config the service should answer with for a manifest document (or its data), in response
 * spelling with the documented defaults, the meta tools it should expose, and for every value the
 * manifest pointer that declared it (or that it is a default).
 */
export function expectedConfig(manifest: ManifestDocument | ManifestData): ExpectedConfig {
  return expectedOf(dataOf(manifest));
}
