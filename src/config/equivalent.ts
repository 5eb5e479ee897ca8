import { expectedConfig } from './expected.js';
import { canonicalJson } from './request.js';
import { isPlainObject } from '../util/plain-object.js';
import type { ManifestData } from './types.js';

/** A copy with every list of scalars sorted: lists are sets at the service. */
function setwise(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(setwise);
    return items.every((i) => i === null || typeof i !== 'object') ? [...items].sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1)) : items;
  }
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, setwise(v)]));
  return value;
}

/** What a body asks of the service: its effective config, its meta tools, and what is not echoed. */
function effect(body: Record<string, unknown>): string {
  const expected = expectedConfig(body as ManifestData);
  return canonicalJson(setwise({ config: expected.config, tools: expected.toolRouterTools, experimental: body['experimental'] ?? null, premium_usage: body['premium_usage'] ?? null }));
}

/**
 * Whether two request bodies ask the service for the same session: the same effective config
 * with documented defaults filled in (a default written out equals one left out), the same meta
 * tools, and the same values the config does not echo. A manifest rewritten without changing what
 * it asks for (`manage_connections: {enable: true}` dropped, a list reordered) needs no PATCH.
 */
export function sameEffect(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return effect(a) === effect(b);
}
