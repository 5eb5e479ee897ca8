import type { CodeInfo, PolicyCode } from './codes.js';
import type { Diagnostic, SuppressedDiagnostic, Tally } from './diagnostic.js';

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
  /**
   * Findings that inline `# sessionctl-ignore` comments silenced, each with its reason: not
   * problems (they change no exit code) but listed in JSON and SARIF. Absent for commands that do
   * not apply suppressions.
   */
  suppressed?: SuppressedDiagnostic[];
  /** The project's policies (`sessionctl.yaml`): SARIF's rules for their `policy/<id>` codes. */
  policies?: PolicyRule[];
  summary: ReportSummary;
}

export interface ReportSummary extends Tally {
  files: number;
  manifests: number;
  /** Findings silenced by suppression comments; set whenever `suppressed` is. */
  suppressed?: number;
}

/** A project policy as a rule of the report: its code, severity and message. */
export interface PolicyRule extends CodeInfo {
  code: PolicyCode;
}
