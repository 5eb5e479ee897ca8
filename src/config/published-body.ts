import type { ManifestDocument } from '../manifest/types.js';
import type { SensitiveScalar } from '../manifest/sensitive.js';
import { joinPointer } from '../util/json-pointer.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Json } from '../wire/json.js';

/**
 * The body a per-user manifest is published with: the request body, each sensitive value put
 * back as the `${VAR}` text that made it (a secret is never stored; the application's `ensure`
 * fills it from its own environment), and the pointers of those templates.
 */
export function publishedBody(body: { [key: string]: Json }, doc: Pick<ManifestDocument, 'sensitive'>): { body: { [key: string]: Json }; templates: string[] } {
  const templates: string[] = [];
  if (doc.sensitive === undefined) return { body, templates };
  const byValue = new Map([...doc.sensitive.values()].map((s) => [s.value, s] as const));
  const walk = (value: Json, pointer: string): Json => {
    if (typeof value === 'string') {
      const hit = byValue.get(value);
      if (hit === undefined) return value;
      templates.push(pointer);
      return templateOf(hit);
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v as Json, joinPointer(pointer, k))]));
    return value;
  };
  return { body: walk(body, '') as { [key: string]: Json }, templates };
}

/**
 * The text that expands to a sensitive value again: each sensitive variable's value as `${NAME}`,
 * the rest as it expanded (other variables keep the value the pipeline gave them), with a literal
 * `${` escaped as `$${` so that expanding the template reads no variable the manifest did not.
 */
export function templateOf(scalar: Pick<SensitiveScalar, 'value' | 'parts'>): string {
  const parts = scalar.parts.filter((p) => p.value !== '').sort((a, b) => b.value.length - a.value.length);
  const text = scalar.value;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const part = parts.find((p) => text.startsWith(p.value, i));
    if (part !== undefined) {
      out += `\${${part.name}}`;
      i += part.value.length;
    } else if (text.startsWith('${', i)) {
      out += '$${';
      i += 2;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}
