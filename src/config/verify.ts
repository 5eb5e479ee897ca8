import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { computeDrift, driftDiagnostics, type DriftItem, type Effective } from './drift.js';
import type { ExpectedConfig } from './expected.js';
import { documentMasker } from '../manifest/sensitive.js';
import { maskConfig, sensitiveAt } from './sensitive-fields.js';
import { unifiedConfigDiff } from './unified.js';
import { sensitiveMark } from '../util/sensitive.js';

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

export interface VerifyOptions {
  /** `added` differences count as drift. */
  strict?: boolean;
  /** Show sensitive values as they are (`--show-sensitive`); by default every one is masked. */
  revealSensitive?: boolean;
}

/**
 * The one place that decides whether a session drifted from its manifest: apply (each answer and
 * each refreshed session), diff, plan's refresh and the library all ask here. Declared against
 * effective, key by key, lists as sets, documented defaults not counted. Values are compared as
 * they are; what is returned has the document's sensitive values masked (unless revealed), on
 * both sides, so a changed secret is `changed (sensitive: HOOK_TOKEN)` and neither value shows.
 */
export function verifySession(doc: ManifestDocument, expected: ExpectedConfig, session: Effective & { session_id: string }, options: VerifyOptions = {}): Verification {
  const found = computeDrift(expected, session);
  const drifted = found.some((d) => d.kind === 'changed' || d.kind === 'dropped' || (options.strict === true && d.kind === 'added'));
  const shown = found.some((d) => d.kind !== 'defaulted');
  const masked = doc.sensitive !== undefined && options.revealSensitive !== true;
  const differences = masked ? maskDifferences(found, doc) : found;
  const labels = { expected: `${doc.name} (declared)`, effective: `${session.session_id} (effective)` };
  let diff = '';
  if (shown && masked) {
    const masker = documentMasker(doc);
    const changed = new Set(found.filter((d) => d.kind === 'changed').map((d) => d.path.slice('/config'.length)));
    const config = maskConfig(expected, session.config, sensitiveAt(doc), masker, changed);
    diff = unifiedConfigDiff({ ...expected, config: masker.json(expected.config) }, { config, tool_router_tools: masker.json(session.tool_router_tools) }, labels);
  } else if (shown) diff = unifiedConfigDiff(expected, session, labels);
  return { status: drifted ? 'drifted' : 'in-sync', differences, diagnostics: driftDiagnostics(differences, doc, doc.name), diff };
}

/** Differences with sensitive values masked: a declared sensitive field is masked whole on both sides and says so. */
export function maskDifferences(items: readonly DriftItem[], doc: ManifestDocument): DriftItem[] {
  const masker = documentMasker(doc);
  const at = sensitiveAt(doc);
  return items.map((d) => {
    const labels = at(d.pointer);
    if (labels !== undefined && d.member === undefined) {
      const mark = sensitiveMark(labels);
      const out: DriftItem = { kind: d.kind, path: d.path, pointer: d.pointer, sensitive: [...labels] };
      if (d.expected !== undefined) out.expected = mark;
      if (d.actual !== undefined) out.actual = mark;
      return out;
    }
    return masker.json(d);
  });
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
