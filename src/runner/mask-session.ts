import { expectedConfig } from '../config/expected.js';
import { maskConfig, recoveredTemplate, storedSensitiveAt } from '../config/sensitive-fields.js';
import { valueAtPointer } from '../util/json-pointer.js';
import type { ManifestData } from '../config/types.js';
import { withSecretInside } from '../manifest/sensitive.js';
import type { StateEntry } from '../state/entry.js';
import { MIN_TEXT_MASK, storedLabels, type ValueMasker } from '../util/sensitive.js';
import { isSecretName } from '../manifest/secret-shapes.js';
import type { Session } from '../wire/session.js';

/**
 * The state's entry for a session (written by apply) names the variables its sensitive fields
 * came from: their current values go into the masker, before the session is read.
 */
export function registerRecordedSensitive(entry: StateEntry | undefined, masker: ValueMasker, env: Readonly<Record<string, string | undefined>>): void {
  for (const label of labelsIn(entry?.body ?? null)) {
    const value = env[label];
    if (value !== undefined) masker.addAll(withSecretInside(value, [label]));
  }
  registerSecretEnvironment(masker, env);
}

/**
 * The values of environment variables named like secrets (`*_TOKEN`, `*_SECRET`, `*PASSWORD*`,
 * as `isSecretName` reads names), whether or not a manifest or the state names them: a session
 * made elsewhere, or before its manifest declared the value, may hold one, and `get` or `export`
 * would print it. Values under the free-text minimum are left out: a `DEBUG_TOKEN=1` would mask
 * every `1` of the answer.
 */
export function registerSecretEnvironment(masker: ValueMasker, env: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_TEXT_MASK && isSecretName(name)) masker.add(value, name);
  }
}

/**
 * A session's answer as `get` may show it: the fields its entry recorded as sensitive are masked
 * whole, whatever the service holds there now, and every value the masker holds (the API key,
 * the values declared or recorded as sensitive) is masked wherever else it shows.
 */
export function maskRecordedSession(session: Session, entry: StateEntry | undefined, masker: ValueMasker, options: TemplateOptions = {}): Session {
  return { ...masker.json(session), config: maskRecordedConfig(session.config, entry, masker, options) };
}

export interface TemplateOptions {
  /**
   * The variables' values now: a sensitive field that still holds exactly what was applied, made
   * of a literal and variables (`https://hooks.example.com/cb?token=${HOOK_TOKEN}`), shows its
   * literal text with each variable masked, so that `export` can write the template back.
   */
  templates?: Readonly<Record<string, string | undefined>>;
}

/** A config the service holds (now, or in a version of its history), masked as `maskRecordedSession` masks a session's. */
export function maskRecordedConfig<T>(config: T, entry: StateEntry | undefined, masker: ValueMasker, options: TemplateOptions = {}): T {
  const body = entry?.body ?? null;
  if (body === null) return masker.json(config);
  const values = options.templates;
  const template = values === undefined ? undefined : (pointer: string, held: string): string | undefined => recoveredTemplate(valueAtPointer(body, pointer), held, values);
  return maskConfig(expectedConfig(body as ManifestData), config, storedSensitiveAt(body), masker, new Set(), template) as T;
}

function labelsIn(value: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    const labels = storedLabels(v);
    if (labels !== undefined) for (const l of labels) out.add(l);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return out;
}
