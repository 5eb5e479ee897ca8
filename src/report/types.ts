import type { AppliedItem } from '../apply/apply.js';
import type { ApplyTally } from '../apply/tally.js';
import type { CodeInfo } from '../diagnostics/codes.js';
import type { ReportBase } from '../diagnostics/report-base.js';
import type { SessionDrift } from '../plan/drift-check.js';
import type { Orphan, Plan } from '../plan/plan.js';
import type { PublicationPlan } from '../plan/publications.js';
import type { FleetDeleteResult } from '../rollout/fleet-delete.js';
import type { FleetDrift } from '../rollout/fleet-diff.js';
import type { RolloutResult } from '../rollout/types.js';

export type { PolicyRule, ReportSummary } from '../diagnostics/report-base.js';

/**
 * One envelope for every command. Reporters render it and nothing else; command-specific parts
 * (plan, apply, drift) are optional blocks holding the domain's own results, which the renderers
 * pick from. Every renderer must work on a report that has diagnostics only.
 */
export interface Report extends ReportBase {
  /** `plan` (and `apply --dry-run`, `destroy`): the action per manifest with its field changes, and the deletions. */
  plan?: Pick<Plan, 'items' | 'deletions' | 'prunable' | 'orphans' | 'fleetDeletions' | 'fleetOrphans'>;
  /** `apply`: what happened per manifest, and the tally; the recorded sessions left without a manifest (no `--prune`). */
  applied?: { items: readonly AppliedItem[]; tally: ApplyTally; orphans?: readonly Orphan[] };
  /** `diff`: the drift status per manifest. */
  drift?: { items: readonly SessionDrift[] };
  /** Per-user manifests: what plan would publish, or what apply published (`written`). */
  publications?: { items: readonly PublicationPlan[]; written: boolean };
  /** What apply's rollouts of per-user manifests did, one per manifest rolled out. */
  rollouts?: readonly RolloutResult[];
  /** `destroy` and `apply --prune` of per-user manifests: per manifest, the sessions deleted and its publication removed. */
  fleetDeleted?: readonly FleetDeleteResult[];
  /** `diff` of per-user manifests: per manifest, its sessions counted per field that differs. */
  fleetDrift?: readonly FleetDrift[];
}

export interface ReportContext {
  /** Paths are shown relative to this folder, with forward slashes. */
  cwd: string;
  /**
   * The repository's root, when the run is in one: GitHub annotations and SARIF name files
   * relative to it (what the checks API and code scanning resolve), whatever the working directory.
   */
  root?: string;
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
  /**
   * The same text as `render`, in pieces that each end at a line end, for formats whose report can
   * be too big to hold twice (the JSON of a 100,000-file run): outputs write these one by one. A
   * piece ends at a line end so that redaction, which works on each write, sees every secret
   * whole: a format with pieces escapes the line breaks inside its strings (JSON does), so no
   * value it prints spans a line end.
   */
  pieces?(report: Report, ctx: ReportContext): Iterable<string>;
}
