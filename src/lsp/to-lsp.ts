import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range as LspRange } from 'vscode-languageserver/node';
import { catalogue, docsAnchor, type Code } from '../diagnostics/codes.js';
import type { Diagnostic, Fix, Range, Severity } from '../diagnostics/diagnostic.js';
import { packageRoot } from '../version.js';

const severities: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** What a published diagnostic carries for the code actions: the finding as validate reported it. */
export interface FindingData {
  pointer?: string;
  hint?: string;
  fix?: Fix;
}

/** A 1-based range (columns in UTF-16 units, as the loader counts them) as the protocol's 0-based one. */
export function toLspRange(range: Range | undefined): LspRange {
  if (range === undefined) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return {
    start: { line: range.start.line - 1, character: range.start.col - 1 },
    end: { line: range.end.line - 1, character: range.end.col - 1 },
  };
}

/** Where a code is explained: its section of the rules reference shipped with the package, or the policy language. */
export function codeHref(code: string): string {
  if (code.startsWith('policy/')) return new URL('docs/policies.md', packageRoot).href;
  if (!Object.hasOwn(catalogue, code)) return new URL('docs/rules.md', packageRoot).href;
  return new URL(`docs/rules.md#${docsAnchor(code as Code)}`, packageRoot).href;
}

/**
 * A finding as the protocol's diagnostic: the same code, severity, range and message as
 * `validate` reports (the differential test holds it), the code linked to its documentation, the
 * places it relates to, and the hint and pointer for the code actions.
 */
export function toLspDiagnostic(d: Diagnostic, cwd: string): LspDiagnostic {
  const data: FindingData = {};
  if (d.pointer !== undefined) data.pointer = d.pointer;
  if (d.hint !== undefined) data.hint = d.hint;
  if (d.fix !== undefined) data.fix = d.fix;
  const out: LspDiagnostic = {
    range: toLspRange(d.range),
    severity: severities[d.severity],
    code: d.code,
    codeDescription: { href: codeHref(d.code) },
    source: 'sessionctl',
    message: d.message,
    data,
  };
  const related = (d.related ?? []).filter((r) => r.file !== undefined);
  if (related.length > 0) {
    out.relatedInformation = related.map((r) => ({ message: r.message, location: { uri: pathToFileURL(resolve(cwd, r.file!)).href, range: toLspRange(r.range) } }));
  }
  return out;
}
