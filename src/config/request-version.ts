import type { ApiVersion } from '../wire/json.js';
import { isPlainObject } from '../util/plain-object.js';

/**
 * A create or PATCH body in the shapes of an API version. Manifests use v3's spelling; v3.1 takes
 * `connected_accounts.<toolkit>` as a list of ids (api facts §3, v3.1-client-facts), so a single id
 * is sent as a list of one there. Everything else is the same on both.
 */
export function bodyForVersion<T extends Record<string, unknown>>(body: T, version: ApiVersion): T {
  if (version !== '3.1' || !isPlainObject(body['connected_accounts'])) return body;
  const accounts = Object.fromEntries(Object.entries(body['connected_accounts']).map(([toolkit, id]) => [toolkit, typeof id === 'string' ? [id] : id]));
  return { ...body, connected_accounts: accounts };
}
