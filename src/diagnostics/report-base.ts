import type { Diagnostic, Tally } from './diagnostic.js';

/**
 * What every command's report has, whatever else it adds: what the run looked at and what it found.
 * `validate` builds this much; plan, apply and diff add their blocks (`report/types.ts`).
 */
export interface ReportBase {
  command: string;
  /** Every file the run looked at, as the loader received the path. */
  files: string[];
  /** Sorted and de-duplicated (see `sortDiagnostics`). */
  diagnostics: Diagnostic[];
  summary: ReportSummary;
}

export interface ReportSummary extends Tally {
  files: number;
  manifests: number;
}
