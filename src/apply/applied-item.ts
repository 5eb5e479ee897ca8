import type { DriftItem } from '../config/drift.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { PlanAction } from '../plan/plan.js';

/**
 * - `created` / `updated` / `replaced` / `deleted`: done, and the state records it;
 * - `unchanged`: nothing was sent; the recorded session stands;
 * - `failed`: the service refused or failed the request, the recorded session could not be read
 *   (nothing was sent), or the state could not record what was done; the state keeps what it had;
 * - `outcome-unknown`: a create was sent but its outcome is unknown (timeout, reset, a malformed
 *   answer, an interruption): the state records it as such, and no later run creates it again
 *   without being told to;
 * - `skipped`: nothing was sent (a create of unknown outcome stands in the way, or the run was
 *   interrupted first).
 */
export type ApplyOutcome = 'created' | 'updated' | 'replaced' | 'deleted' | 'unchanged' | 'failed' | 'outcome-unknown' | 'skipped';

/** What apply did for one manifest and user, or one deletion. */
export interface AppliedItem {
  name: string;
  file: string;
  user_id: string;
  action: PlanAction | 'delete';
  outcome: ApplyOutcome;
  session_id?: string;
  mcp_url?: string;
  tool_router_tools?: string[];
  /** A replace: the session it replaced (deleted, unless `--keep-replaced`). */
  replaced_session?: string;
  /** True when the returned (or, for unchanged, the refreshed) config differs from the declared one. */
  drifted: boolean;
  /** Every classified difference, `defaulted` included. */
  drift: DriftItem[];
  /** This manifest's findings: drift, a failed or ambiguous request. */
  diagnostics: Diagnostic[];
  /** Unified diff of declared against effective config when it drifted ('' otherwise). */
  diff: string;
}

