import type { ManifestDocument } from '../manifest/types.js';
import { sensitiveMark, storedForm, storedLabels, type ValueMasker } from '../util/sensitive.js';
import type { Json } from '../wire/json.js';
import type { ExpectedConfig } from './expected.js';
import { joinPointer, splitPointer, valueAtSegments } from '../util/json-pointer.js';
import { isPlainObject } from '../util/plain-object.js';
import type { ManifestData } from './types.js';

/** The labels of the sensitive value at a pointer (a manifest's or a body's), or undefined. */
export type SensitiveAt = (pointer: string) => readonly string[] | undefined;

/** Where a document holds sensitive values, by manifest pointer. */
export function sensitiveAt(doc: Pick<ManifestDocument, 'sensitive'>): SensitiveAt {
  const map = doc.sensitive;
  return (pointer) => map?.get(pointer)?.variables;
}

/**
 * A request body as the state and saved plans keep it: every sensitive value in its stored form
 * (`(sensitive: HOOK_TOKEN) sha256:...`), so that a later plan sees a changed secret by its
 * digest, without the secret ever being written down. Other values are kept as they are.
 */
export function storedBody<T>(body: T, doc: Pick<ManifestDocument, 'sensitive'>): T {
  if (doc.sensitive === undefined) return body;
  const byValue = new Map([...doc.sensitive.values()].map((s) => [s.value, s] as const));
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const hit = byValue.get(value);
      return hit === undefined ? value : storedForm(value, hit.variables);
    }
    if (Array.isArray(value)) return value.map(walk);
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(body) as T;
}

/**
 * `value` with each stored form of the documents' sensitive values replaced by the value itself:
 * what `--show-sensitive` shows of a plan's changes (the old side stays a mask: the state holds
 * only its digest).
 */
export function revealStored<T>(value: T, docs: ReadonlyArray<Pick<ManifestDocument, 'sensitive'>>): T {
  const byStored = new Map<string, string>();
  for (const doc of docs) for (const s of doc.sensitive?.values() ?? []) byStored.set(storedForm(s.value, s.variables), s.value);
  if (byStored.size === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return byStored.get(v) ?? v;
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The user id a manifest's session is recorded under: as declared, or its stored form when it is sensitive. */
export function recordedUserId(doc: Pick<ManifestDocument, 'data' | 'sensitive'>): string {
  const userId = String((doc.data as ManifestData).user_id);
  const sensitive = doc.sensitive?.get('/user_id');
  return sensitive === undefined ? userId : storedForm(userId, sensitive.variables);
}

/** Where a stored body holds stored forms, by body pointer: a session recorded by apply says which of its fields are sensitive. */
export function storedSensitiveAt(body: unknown): SensitiveAt {
  const map = new Map<string, string[]>();
  const walk = (value: unknown, pointer: string): void => {
    const labels = storedLabels(value);
    if (labels !== undefined) map.set(pointer, labels);
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`));
    else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walk(v, joinPointer(pointer, k));
  };
  walk(body, '');
  return (pointer) => map.get(pointer);
}

/**
 * A session's `config` with its sensitive fields masked: a field the manifest declares from a
 * sensitive value is masked whole whatever the service holds there (a changed or foreign value is
 * as secret as the declared one), and every known sensitive value is masked wherever else it shows.
 * Fields at the config pointers in `changed` say so after their mask, so a diff still shows them.
 */
export function maskConfig(expected: ExpectedConfig, config: unknown, at: SensitiveAt, masker: ValueMasker, changed: ReadonlySet<string> = new Set(), template?: FieldTemplate): unknown {
  let out = masker.json(config);
  for (const [path, origin] of expected.origins) {
    if (!origin.declared) continue;
    const labels = at(origin.pointer);
    if (labels === undefined) continue;
    const segments = splitPointer(path);
    const held = template === undefined ? undefined : valueAtSegments(config, segments);
    const shown = typeof held === 'string' ? template!(origin.pointer, held) : undefined;
    out = replaceAt(out, segments, shown !== undefined ? masker.text(shown) : `${sensitiveMark(labels)}${changed.has(path) ? ' (changed)' : ''}`);
  }
  return out;
}

/**
 * A config with each declared sensitive field in its stored form (mask and digest of the value the
 * service holds there): two such configs compare equal where the values are equal, and differ
 * where a secret changed, without either value being kept. Other fields are as they are (mask
 * them before showing).
 */
export function digestSensitive(expected: ExpectedConfig, config: unknown, at: SensitiveAt): unknown {
  let out = config;
  for (const [path, origin] of expected.origins) {
    if (!origin.declared) continue;
    const labels = at(origin.pointer);
    if (labels === undefined) continue;
    const segments = splitPointer(path);
    const held = valueAtSegments(config, segments);
    out = replaceAt(out, segments, typeof held === 'string' ? storedForm(held, labels) : sensitiveMark(labels));
  }
  return out;
}

/**
 * For a declared sensitive field (by manifest pointer) and the value the service holds there,
 * the text to show instead of the whole mask (the literal parts as they are, each variable's value
 * as its mask), or undefined to mask it whole.
 */
export type FieldTemplate = (pointer: string, held: string) => string | undefined;

/**
 * The declared text of a sensitive field, recovered from the value the service holds: each
 * variable's value in it becomes its mask, `https://hooks.example.com/cb?token=(sensitive: HOOK_TOKEN)`.
 * Only when the held value is exactly the one recorded (its digest is the stored form's) and every
 * variable it was made from has its value in it: then what is left is the manifest's own literal
 * text. Otherwise (a changed or foreign value, a variable unset or set to another value) undefined:
 * nothing of it may show.
 */
export function recoveredTemplate(stored: unknown, held: string, values: Readonly<Record<string, string | undefined>>): string | undefined {
  const labels = storedLabels(stored);
  if (labels === undefined || storedForm(held, labels) !== stored) return undefined;
  const parts = labels.map((label) => ({ label, value: values[label] ?? '' }));
  if (parts.some((p) => p.value === '' || !held.includes(p.value))) return undefined;
  let out = held;
  // Longest first, so a value inside another variable's value is not cut out of it.
  for (const p of parts.sort((a, b) => b.value.length - a.value.length)) out = out.split(p.value).join(sensitiveMark([p.label]));
  return out === held ? undefined : out;
}
/** A copy of `value` with the value at `segments` replaced, when there is one there. */
function replaceAt(value: unknown, segments: readonly string[], replacement: Json): unknown {
  if (segments.length === 0) return value === undefined ? value : replacement;
  const [head, ...rest] = segments as [string, ...string[]];
  if (isPlainObject(value) && Object.prototype.hasOwnProperty.call(value, head)) return { ...value, [head]: replaceAt(value[head], rest, replacement) };
  if (Array.isArray(value) && /^\d+$/.test(head) && Number(head) < value.length) return value.map((v, i) => (i === Number(head) ? replaceAt(v, rest, replacement) : v));
  return value;
}
