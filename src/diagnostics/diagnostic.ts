import type { Code, Severity } from './codes.js';

export type { Severity };

/** A 1-based position in a source file. `col` counts UTF-16 code units, as editors do. */
export interface Position {
  line: number;
  col: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * An edit of the finding's file that resolves it, for an editor's quick fix (`sessionctl lsp`).
 * Data, never parsed from the hint; reports leave it out.
 */
export interface Fix {
  /** What the edit does, as the quick fix's title: "Replace with `gmail`". */
  title: string;
  /** Each replaces the text of a range of the finding's file (an empty range inserts). */
  edits: Array<{ range: Range; text: string }>;
}

/** Another place that explains a diagnostic, such as the first of two duplicate keys. */
export interface RelatedLocation {
  message: string;
  file?: string;
  range?: Range;
}

/**
 * A problem found in the input or in the service's answer. Diagnostics are values: they are
 * collected, sorted and rendered, never thrown. Positions are resolved once, when the YAML is
 * loaded; reporters do no arithmetic on them.
 */
export interface Diagnostic {
  code: Code;
  severity: Severity;
  message: string;
  /** The path as the loader received it (absolute, or `<stdin>`); reporters make it relative. */
  file?: string;
  /** JSON pointer (RFC 6901) into the manifest document. */
  pointer?: string;
  range?: Range;
  hint?: string;
  related?: RelatedLocation[];
  /** The edit that the hint names, when it names one (a did-you-mean, quoting a value). */
  fix?: Fix;
}

/**
 * Why a finding is not reported: an inline `# sessionctl-ignore` comment (SARIF 2.1.0's
 * `suppression` object, `kind: inSource`), with the reason written after its `:`.
 */
export interface Suppression {
  kind: 'inSource';
  /** The comment's reason; '' when it gave none (that comment is itself a finding). */
  justification: string;
  /** Where the comment is. */
  file: string;
  range: Range;
}

/** A finding that a suppression comment silenced: listed in JSON and SARIF, counted in the summary. */
export interface SuppressedDiagnostic extends Diagnostic {
  suppression: Suppression;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function compareSeverity(a: Severity, b: Severity): number {
  return severityRank[a] - severityRank[b];
}

/** Deterministic order: file, line, column, code, message. Diagnostics without a file come first. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fa = a.file ?? '';
  const fb = b.file ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  const la = a.range?.start.line ?? 0;
  const lb = b.range?.start.line ?? 0;
  if (la !== lb) return la - lb;
  const ca = a.range?.start.col ?? 0;
  const cb = b.range?.start.col ?? 0;
  if (ca !== cb) return ca - cb;
  if (a.code !== b.code) return a.code < b.code ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Sorts and drops exact repeats (same code, place and message). */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const d of [...diagnostics].sort(compareDiagnostics)) {
    const key = `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}\0${d.code}\0${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

export interface Tally {
  errors: number;
  warnings: number;
  infos: number;
}

export function tally(diagnostics: readonly Diagnostic[]): Tally {
  const t: Tally = { errors: 0, warnings: 0, infos: 0 };
  for (const d of diagnostics) {
    if (d.severity === 'error') t.errors++;
    else if (d.severity === 'warning') t.warnings++;
    else t.infos++;
  }
  return t;
}
