import type { ApiError } from '../client/errors.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { PlanItem } from '../plan/plan.js';
import { refused } from './refused.js';

/** A PATCH that failed: a conflict (409) names both versions; anything else is a refusal. */
export function updateFailed(item: PlanItem, err: ApiError): Diagnostic {
  if (err.kind !== 'conflict') return refused(item, err, 'update');
  if (item.pinnedVersion !== undefined) return movedAfterReview(item, err);
  const expected = err.expected_config_version ?? item.live?.config_version ?? item.recorded?.config_version;
  const current = err.current_config_version;
  const d = atDocument(
    item.doc,
    'apply/conflict',
    'error',
    `${item.name}: session ${item.recorded!.session_id} changed while it was being updated: it is at config version ${current ?? 'unknown'}, sessionctl read version ${expected ?? 'unknown'}; nothing was overwritten`,
  );
  d.hint = 'someone else changed the session; run `sessionctl plan --refresh` to see its live config, then apply again (apply reads the current version first)';
  return d;
}

/**
 * An update not sent: the version the session was read at (`read`, as the service answered it or
 * as the state records it) is not one a PATCH can carry. Shown as JSON, so that a string or an
 * escape sequence from the service reads as what it is, and cut short.
 */
export function versionInvalid(item: PlanItem, read: unknown, answered: boolean): Diagnostic {
  const shown = JSON.stringify(read);
  const d = atDocument(
    item.doc,
    'apply/version-invalid',
    'error',
    `${item.name}: session ${item.recorded!.session_id} was not updated: ${answered ? 'the service answered' : 'the state records'} config version ${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}, which is not a whole number from 0 to 2^53; a PATCH without the version the session was read at could overwrite a change made since`,
  );
  d.hint = 'check what answers at the base URL (a proxy, a test server) or the state entry, then apply again; the session and the state keep what they had';
  return d;
}

/** The 409 of a PATCH that carried a saved plan's version: the session moved after the review. */
function movedAfterReview(item: PlanItem, err: ApiError): Diagnostic {
  const now = err.current_config_version;
  const d = atDocument(
    item.doc,
    'plan/stale',
    'error',
    `the saved plan is stale: ${item.name}: session ${item.recorded!.session_id} is at config version ${now ?? 'unknown'} now; the plan was reviewed with it at version ${item.pinnedVersion}; nothing was overwritten`,
  );
  d.hint = 'someone changed the session since the review: run `sessionctl plan --refresh --out` again, review what it would now do, and apply the new plan';
  return d;
}
