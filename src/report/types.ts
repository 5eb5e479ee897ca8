import type { CodeInfo, PolicyCode } from '../diagnostics/codes.js';
import type { Diagnostic, SuppressedDiagnostic, Tally } from '../diagnostics/diagnostic.js';
import type { AppliedBlock, DriftBlock, PlanBlock } from '../plan/blocks.js';

/**
 * One envelope for every command. Reporters render it and nothing else; command-specific parts
 * (plan, apply, drift) are optional, typed blocks that the stages owning them add here. Every
 * renderer must work on a report that has diagnostics only.
 */
export interface Report {
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
  /** `plan` (and `apply --dry-run`): the action per manifest, its body and expected config. */
  plan?: PlanBlock;
  /** `apply`: what happened per manifest, and the tally. */
  applied?: AppliedBlock;
  /** `diff`: the drift status per manifest. */
  drift?: DriftBlock;
}

export interface ReportSummary extends Tally {
  files: number;
  manifests: number;
  /** Findings silenced by suppression comments; set whenever `Report.suppressed` is. */
  suppressed?: number;
}

/** A project policy as a rule of the report: its code, severity and message. */
export interface PolicyRule extends CodeInfo {
  code: PolicyCode;
}

export interface ReportContext {
  /** Paths are shown relative to this folder, with forward slashes. */
  cwd: string;
  color: boolean;
  toolVersion: string;
  /** Source text per file (as in `Diagnostic.file`), for code frames. */
  sources: ReadonlyMap<string, string>;
  /**
   * The code catalogue SARIF takes its rules from. Default: the full catalogue of `codes.ts`;
   * tests pass a fixed one so that their expected output does not change as codes are added.
   */
  catalogue?: Readonly<Record<string, CodeInfo>>;
}

export type FormatName = 'human' | 'json' | 'github' | 'sarif' | 'junit' | 'markdown';

export interface Reporter {
  readonly name: FormatName;
  /** Pure: the same report and context always give the same string. */
  render(report: Report, ctx: ReportContext): string;
}
