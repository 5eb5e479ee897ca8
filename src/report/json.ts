import type { Diagnostic, Range, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import { jsonBlocks } from './json-blocks.js';
import { jsonPieces, LazyList } from './json-pieces.js';
import { displayPath } from './paths.js';
import { inertJson } from './text.js';
import { toolName } from './tool.js';
import type { Report, ReportContext, Reporter } from './types.js';

/** Bumped only for changes that break a consumer; adding a field is not one. */
export const REPORT_VERSION = 1;

interface JsonRange {
  start: { line: number; col: number };
  end: { line: number; col: number };
}

/** One diagnostic in the JSON report. Every key is always present; absent values are `null`. */
export interface JsonDiagnostic {
  code: string;
  severity: Diagnostic['severity'];
  message: string;
  file: string | null;
  range: JsonRange | null;
  pointer: string | null;
  hint: string | null;
  related: { message: string; file: string | null; range: JsonRange | null }[];
}

/** A suppressed finding: the diagnostic, and the comment that silenced it (SARIF's `suppressions`). */
export interface JsonSuppressed extends JsonDiagnostic {
  suppressions: { kind: 'inSource'; justification: string; file: string | null; range: JsonRange | null }[];
}

/** The JSON report; its shape is `schemas/report.schema.json`. */
export interface JsonReport {
  reportVersion: typeof REPORT_VERSION;
  tool: { name: string; version: string };
  command: string;
  files: string[];
  diagnostics: JsonDiagnostic[];
  /** Findings silenced by `# sessionctl-ignore` comments (commands that apply them). */
  suppressed?: JsonSuppressed[];
  /** plan, apply and diff add their blocks (see `json-blocks.ts`). */
  plan?: unknown;
  applied?: unknown;
  drift?: unknown;
  summary: { errors: number; warnings: number; infos: number; files: number; manifests: number; suppressed?: number };
}

function range(r: Range | undefined): JsonRange | null {
  // Copied key by key so the output has a fixed key order whatever object the loader built.
  return r === undefined ? null : { start: { line: r.start.line, col: r.start.col }, end: { line: r.end.line, col: r.end.col } };
}

function diagnostic(d: Diagnostic, ctx: ReportContext): JsonDiagnostic {
  const path = (file: string | undefined): string | null => (file === undefined ? null : displayPath(file, ctx.cwd));
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    file: path(d.file),
    range: range(d.range),
    pointer: d.pointer ?? null,
    hint: d.hint ?? null,
    related: (d.related ?? []).map((r) => ({ message: r.message, file: path(r.file ?? d.file), range: range(r.range) })),
  };
}

function suppressedDiagnostic(d: SuppressedDiagnostic, ctx: ReportContext): JsonSuppressed {
  const s = d.suppression;
  const base = diagnostic(d, ctx);
  // The comment is in the finding's own file: its path is already made.
  return { ...base, suppressions: [{ kind: s.kind, justification: s.justification, file: s.file === d.file ? base.file : displayPath(s.file, ctx.cwd), range: range(s.range) }] };
}

/** The report as a plain object (what the `json` format serialises). */
export function toJsonReport(report: Report, ctx: ReportContext): JsonReport {
  return jsonReport(report, ctx, report.files.map((f) => displayPath(f, ctx.cwd)));
}

/** The JSON report's text, in pieces (`jsonPieces`): its file names are made as they are written. */
export function* jsonReportPieces(report: Report, ctx: ReportContext): Generator<string> {
  for (const piece of jsonPieces(jsonReport(report, ctx, new LazyList(report.files, (f) => displayPath(f, ctx.cwd))))) yield inertJson(piece);
}

/** The report's object, with its list of files as given: made now, or as it is written. */
function jsonReport<F>(report: Report, ctx: ReportContext, files: F): Omit<JsonReport, 'files'> & { files: F } {
  const s = report.summary;
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: toolName, version: ctx.toolVersion },
    command: report.command,
    files,
    diagnostics: report.diagnostics.map((d) => diagnostic(d, ctx)),
    ...(report.suppressed === undefined ? {} : { suppressed: report.suppressed.map((d) => suppressedDiagnostic(d, ctx)) }),
    ...jsonBlocks(report, ctx, (d) => diagnostic(d, ctx)),
    summary: {
      errors: s.errors,
      warnings: s.warnings,
      infos: s.infos,
      files: s.files,
      manifests: s.manifests,
      ...(s.suppressed === undefined ? {} : { suppressed: s.suppressed }),
    },
  };
}

export const json: Reporter = {
  name: 'json',
  render: (report, ctx) => [...jsonReportPieces(report, ctx)].join(''),
  pieces: jsonReportPieces,
};
