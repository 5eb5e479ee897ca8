import { expectedConfig, type ExpectedConfig } from '../config/expected.js';
import { requestBody } from '../config/request.js';
import type { ManifestData } from '../config/types.js';
import type { PublicationPlan } from '../plan/publications.js';
import { patchBody } from '../plan/patch-body.js';
import type { RolloutGroup } from '../plan/rollout-plan.js';
import type { Json } from '../wire/json.js';
import type { UpdateSessionRequest } from '../wire/request.js';

type Body = { [key: string]: Json };

/** What a rollout sends to, and expects of, the sessions of one version of a per-user manifest. */
export interface GroupRequest {
  from: number;
  /** The PATCH, without the version guard (each session's own is added). */
  patch: UpdateSessionRequest;
}

/**
 * The PATCH for each group of a rollout: only the fields that differ from the body the group was
 * given (maps and filters whole, a field no longer declared as null), from the values the pipeline
 * holds (a sensitive value is sent as itself, never as its template). A group whose body is not
 * kept gets every declared field. A field that holds a sensitive value is sent whenever one
 * changed: its template reads the same before and after.
 */
export function groupRequests(plan: Pick<PublicationPlan, 'doc' | 'body' | 'templates' | 'api_version'>, groups: readonly Pick<RolloutGroup, 'from' | 'before' | 'sensitiveChanged'>[]): GroupRequest[] {
  const values = requestBody(plan.doc.data as ManifestData) as unknown as Body;
  // The top-level fields that hold a template (a per-user manifest's user_id is the placeholder, never one).
  const templated = new Set(plan.templates.map((t) => t.pointer.split('/')[1]!));
  return groups.map((g) => {
    const patch = patchBody(g.before, plan.body, values, plan.api_version) as Record<string, unknown>;
    if (g.sensitiveChanged) for (const key of templated) patch[key] = values[key];
    return { from: g.from, patch: patch as UpdateSessionRequest };
  });
}

/**
 * The config every session of the manifest must have once rolled out, for one user: the manifest's
 * expected config (built once, not once per session of a fleet) with that user's id where the
 * placeholder is, since the drift check compares the user id too.
 */
export function expectedFor(plan: Pick<PublicationPlan, 'doc'>): (userId: string) => ExpectedConfig {
  const base = expectedConfig(plan.doc.data as ManifestData);
  return (userId) => ({ ...base, config: { ...base.config, user_id: userId } });
}
