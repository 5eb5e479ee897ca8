import type { ApplyResult, ApplyTally, ApplyOutcome } from '../apply/apply.js';
import { formatTally } from '../apply/apply.js';
import type { DriftItem } from '../config/drift.js';
import type { Json } from '../wire/json.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { countActions, type Plan, type PlanAction, type PlanCounts, type PlanReason } from './plan.js';

/**
 * The command-specific blocks of a `Report` for plan, apply and diff. Plain data: reporters
 * render them, paths are as the loader received them (reporters make them relative).
 */

export interface PlanBlockItem {
  name: string;
  file: string;
  user_id: string;
  action: PlanAction;
  reason: PlanReason;
  /** The recorded session, when there is one. */
  session_id: string | null;
  body: Record<string, unknown>;
  body_hash: string;
  expected: { config: { [key: string]: Json }; tool_router_tools: string[] };
}

export interface PlanBlock {
  items: PlanBlockItem[];
  counts: PlanCounts;
}

export interface AppliedBlockItem {
  name: string;
  file: string;
  user_id: string;
  action: PlanAction;
  outcome: ApplyOutcome;
  session_id: string | null;
  mcp_url: string | null;
  tool_router_tools: string[] | null;
  drifted: boolean;
  /** This manifest's findings (also in the report's `diagnostics`). */
  diagnostics: Diagnostic[];
  /** Unified diff of expected against effective, when it drifted ('' otherwise). */
  diff: string;
}

export interface AppliedBlock {
  items: AppliedBlockItem[];
  tally: ApplyTally;
  /** `3 created, 5 unchanged, 1 drifted, 0 failed`. */
  line: string;
}

/**
 * - `in-sync`:     the session answers with what is declared (`defaulted` differences aside);
 * - `drifted`:     `changed` or `dropped` differences (or `added` ones with `--strict`);
 * - `not-applied`: no session is recorded for the manifest;
 * - `missing`:     the recorded session answers 404;
 * - `unreadable`:  the GET failed otherwise.
 */
export type DriftStatus = 'in-sync' | 'drifted' | 'not-applied' | 'missing' | 'unreadable';

export interface DriftBlockItem {
  name: string;
  file: string;
  user_id: string;
  session_id: string | null;
  status: DriftStatus;
  /** Every classified difference, `defaulted` included. */
  differences: DriftItem[];
  diff: string;
}

export interface DriftBlock {
  items: DriftBlockItem[];
}

export function planBlock(plan: Plan): PlanBlock {
  return {
    items: plan.items.map((i) => ({
      name: i.name,
      file: i.file,
      user_id: i.user_id,
      action: i.action,
      reason: i.reason,
      session_id: i.recorded?.session_id ?? null,
      body: i.body,
      body_hash: i.body_hash,
      expected: { config: i.expected.config, tool_router_tools: i.expected.toolRouterTools },
    })),
    counts: countActions(plan.items),
  };
}

export function appliedBlock(result: ApplyResult, diffs: ReadonlyMap<number, string> = new Map()): AppliedBlock {
  return {
    items: result.items.map((i, n) => ({
      name: i.name,
      file: i.file,
      user_id: i.user_id,
      action: i.action,
      outcome: i.outcome,
      session_id: i.session_id ?? null,
      mcp_url: i.mcp_url ?? null,
      tool_router_tools: i.tool_router_tools ?? null,
      drifted: i.drifted,
      diagnostics: i.diagnostics,
      diff: diffs.get(n) ?? '',
    })),
    tally: result.tally,
    line: formatTally(result.tally),
  };
}
