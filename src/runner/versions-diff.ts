import { expectedConfig } from '../config/expected.js';
import { digestSensitive, storedSensitiveAt } from '../config/sensitive-fields.js';
import type { ManifestData } from '../config/types.js';
import { unifiedVersionsDiff } from '../config/unified.js';
import { fieldChanges } from '../plan/field-changes.js';
import type { StateEntry } from '../state/entry.js';
import type { ValueMasker } from '../util/sensitive.js';
import type { Json } from '../wire/json.js';
import type { ConfigVersion } from '../wire/session.js';
import type { VersionChange, VersionsDiff } from '../report/operate/history.js';
import { maskRecordedConfig } from './mask-session.js';

/**
 * The difference of two versions of a recorded session. The fields apply recorded as sensitive
 * are compared by digest, so a changed secret is a change (`changed (sensitive: HOOK_TOKEN)`)
 * even though both sides show the same mask; nothing of either value is kept.
 */
export function versionsDiff(a: ConfigVersion, b: ConfigVersion, entry: StateEntry | undefined, masker: ValueMasker): VersionsDiff {
  const body = entry?.body ?? null;
  const digested = (config: unknown): unknown => (body === null ? config : digestSensitive(expectedConfig(body as ManifestData), config, storedSensitiveAt(body)));
  const changes = fieldChanges(digested(a.config) as Json, digested(b.config) as Json).map(({ field, op, old, new: now, members }): VersionChange => masker.json({ field, op, ...(old !== undefined ? { old } : {}), ...(now !== undefined ? { new: now } : {}), ...(members !== undefined ? { members } : {}) }));
  const unified = unifiedVersionsDiff(maskRecordedConfig(a.config, entry, masker), maskRecordedConfig(b.config, entry, masker), {
    before: `version ${a.version} (${a.created_at})`,
    after: `version ${b.version} (${b.created_at})`,
  });
  return { from: { version: a.version, created_at: a.created_at }, to: { version: b.version, created_at: b.created_at }, changes, unified };
}
