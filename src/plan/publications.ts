import { bodyHash, requestBody } from '../config/request.js';
import { publishedBody, type PublishedTemplate } from '../config/published-body.js';
import { storedBody } from '../config/sensitive-fields.js';
import type { ManifestData } from '../config/types.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { FleetCount, Publication } from '../state/fleet.js';
import type { StateView } from '../state/store.js';
import type { Json } from '../wire/json.js';
import { fieldChanges, locateChanges, type FieldChange } from './field-changes.js';
import { planRollout, type RolloutPlan } from './rollout-plan.js';

/**
 * What apply does for a per-user manifest: publish it (a first version, or a new one when its
 * body or API version changed), or nothing. It never creates a session itself: the application's
 * `ensure` creates each end user's from the publication.
 */
export interface PublicationPlan {
  name: string;
  /** The manifest file, as the loader received it. */
  file: string;
  doc: ManifestDocument;
  action: 'publish' | 'unchanged';
  reason: 'first' | 'changed' | 'api-version-changed' | 'up-to-date';
  /** The version published now, if any. */
  current?: number;
  /** The version this run leaves published (current + 1 when it publishes). */
  version: number;
  /** What is published: sensitive values as their `${VAR}` templates. */
  body: { [key: string]: Json };
  templates: PublishedTemplate[];
  body_hash: string;
  api_version: Publication['api_version'];
  /** Field by field, against the version published now. */
  changes: FieldChange[];
  /** A sensitive value changed (its template reads the same; its digest does not). */
  sensitiveChanged: boolean;
  /** The sessions `ensure` created, by the version they were created from. */
  fleet: FleetCount | undefined;
  /** What apply does to the sessions on an older version than `version`; undefined without sessions. */
  rollout: RolloutPlan | undefined;
}

/** The publication plan of one per-user manifest against what the state has published. */
export function planPublication(doc: ManifestDocument, state: Pick<StateView, 'published' | 'fleet' | 'publishedVersions'>, apiVersion: Publication['api_version']): PublicationPlan {
  const plan = publicationOnly(doc, state, apiVersion);
  return { ...plan, rollout: planRollout(doc, plan, state, plan.fleet) };
}

function publicationOnly(doc: ManifestDocument, state: Pick<StateView, 'published' | 'fleet'>, apiVersion: Publication['api_version']): Omit<PublicationPlan, 'rollout'> {
  const request = requestBody(doc.data as ManifestData) as unknown as { [key: string]: Json };
  const { body, templates } = publishedBody(request, doc);
  // Hashed in the stored form, as plan hashes a session's body: a changed secret is a new version.
  const hash = bodyHash(storedBody(request, doc));
  const current = state.published?.get(doc.name);
  const base = { name: doc.name, file: doc.file, doc, body, templates, body_hash: hash, api_version: apiVersion, fleet: state.fleet?.get(doc.name) };
  if (current === undefined) return { ...base, action: 'publish', reason: 'first', version: 1, changes: [], sensitiveChanged: false };
  const changes = locateChanges(doc, fieldChanges(current.body, body));
  const same = current.body_hash === hash;
  const reason = !same ? 'changed' : current.api_version !== apiVersion ? 'api-version-changed' : 'up-to-date';
  return {
    ...base,
    action: reason === 'up-to-date' ? 'unchanged' : 'publish',
    reason,
    current: current.version,
    version: reason === 'up-to-date' ? current.version : current.version + 1,
    changes,
    sensitiveChanged: !same && changes.length === 0,
  };
}

/** The publication a plan writes, stamped with the time and the file relative to the run's folder. */
export function publicationOf(plan: PublicationPlan, file: string | null, now: Date): Publication {
  return { name: plan.name, version: plan.version, body: plan.body, templates: plan.templates, body_hash: plan.body_hash, api_version: plan.api_version, file, published_at: now.toISOString() };
}

/** Sessions created from a version older than the one left published: the rollout's work. */
export function behind(plan: Pick<PublicationPlan, 'fleet' | 'version'>): number {
  let n = 0;
  for (const [version, count] of plan.fleet?.byVersion ?? []) if (version < plan.version) n += count;
  return n;
}
