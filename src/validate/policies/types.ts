import type { Severity } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';

/**
 * One policy of `sessionctl.yaml`, as plain data (it crosses to worker threads): its id (the
 * finding's code is `policy/<id>`), the message and severity of its findings, the files it applies
 * to, and its one condition over the manifest.
 */
export interface PolicySpec {
  id: string;
  message: string;
  severity: Severity;
  /** An optional hint for every finding (who to ask, what to do); else the condition's own. */
  hint?: string;
  /** Globs relative to the config's folder; every file when absent. */
  files?: string[];
  /** The condition's key in `sessionctl.yaml` (`allowed_toolkits`, ...) and its value. */
  kind: string;
  value: unknown;
}

/** One place where a manifest breaks a policy. */
export interface Violation {
  pointer: string;
  /** Point at the key rather than its value. */
  key: boolean;
  /** Only the start of the range (a whole mapping, for a key that would go inside it). */
  point?: boolean;
  /** What is wrong here, after the policy's message: "`slack` is not an allowed toolkit". */
  detail: string;
  /** What to do; the policy's own hint wins. */
  hint: string;
}

/**
 * A kind of condition: its key in a policy (described in schemas/sessionctl-config.schema.json),
 * an example for docs/policies.md (run when the docs are generated), and the check itself.
 */
export interface PolicyKind {
  readonly name: string;
  /** A policy using it and a manifest that breaks it, both YAML, for docs/policies.md. */
  readonly example: { policy: string; manifest: string };
  check(doc: ManifestDocument, value: unknown): Violation[];
}
