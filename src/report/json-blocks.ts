import { countActions } from '../plan/plan.js';
import { behind, type PublicationPlan } from '../plan/publications.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { FleetDeletion } from '../plan/fleet-deletions.js';
import type { FleetDeleteResult } from '../rollout/fleet-delete.js';
import type { Counted, FleetDrift } from '../rollout/fleet-diff.js';
import type { RolloutResult } from '../rollout/types.js';
import { displayPath } from './paths.js';
import type { Report, ReportContext } from './types.js';

/**
 * The plan, apply and diff blocks of the JSON report: the report's blocks with file paths made
 * relative and each manifest's diagnostics in the report's own diagnostic shape. Key order is fixed.
 */
export interface JsonBlocks {
  publications?: unknown;
  plan?: unknown;
  applied?: unknown;
  rollouts?: unknown;
  fleet_deleted?: unknown;
  drift?: unknown;
  fleet_drift?: unknown;
}

export function jsonBlocks<D>(report: Report, ctx: ReportContext, diagnostic: (d: Diagnostic) => D): JsonBlocks {
  const out: JsonBlocks = {};
  const path = (file: string): string => displayPath(file, ctx.cwd);
  if (report.publications !== undefined) out.publications = publicationsJson(report.publications, path);
  if (report.plan !== undefined) out.plan = planJson(report.plan, path);
  // The result as it is: counts, the stop, and the first failures by user and session.
  if (report.rollouts !== undefined) out.rollouts = report.rollouts.map(rolloutResultJson);
  if (report.fleetDeleted !== undefined) out.fleet_deleted = report.fleetDeleted.map(fleetDeletedJson);
  if (report.applied !== undefined) {
    out.applied = {
      tally: report.applied.tally,
      items: report.applied.items.map((i) => ({
        name: i.name,
        file: path(i.file),
        user_id: i.user_id,
        action: i.action,
        outcome: i.outcome,
        session_id: i.session_id ?? null,
        replaced_session: i.replaced_session ?? null,
        mcp_url: i.mcp_url ?? null,
        tool_router_tools: i.tool_router_tools ?? null,
        drifted: i.drifted,
        diagnostics: i.diagnostics.map(diagnostic),
      })),
      ...(report.applied.orphans !== undefined && report.applied.orphans.length > 0 ? { orphans: report.applied.orphans } : {}),
    };
  }
  if (report.drift !== undefined) {
    out.drift = {
      items: report.drift.items.map((i) => ({
        name: i.name,
        file: path(i.file),
        user_id: i.user_id,
        session_id: i.session_id,
        status: i.status,
        differences: i.differences.map((d) => ({
          kind: d.kind,
          path: d.path,
          pointer: d.pointer,
          expected: d.expected ?? null,
          actual: d.actual ?? null,
          ...(d.member !== undefined ? { member: d.member } : {}),
          ...(d.sensitive !== undefined ? { sensitive: d.sensitive } : {}),
        })),
      })),
    };
  }
  if (report.fleetDrift !== undefined) out.fleet_drift = report.fleetDrift.map((f) => fleetDriftJson(f, path));
  return out;
}

/** `diff` of a per-user manifest: counts, and per field the sessions that differ (counted, a few users named). */
function fleetDriftJson(f: FleetDrift, path: (file: string) => string): unknown {
  const counted = (c: Counted) => ({ count: c.count, samples: c.samples });
  return {
    name: f.name,
    file: path(f.file),
    version: f.version ?? null,
    manifest_published: f.manifestPublished,
    sessions: f.sessions,
    in_sync: f.inSync,
    drifted: counted(f.drifted),
    fields: f.fields.map((x) => ({ field: x.field, pointer: x.pointer, count: x.count, samples: x.samples })),
    behind: counted(f.behind),
    missing: counted(f.missing),
    unreadable: { ...counted(f.unreadable), error: f.unreadable.error ?? null },
    interrupted: f.interrupted,
  };
}

/** Per-user manifests: what is (or was, `written`) published, and how many sessions each has. */
function publicationsJson(block: NonNullable<Report['publications']>, path: (file: string) => string): unknown {
  return {
    written: block.written,
    items: block.items.map((p) => ({
      name: p.name,
      file: path(p.file),
      action: p.action,
      reason: p.reason,
      version: p.version,
      current: p.current ?? null,
      api_version: p.api_version,
      body_hash: p.body_hash,
      changes: p.changes.map((c) => ({ field: c.field, op: c.op, old: c.old ?? null, new: c.new ?? null, pointer: c.pointer, range: c.range === undefined ? null : { start: { ...c.range.start }, end: { ...c.range.end } } })),
      sensitive_changed: p.sensitiveChanged,
      templates: p.templates.map((t) => t.pointer),
      body: p.body,
      sessions: p.fleet?.sessions ?? 0,
      behind: behind(p),
      unknown: p.fleet?.unknown ?? 0,
      rollout: rolloutJson(p),
    })),
  };
}

