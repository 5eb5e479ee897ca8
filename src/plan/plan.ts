import { createHash } from 'node:crypto';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { expectedConfig, type ExpectedConfig } from '../config/expected.js';
import { bodyHash, canonicalJson, requestBody } from '../config/request.js';
import type { CreateSessionBody, ManifestData } from '../config/types.js';
import type { Session } from '../wire/session.js';
import type { StateEntry } from '../state/entry.js';
import type { StateView } from '../state/store.js';

/**
 * - `create`:    no session is recorded for this manifest and user (or the recorded one is gone);
 * - `replace`:   the request body changed since the recorded session was created. Sessions cannot
 *                be updated in the 13-endpoint API, so a new one is created and recorded instead;
 *                the old one is left as it is (there is no delete in v3);
 * - `unchanged`: the body hash matches the state (and, with refresh, the session still answers).
 */
export type PlanAction = 'create' | 'replace' | 'unchanged';

export type PlanReason = 'not-applied' | 'body-changed' | 'session-missing' | 'up-to-date';

export interface PlanItem {
  name: string;
  /** The manifest file, as the loader received it. */
  file: string;
  user_id: string;
  action: PlanAction;
  reason: PlanReason;
  body: CreateSessionBody;
  body_hash: string;
  expected: ExpectedConfig;
  recorded?: StateEntry;
  /** With refresh: the recorded session as it answered the GET. */
  live?: Session;
  doc: ManifestDocument;
}

export interface Plan {
  items: PlanItem[];
  /** Hash of every manifest's name, user and body hash: a saved plan is valid only while it holds. */
  manifestsHash: string;
  /** Hash of the state file as read ('' when there was none). */
  stateHash: string;
  /** Refresh findings (a recorded session gone, a GET that failed). */
  diagnostics: Diagnostic[];
}

/** The actions for validated manifests against the state. Pure: no network, no file access. */
export function buildPlan(documents: readonly ManifestDocument[], state: Pick<StateView, 'get' | 'hashAtLoad'>): Plan {
  const items = documents.map((doc): PlanItem => {
    const data = doc.data as ManifestData;
    const body = requestBody(data);
    const hash = bodyHash(body);
    const userId = String(data.user_id);
    const recorded = state.get(doc.name, userId);
    const action: PlanAction = recorded === undefined ? 'create' : recorded.body_hash === hash ? 'unchanged' : 'replace';
    const reason: PlanReason = action === 'create' ? 'not-applied' : action === 'replace' ? 'body-changed' : 'up-to-date';
    return { name: doc.name, file: doc.file, user_id: userId, action, reason, body, body_hash: hash, expected: expectedConfig(data), ...(recorded ? { recorded } : {}), doc };
  });
  return { items, manifestsHash: manifestsHash(items), stateHash: state.hashAtLoad, diagnostics: [] };
}

/** The hash a saved plan stores for its manifests: names, users and body hashes, order-independent. */
export function manifestsHash(items: readonly Pick<PlanItem, 'name' | 'user_id' | 'body_hash'>[]): string {
  const rows = items.map((i) => [i.name, i.user_id, i.body_hash]).sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
  return createHash('sha256').update(canonicalJson(rows)).digest('hex');
}

export interface PlanCounts {
  create: number;
  replace: number;
  unchanged: number;
}

export function countActions(items: readonly Pick<PlanItem, 'action'>[]): PlanCounts {
  const c: PlanCounts = { create: 0, replace: 0, unchanged: 0 };
  for (const i of items) c[i.action]++;
  return c;
}

/** Whether anything would change: `plan --detailed-exitcode` exits 4 then. */
export function hasChanges(plan: Plan): boolean {
  return plan.items.some((i) => i.action !== 'unchanged');
}
