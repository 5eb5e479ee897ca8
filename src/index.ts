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

// Manifests: load from files (folders, globs) with every validation, or parse one text.
export { loadManifests, type LoadManifestsOptions, type ValidatedManifests } from './library/load-manifests.js';
export { parseManifest, requestBody, expectedConfig, type ParseManifestOptions } from './library/manifest.js';
export type { ManifestDocument, LoadOptions } from './manifest/types.js';

// The request body and the expected effective config.
export { bodyHash, canonicalJson } from './config/request.js';
export type { ExpectedConfig, Origin, MetaToolRule } from './config/expected.js';
export type { ManifestData, CreateSessionBody } from './config/types.js';
// `SessionView` and `EffectiveConfig` are the earlier public names of `Session` and `SessionConfig`.
export type { Session as SessionView, SessionConfig as EffectiveConfig } from './wire/session.js';
export type { Json } from './wire/json.js';

// Drift: classified differences, located diagnostics, a unified diff, and a live session checked.
export { computeDrift, driftDiagnostics, type DriftItem, type DriftKind, type Effective } from './config/drift.js';
export { unifiedConfigDiff } from './config/unified.js';
export { checkSession, type SessionCheck } from './library/check-session.js';

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
export { createClient, mcpToolNames, type SessionClient, type ClientOptions } from './client/client.js';
export { ApiError, type ApiErrorKind } from './client/errors.js';
// What the library throws when it cannot go on, as classes (`err instanceof StateError`).
export { SessionctlError, UsageError, InputError, StateError } from './diagnostics/errors.js';
export type { Session, SessionConfig } from './wire/session.js';
export type { CreateSessionRequest } from './wire/request.js';

// The state a pipeline applied (file or PostgreSQL), for the application's lookups.
export { openState, type StateLookup, type AppliedSession, type OpenStateOptions } from './library/open-state.js';

// Per-user manifests at run time: each end user's session, created once from what apply published.
export { openSessions, type Sessions, type OpenSessionsOptions, type EnsuredSession } from './library/open-sessions.js';
export { NotPublishedError, MissingVariableError, OutcomeUnknownError, EnsureTimeoutError, InvalidUserIdError } from './fleet/errors.js';

// The emulator, for an application's own tests.
export { startEmulator } from './library/start-emulator.js';
export type { EmulatorOptions, RunningEmulator } from './emulator/server.js';
