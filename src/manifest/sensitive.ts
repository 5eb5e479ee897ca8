import { ValueMasker, type SensitiveValue } from '../util/sensitive.js';
import type { Interpolated } from './interpolate.js';
import { isSecretName, knownSecretFormat } from './secret-shapes.js';
import { joinPointer } from '../util/json-pointer.js';

/**
 * A value of a manifest that must not be shown: a string expanded from a sensitive variable, or
 * one whose expanded text has a known secret format. A scalar with a sensitive part is sensitive
 * as a whole: `https://hooks.example.com/cb?token=${HOOK_TOKEN}` is masked entirely.
 *
 * A variable is sensitive when its name says so (`isSecretName`: `HOOK_TOKEN`, `DB_PASSWORD`),
 * when it is declared sensitive (`--sensitive VAR`, the project config's `sensitive:` list), or
 * when its value has a known secret format.
 */
export interface SensitiveScalar {
  /** The expanded value. */
  value: string;
  /** The variables a mask names: `(sensitive: HOOK_TOKEN)`. */
  variables: string[];
  /** The values of those variables as they went into `value` (a secret quoted alone elsewhere is masked too). */
  parts: Array<{ name: string; value: string }>;
}

/** Whether a variable is sensitive by its name, a declaration, or the format of its value. */
export function isSensitiveVariable(name: string, value: string, declared: ReadonlySet<string>): boolean {
  return declared.has(name) || isSecretName(name) || knownSecretFormat(value) !== undefined;
}

/** The sensitivity of one expanded scalar, or undefined when nothing in it is sensitive. */
export function sensitivityOf(result: Pick<Interpolated, 'value' | 'used'>, declared: ReadonlySet<string>): SensitiveScalar | undefined {
  if (result.used.length === 0) return undefined;
  const parts = result.used.filter((u) => isSensitiveVariable(u.name, u.value, declared));
  if (parts.length > 0) return { value: result.value, variables: parts.map((p) => p.name), parts };
  // A known format that only the expansion completes (`ghp_${REST}`): every variable in it is named.
  if (knownSecretFormat(result.value) !== undefined) return { value: result.value, variables: result.used.map((u) => u.name), parts: [...result.used] };
  return undefined;
}

/**
 * Every place of `data` that holds a sensitive value, by JSON pointer: the scalar that was
 * expanded and any alias of it (aliases are expanded once, at their anchor).
 */
export function locateSensitive(data: unknown, scalars: readonly SensitiveScalar[]): Map<string, SensitiveScalar> {
  const out = new Map<string, SensitiveScalar>();
  if (scalars.length === 0) return out;
  const byValue = new Map(scalars.map((s) => [s.value, s] as const));
  const walk = (value: unknown, pointer: string): void => {
    if (typeof value === 'string') {
      const hit = byValue.get(value);
      if (hit !== undefined) out.set(pointer, hit);
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, joinPointer(pointer, k));
    }
  };
  walk(data, '');
  return out;
}

/**
 * The values to mask for a set of sensitive scalars: each whole value, each sensitive variable's
 * own value, and a known secret format inside either (a service that echoes only the token of a
 * callback URL is masked too).
 */
export function sensitiveValues(scalars: Iterable<SensitiveScalar>): SensitiveValue[] {
  const out: SensitiveValue[] = [];
  for (const s of scalars) {
    out.push(...withSecretInside(s.value, s.variables));
    for (const p of s.parts) out.push(...withSecretInside(p.value, [p.name]));
  }
  return out;
}

/** A value, and the known-format secret inside it when it holds one besides other text. */
export function withSecretInside(value: string, labels: string[]): SensitiveValue[] {
  const inside = knownSecretFormat(value)?.secret;
  return inside === undefined || inside === value ? [{ value, labels }] : [{ value, labels }, { value: inside, labels }];
}

/** A masker of one document's sensitive values (`sensitive` of a `ManifestDocument`). */
export function documentMasker(doc: { sensitive?: ReadonlyMap<string, SensitiveScalar> | undefined }): ValueMasker {
  const masker = new ValueMasker();
  if (doc.sensitive !== undefined) {
    masker.addAll(sensitiveValues(new Set(doc.sensitive.values())));
  }
  return masker;
}

/** The values of the variables declared sensitive (`--sensitive`, the project's `sensitive:`), when they are set. */
export function declaredValues(env: Readonly<Record<string, string | undefined>>, declared: readonly string[] | undefined): SensitiveValue[] {
  return (declared ?? []).flatMap((name) => (env[name] === undefined || env[name] === '' ? [] : withSecretInside(env[name]!, [name])));
}