/**
 * A fleet's rollout as counts and groups (each group's change once, a few users as samples); the
 * sessions themselves are listed page by page by `sessionctl state list --name NAME --format json` (then `--after` the last user).
 */
function rolloutJson(p: PublicationPlan): unknown {
  const r = p.rollout;
  if (r === undefined) return null;
  return {
    version: r.version,
    update: r.update,
    replace: r.replace,
    unchanged: r.unchanged,
    groups: r.groups.filter((g) => g.sessions > 0).map((g) => ({
      from: g.from === 0 ? null : g.from,
      sessions: g.sessions,
      action: g.action,
      changes: g.changes.map((c) => ({ field: c.field, op: c.op, old: c.old ?? null, new: c.new ?? null, pointer: c.pointer })),
      unpatchable: g.unpatchable,
      known: g.known,
      sensitive_changed: g.sensitiveChanged,
      samples: g.samples,
    })),
    list: `sessionctl state list --name ${JSON.stringify(p.name)} --format json`,
  };
}

function rolloutResultJson(r: RolloutResult): unknown {
  return {
    ...(r.kind !== undefined ? { kind: r.kind } : {}),
    name: r.name,
    version: r.version,
    total: r.total,
    patched: r.patched,
    already_done: r.alreadyDone,
    failed: r.failed,
    failures: r.failures,
    not_patchable: r.notPatchable,
    raced: r.raced,
    creates_under_way: r.createsUnderWay,
    ...(r.canary !== undefined ? { canary: r.canary } : {}),
    ...(r.stopped !== undefined ? { stopped: r.stopped } : {}),
    untouched: r.untouched,
    max_failures: r.maxFailures,
  };
}

/** What a destroy or prune did to a per-user manifest: counts, the first failures, its publication. */
function fleetDeletedJson(r: FleetDeleteResult): unknown {
  return {
    name: r.name,
    total: r.total,
    deleted: r.deleted,
    already_gone: r.alreadyGone,
    failed: r.failed,
    failures: r.failures,
    raced: r.raced,
    unpublished: r.unpublished,
    unknown: r.unknown,
    creates_under_way: r.createsUnderWay,
    ...(r.stopped !== undefined ? { stopped: r.stopped } : {}),
  };
}

/** A per-user manifest whose sessions all go: counted, never listed. */
function fleetDeletionJson(d: FleetDeletion, path: (file: string) => string): unknown {
  return { name: d.name, file: d.file === null ? null : path(d.file), action: 'delete', reason: d.reason, sessions: d.sessions, unknown: d.unknown, samples: d.samples, published: d.published };
}

/** The plan block: counts, then each item and deletion with its action. */
function planJson(plan: NonNullable<Report['plan']>, path: (file: string) => string): unknown {
  return {
    counts: countActions(plan),
    items: plan.items.map((i) => ({
      name: i.name,
      file: path(i.file),
      user_id: i.user_id,
      action: i.action,
      reason: i.reason,
      session_id: i.recorded?.session_id ?? null,
      config_version: i.live?.config_version ?? i.recorded?.config_version ?? null,
      blocked: i.blocked,
      changes: i.changes.map((c) => ({
        field: c.field,
        op: c.op,
        source: c.source,
        old: c.old ?? null,
        new: c.new ?? null,
        ...(c.members !== undefined ? { members: c.members } : {}),
        pointer: c.pointer,
        range: c.range === undefined ? null : { start: { ...c.range.start }, end: { ...c.range.end } },
      })),
      patch: i.patch ?? null,
      replaces: i.replaces === undefined ? null : { user_id: i.replaces.user_id, session_id: i.replaces.session_id },
      ...(i.unpatchable !== undefined ? { unpatchable: { fields: i.unpatchable.fields, api_version: i.unpatchable.apiVersion } } : {}),
      cleanup: i.cleanup,
      body_hash: i.body_hash,
      body: i.body,
      expected: { config: i.expected.config, tool_router_tools: i.expected.toolRouterTools },
    })),
    // With an action as every item has, so that a reader that looks for actions cannot miss a delete.
    deletions: plan.deletions.map((d) => ({ name: d.name, file: d.file, user_id: d.user_id, action: 'delete', reason: d.reason, session_id: d.session_id })),
    prunable: plan.prunable,
    ...(plan.orphans !== undefined && plan.orphans.length > 0 ? { orphans: plan.orphans } : {}),
    ...(plan.fleetDeletions !== undefined ? { fleet_deletions: plan.fleetDeletions.map((d) => fleetDeletionJson(d, path)) } : {}),
    ...(plan.fleetOrphans !== undefined ? { fleet_orphans: plan.fleetOrphans.map((d) => fleetDeletionJson(d, path)) } : {}),
  };
}
