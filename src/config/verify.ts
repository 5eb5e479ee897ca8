import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { computeDrift, driftDiagnostics, type DriftItem, type Effective } from './drift.js';
import type { ExpectedConfig } from './expected.js';
import { unifiedConfigDiff } from './unified.js';

/** A live session checked against its manifest. */
export interface Verification {
  /** `drifted` when a declared value differs or was dropped (with `strict`, also when one was added). */
  status: 'in-sync' | 'drifted';
  /** Every classified difference, `defaulted` included. */
  differences: DriftItem[];
  /** The differences that matter, located at the declared keys of the manifest. */
  diagnostics: Diagnostic[];
  /** A unified diff of declared against effective config, when anything but defaults differs ('' otherwise). */
  diff: string;
}

/**
 * The one place that decides whether a session drifted from its manifest: apply (each answer and
 * each refreshed session), diff, plan's refresh and the library all ask here. Declared against
 * effective, key by key, lists as sets, documented defaults not counted.
 */
export function verifySession(doc: ManifestDocument, expected: ExpectedConfig, session: Effective & { session_id: string }, options: { strict?: boolean } = {}): Verification {
  const differences = computeDrift(expected, session);
  const drifted = differences.some((d) => d.kind === 'changed' || d.kind === 'dropped' || (options.strict === true && d.kind === 'added'));
  const shown = differences.some((d) => d.kind !== 'defaulted');
  return {
    status: drifted ? 'drifted' : 'in-sync',
    differences,
    diagnostics: driftDiagnostics(differences, doc, doc.name),
    diff: shown ? unifiedConfigDiff(expected, session, { expected: `${doc.name} (declared)`, effective: `${session.session_id} (effective)` }) : '',
  };
}

/**
 * What an agent connected to the session's MCP URL sees, against the tools the manifest expects:
 * a tool listed over MCP that the manifest does not expect, or an expected one that is not listed,
 * is drift at the key that decides it (`diff --mcp`). The REST answer's `tool_router_tools` can
 * agree while the MCP endpoint does not; this is what agents actually get.
 */
export function verifyMcpTools(doc: ManifestDocument, expected: ExpectedConfig, listed: readonly string[]): Pick<Verification, 'differences' | 'diagnostics'> & { drifted: boolean } {
  const differences = computeDrift(expected, { config: expected.config, tool_router_tools: [...listed] }).filter((d) => d.path === '/tool_router_tools');
  const diagnostics = driftDiagnostics(differences, doc, doc.name).map((d) => ({ ...d, message: d.message.replace(/^([^:]+): the session /, '$1: over MCP the session ') }));
  return { differences, diagnostics, drifted: differences.some((d) => d.kind === 'changed' || d.kind === 'dropped') };
}
