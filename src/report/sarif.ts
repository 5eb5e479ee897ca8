import { catalogue as fullCatalogue, docsAnchor, type Code, type CodeInfo } from '../diagnostics/codes.js';
import type { Diagnostic, Range, Severity, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import { repositoryPath } from './paths.js';
import { inertJson } from './text.js';
import { rulesDocPath, toolName } from './tool.js';
import type { PolicyRule, ReportContext, Reporter } from './types.js';

/** Where the policy language is documented, for the help text of policy rules. */
const policiesDocPath = 'docs/policies.md';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const level: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** A path relative to the repository's root as a URI reference: each segment percent-encoded (`<stdin>` has no raw `<`). */
function uri(file: string, ctx: ReportContext): string {
  return repositoryPath(file, ctx)
    .split('/')
    .map((segment) => (segment === '..' || segment === '.' ? segment : encodeURIComponent(segment)))
    .join('/');
}

// SARIF regions are 1-based with an exclusive end column, like our ranges; nothing to convert.
function region(r: Range): Record<string, number> {
  return { startLine: r.start.line, startColumn: r.start.col, endLine: r.end.line, endColumn: r.end.col };
}

function physicalLocation(file: string, range: Range | undefined, ctx: ReportContext): Record<string, unknown> {
  return {
    artifactLocation: { uri: uri(file, ctx) },
    ...(range === undefined ? {} : { region: region(range) }),
  };
}

/**
 * A suppressed result carries SARIF 2.1.0's `suppressions` (§3.27.23): the comment in the source,
 * with its reason as the justification; code scanning shows such results as dismissed.
 */
function suppressions(d: Diagnostic | SuppressedDiagnostic, ctx: ReportContext): Record<string, unknown> {
  if (!('suppression' in d)) return {};
  const s = d.suppression;
  return { suppressions: [{ kind: s.kind, justification: s.justification, location: { physicalLocation: physicalLocation(s.file, s.range, ctx) } }] };
}

function result(d: Diagnostic | SuppressedDiagnostic, ruleIndex: ReadonlyMap<string, number>, ctx: ReportContext): Record<string, unknown> {
  const index = ruleIndex.get(d.code);
  const related = (d.related ?? []).flatMap((r, i) => {
    const file = r.file ?? d.file;
    return file === undefined ? [] : [{ id: i + 1, physicalLocation: physicalLocation(file, r.range, ctx), message: { text: r.message } }];
  });
  return {
    ruleId: d.code,
    ...(index === undefined ? {} : { ruleIndex: index }),
    level: level[d.severity],
    message: { text: d.hint === undefined ? d.message : `${d.message}\n\nhint: ${d.hint}` },
    locations: d.file === undefined ? [] : [{ physicalLocation: physicalLocation(d.file, d.range, ctx) }],
    ...(related.length === 0 ? {} : { relatedLocations: related }),
    ...suppressions(d, ctx),
  };
}

function policyRule(p: PolicyRule): Record<string, unknown> {
  return {
    id: p.code,
    shortDescription: { text: p.description },
    help: { text: `${/[.!?]$/.test(p.description) ? p.description : `${p.description}.`} A policy of the project's sessionctl.yaml (${p.code.slice('policy/'.length)}); the policy language: ${policiesDocPath} in the sessionctl package.` },
    defaultConfiguration: { level: level[p.severity] },
  };
}

/** The SARIF 2.1.0 log as a plain object: one run, the rules taken from the code catalogue. */
export function toSarif(
  report: { diagnostics: readonly Diagnostic[]; suppressed?: readonly SuppressedDiagnostic[]; policies?: readonly PolicyRule[] },
  ctx: ReportContext,
): Record<string, unknown> {
  const catalogue: Readonly<Record<string, CodeInfo>> = ctx.catalogue ?? fullCatalogue;
  const policies = report.policies ?? [];
  const ids = [...Object.keys(catalogue), ...policies.map((p) => p.code)];
  const ruleIndex = new Map(ids.map((id, i) => [id, i]));
  const catalogueRules = Object.keys(catalogue).map((id) => {
    const info = catalogue[id] as CodeInfo;
    return {
      id,
      shortDescription: { text: info.description },
      help: { text: `${info.description} Reference: ${rulesDocPath}#${docsAnchor(id as Code)} in the sessionctl package.` },
      defaultConfiguration: { level: level[info.severity] },
    };
  });
  const rules = [...catalogueRules, ...policies.map(policyRule)];
  // A diagnostic without a file (a glob that matched nothing) is about the run, not the code:
  // SARIF's place for it is a tool execution notification. Code scanning also rejects results
  // without a location.
  // Suppressed findings follow the reported ones, so that a report's results keep their order.
  const located = [...report.diagnostics, ...(report.suppressed ?? [])].filter((d) => d.file !== undefined);
  const notifications = report.diagnostics
    .filter((d) => d.file === undefined)
    .map((d) => ({
      level: level[d.severity],
      message: { text: d.hint === undefined ? d.message : `${d.message}\n\nhint: ${d.hint}` },
      descriptor: { id: d.code, ...(ruleIndex.has(d.code) ? { index: ruleIndex.get(d.code) } : {}) },
    }));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: toolName, version: ctx.toolVersion, rules } },
        ...(notifications.length === 0
          ? {}
          : {
              invocations: [
                { executionSuccessful: !notifications.some((n) => n.level === 'error'), toolExecutionNotifications: notifications },
              ],
            }),
        // Our columns count UTF-16 code units, as editors and JavaScript strings do.
        columnKind: 'utf16CodeUnits',
        results: located.map((d) => result(d, ruleIndex, ctx)),
      },
    ],
  };
}

export const sarif: Reporter = {
  name: 'sarif',
  render: (report, ctx) => `${inertJson(JSON.stringify(toSarif(report, ctx), null, 2))}\n`,
};
