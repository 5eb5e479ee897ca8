import { createHash } from 'node:crypto';
import type { CreateSessionBody, ManifestData } from './types.js';
import { isPlainObject } from '../util/plain-object.js';

/**
 * The wire body of a session create for a validated manifest: `name` is dropped (it is the
 * manifest's identity, not a service field) and the bare-list shorthands of `toolkits` and of a
 * toolkit in `tools` become `{enable: [...]}`, as the official SDK sends them (api §3.7). Keys keep
 * the manifest's order, so the body reads like the file; `bodyHash` does not depend on that order.
 */
export function requestBody(manifest: ManifestData): CreateSessionBody {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (key === 'name' || value === undefined) continue;
    if (key === 'toolkits') body[key] = Array.isArray(value) ? { enable: [...(value as string[])] } : value;
    else if (key === 'tools' && isPlainObject(value)) body[key] = expandTools(value);
    else body[key] = value;
  }
  return body as CreateSessionBody;
}

function expandTools(tools: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [toolkit, filter] of Object.entries(tools)) {
    out[toolkit] = Array.isArray(filter) ? { enable: [...(filter as string[])] } : filter;
  }
  return out;
}

/**
 * SHA-256 (hex) of the canonical JSON of a body: keys sorted at every level, no whitespace. Two
 * bodies that differ only in key order hash the same; list order still counts, because it is what
 * the service receives.
 */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** JSON with object keys sorted at every level, so equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** A deep copy with object keys in sorted order (arrays keep their order). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (value[key] !== undefined) out[key] = sortKeys(value[key]);
    }
    return out;
  }
  return value;
}
