import type { ManifestDocument } from '../manifest/types.js';
import { versionKey, type FleetCount, type Publication } from '../state/fleet.js';
import type { StateView } from '../state/store.js';
import type { Json } from '../wire/json.js';
import { fieldChanges, locateChanges, type FieldChange } from './field-changes.js';
import { changedUnpatchable } from './patch-body.js';

/**
 * The sessions of one version of a per-user manifest, and what the rollout does to them: the
 * change is the same for every session of the group, so it is planned (and shown) once.
 */
export interface RolloutGroup {
  /** The version the sessions were created from or last rolled out to (0: unknown). */
  from: number;
  sessions: number;
  /** `update`: a PATCH in place; `replace`: the change is one PATCH cannot carry. */
  action: 'update' | 'replace';
  /** Field by field from that version's body; empty when its body is not kept (`known` false). */
  changes: FieldChange[];
  /** Why a replace: the fields PATCH cannot change. */
  unpatchable: string[];
  /** Whether the body of that version is kept: without it, the whole declared config is sent. */
  known: boolean;
  /** A sensitive value changed (its template reads the same, its digest does not). */
  sensitiveChanged: boolean;
  /** The body the sessions were given (the publication as kept), for the PATCH. */
  before: { [key: string]: Json } | null;
  /** The first few users of the group, by id. */
  samples: readonly string[];
}

/** What the rollout of a per-user manifest does to its recorded sessions: counted, never listed. */
export interface RolloutPlan {
  /** The version every session ends on. */
  version: number;
  update: number;
  replace: number;
  unchanged: number;
  groups: RolloutGroup[];
}

type Target = Pick<Publication, 'body' | 'body_hash' | 'api_version'> & { version: number };

/**
 * The rollout of a per-user manifest to the version `target` (the one this run leaves published):
 * every group of sessions on an older version, with the fields that change for it and whether PATCH
 * can carry them. undefined when the manifest has no recorded session.
 */
export function planRollout(doc: ManifestDocument, target: Target, state: Pick<StateView, 'published' | 'publishedVersions'>, fleet: FleetCount | undefined): RolloutPlan | undefined {
  const replaced = state.published?.get(doc.name);
  const racing = replaced !== undefined && replaced.version !== target.version ? replaced.version : undefined;
  if ((fleet === undefined || fleet.sessions === 0) && racing === undefined) return undefined;
  const out: RolloutPlan = { version: target.version, update: 0, replace: 0, unchanged: 0, groups: [] };
  const byVersion = new Map(fleet?.byVersion ?? []);
  // The version this run replaces gets a group even with no session yet: an ensure that read it
  // just before the publish records a session of it, which the rollout picks up before it ends.
  if (racing !== undefined && !byVersion.has(racing)) byVersion.set(racing, 0);
  for (const [from, sessions] of [...byVersion].sort((a, b) => b[0] - a[0])) {
    if (from === target.version) {
      out.unchanged += sessions;
      continue;
    }
    const group = groupOf(doc, target, bodyOf(doc.name, from, state), from, sessions, fleet?.samples?.get(from) ?? []);
    out[group.action] += sessions;
    out.groups.push(group);
  }
  return out;
}

/** The publication a version was, if the state keeps it. */
function bodyOf(name: string, version: number, state: Pick<StateView, 'published' | 'publishedVersions'>): Publication | undefined {
  const current = state.published?.get(name);
  if (current?.version === version) return current;
  return state.publishedVersions?.get(versionKey(name, version));
}

function groupOf(doc: ManifestDocument, target: Target, before: Publication | undefined, from: number, sessions: number, samples: readonly string[]): RolloutGroup {
  const base = { from, sessions, samples: [...samples] };
  if (before === undefined) return { ...base, action: 'update', changes: [], unpatchable: [], known: false, sensitiveChanged: false, before: null };
  const changes = locateChanges(doc, fieldChanges(before.body, target.body));
  const unpatchable = changedUnpatchable(before.body, target.body, target.api_version);
  return {
    ...base,
    action: unpatchable.length > 0 ? 'replace' : 'update',
    changes,
    unpatchable,
    known: true,
    sensitiveChanged: changes.length === 0 && before.body_hash !== target.body_hash,
    before: before.body,
  };
}

/** Whether apply has a rollout to run: sessions behind, or a version replaced that a racing ensure may still create from. */
export function hasRollout(rollout: RolloutPlan | undefined): rollout is RolloutPlan {
  return rollout !== undefined && rollout.groups.length > 0;
}

/** Sessions the rollout changes. */
export function rolloutWork(rollout: RolloutPlan | undefined): number {
  return rollout === undefined ? 0 : rollout.update + rollout.replace;
}
