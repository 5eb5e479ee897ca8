import { sortDiagnostics, type Diagnostic, type SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import { readDirectives, type SuppressionDirective } from '../manifest/directives.js';
import { applySeverities, type SeverityControls } from './severity.js';
import { applySuppressions } from './suppressions.js';

export interface ControlOptions {
  /** The project's severity settings (`rules`, `overrides` of `sessionctl.yaml`); none without a config. */
  severities?: SeverityControls;
  /** The suppression comments of each file, when already read (bulk runs read them on worker threads). */
  directives?: ReadonlyMap<string, readonly SuppressionDirective[]>;
  /** Otherwise the source text of each file, to read them from. */
  sources?: ReadonlyMap<string, string>;
  /** The codes of the project's policies (`policy/<id>`), which comments may name. */
  policyCodes?: Iterable<string>;
  /** `inline_policy_suppression: false`: no comment silences a policy finding. */
  policiesLocked?: boolean;
}

export interface ControlledDiagnostics {
  /** What the run reports, sorted: the findings at their project severity, minus `off` and suppressed ones, plus findings about suppression comments. */
  diagnostics: Diagnostic[];
  /** Findings that a comment silenced, sorted, each with its comment and reason. */
  suppressed: SuppressedDiagnostic[];
}

/**
 * The project's say over a run's findings, applied once at the end of a run (validate, and plan,
 * apply and diff before they act): first the severities of `sessionctl.yaml` (`rules`, then the
 * matching `overrides`, later ones winning; `off` drops a finding), then the inline suppression
 * comments of each file. Comments that suppress nothing, name no real code or give no reason
 * become findings themselves, at the project's severity for those codes.
 */
export function applyDiagnosticControls(diagnostics: readonly Diagnostic[], options: ControlOptions = {}): ControlledDiagnostics {
  // A file the loader refused (too large, too many tokens, too deep) is not parsed again here.
  const refused = new Set(diagnostics.filter((d) => d.code.startsWith('input/')).map((d) => d.file));
  const directives = options.directives ?? directivesOf(new Map([...(options.sources ?? [])].filter(([file]) => !refused.has(file))));
  const severe = applySeverities(diagnostics, options.severities);
  const result = applySuppressions(severe, directives, { policies: new Set(options.policyCodes ?? []), ...(options.policiesLocked === true ? { policiesLocked: true } : {}) });
  return {
    diagnostics: sortDiagnostics([...result.kept, ...applySeverities(result.directiveFindings, options.severities)]),
    suppressed: sortDiagnostics(result.suppressed) as SuppressedDiagnostic[],
  };
}

/** The suppression comments of every source that has any. */
export function directivesOf(sources: ReadonlyMap<string, string>): Map<string, SuppressionDirective[]> {
  const out = new Map<string, SuppressionDirective[]>();
  for (const [file, text] of sources) {
    const found = readDirectives(text);
    if (found.length > 0) out.set(file, found);
  }
  return out;
}
