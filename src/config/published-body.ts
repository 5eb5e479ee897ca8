import type { ManifestDocument } from '../manifest/types.js';
import type { SensitiveScalar } from '../manifest/sensitive.js';
import { joinPointer } from '../util/json-pointer.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Json } from '../wire/json.js';

/**
 * Where a publication's body holds a sensitive value, and how to make it again: literal text and
 * the variables to read, in order. Kept as parts, not as `${VAR}` text: a literal `$` before a
 * variable (`${PREFIX}` ending in `$`) has no `${VAR}` spelling that expands back to it.
 */
export interface PublishedTemplate {
  pointer: string;
  parts: Array<string | { variable: string }>;
}

/**
 * The body a per-user manifest is published with: the request body, each sensitive value put
 * back as the `${VAR}` text that made it (a secret is never stored; the application's `ensure`
 * fills it from its own environment), and the pointers of those templates.
 */
export function publishedBody(body: { [key: string]: Json }, doc: Pick<ManifestDocument, 'sensitive'>): { body: { [key: string]: Json }; templates: PublishedTemplate[] } {
  const templates: PublishedTemplate[] = [];
  if (doc.sensitive === undefined) return { body, templates };
  const byValue = new Map([...doc.sensitive.values()].map((s) => [s.value, s] as const));
  const walk = (value: Json, pointer: string): Json => {
    if (typeof value === 'string') {
      const hit = byValue.get(value);
      if (hit === undefined) return value;
      const parts = templateOf(hit);
      templates.push({ pointer, parts });
      return shown(parts);
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v as Json, joinPointer(pointer, k))]));
    return value;
  };
  return { body: walk(body, '') as { [key: string]: Json }, templates };
}

/**
 * The parts that make a sensitive value again: each sensitive variable's value as a reference to
 * it, the rest as literal text as it expanded (other variables keep the value the pipeline gave
 * them). Joining the parts with the same variables gives the value back, whatever it holds.
 */
export function templateOf(scalar: Pick<SensitiveScalar, 'value' | 'parts'>): PublishedTemplate['parts'] {
  const secrets = scalar.parts.filter((p) => p.value !== '').sort((a, b) => b.value.length - a.value.length);
  const text = scalar.value;
  const out: PublishedTemplate['parts'] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const secret = secrets.find((p) => text.startsWith(p.value, i));
    if (secret === undefined) {
      literal += text[i];
      i++;
      continue;
    }
    if (literal !== '') out.push(literal);
    literal = '';
    out.push({ variable: secret.name });
    i += secret.value.length;
  }
  if (literal !== '') out.push(literal);
  return out;
}

/** How the body shows a template to a person: `${NAME}` for each variable (never expanded from it). */
export function shown(parts: PublishedTemplate['parts']): string {
  return parts.map((p) => (typeof p === 'string' ? p : `\${${p.variable}}`)).join('');
}

/** The value of a template's parts with `env`; the first variable it lacks, when one is missing. */
export function filled(parts: PublishedTemplate['parts'], env: Readonly<Record<string, string | undefined>>): { value: string } | { missing: string } {
  let value = '';
  for (const p of parts) {
    if (typeof p === 'string') value += p;
    else {
      const v = env[p.variable];
      if (v === undefined) return { missing: p.variable };
      value += v;
    }
  }
  return { value };
}
