import { canonicalJson } from '../config/request.js';
import { isPlainObject } from '../util/plain-object.js';
import type { ApiVersion, Json } from '../wire/json.js';
import type { UpdateSessionRequest } from '../wire/request.js';

type Body = { [key: string]: Json };

/**
 * Keys PATCH replaces whole when supplied (api facts §7): the maps, and the filters whose value is
 * one choice (`toolkits` is an allowlist or a denylist, `tags` a list or a pair); and
 * `multi_account`, whose members the contract does not let be null (the emulator replaces it whole).
 */
const REPLACED_WHOLE = new Set(['toolkits', 'tools', 'tags', 'auth_configs', 'connected_accounts', 'multi_account']);

/**
 * What a member of a block PATCH merges stands for when the manifest does not declare it: its
 * documented default (api §4.3; the contract does not let workbench members be null), or `null`
 * (`callback_url`: removed). The service's own choice (`auto_offload_threshold`) is left alone.
 */
const UNDECLARED_MEMBERS: Readonly<Record<string, Body>> = {
  manage_connections: { enable: true, enable_wait_for_connections: false, enable_connection_removal: true, callback_url: null },
  workbench: { enable: true, enable_proxy_execution: true, enable_tool_execution: true, sandbox_size: 'standard' },
};

/**
 * The `experimental` members each API version's PATCH accepts (api facts §7, the v3.1 contract's
 * closed PATCH body; the v3 PATCH carries no `experimental` at all). Any other member (the
 * assistive prompt's config, custom tools) is given at creation only: changing it is a replace.
 */
export const PATCH_EXPERIMENTAL: Readonly<Record<ApiVersion, readonly string[]>> = {
  '3': [],
  '3.1': ['permissions', 'link_url_overwrite', 'fast_mode', 'submit_feedback'],
};

/** The fields PATCH can never change, whatever the version. */
export const NOT_PATCHABLE: readonly string[] = ['user_id', 'experimental.custom_tools', 'experimental.custom_toolkits'];

/** The fields of a body that a `version` PATCH cannot change (`user_id`, `experimental.X`), with their values. */
export function unpatchable(body: Body, version: ApiVersion = '3'): Map<string, string> {
  const experimental = isPlainObject(body['experimental']) ? body['experimental'] : {};
  const out = new Map([
    ['user_id', canonicalJson(body['user_id'] ?? null)],
    ['experimental.custom_tools', canonicalJson(experimental['custom_tools'] ?? null)],
    ['experimental.custom_toolkits', canonicalJson(experimental['custom_toolkits'] ?? null)],
  ]);
  for (const [key, value] of Object.entries(experimental)) if (!PATCH_EXPERIMENTAL[version].includes(key)) out.set(`experimental.${key}`, canonicalJson(value));
  return out;
}

/** The fields a `version` PATCH cannot change that differ between the two bodies (a field dropped counts), sorted. */
export function changedUnpatchable(before: Body, after: Body, version: ApiVersion): string[] {
  const was = unpatchable(before, version);
  const now = unpatchable(after, version);
  return [...new Set([...was.keys(), ...now.keys()])].filter((k) => k !== 'user_id' && (was.get(k) ?? 'null') !== (now.get(k) ?? 'null')).sort();
}

/** The body without what a `version` PATCH refuses: user_id, and the experimental members it does not take. */
function patchable(body: Body, version: ApiVersion): Body {
  const out: Body = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'user_id') continue;
    if (key === 'experimental' && isPlainObject(value)) {
      const rest = Object.fromEntries(Object.entries(value).filter(([k]) => PATCH_EXPERIMENTAL[version].includes(k)));
      if (Object.keys(rest).length > 0) out[key] = rest;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * The PATCH that turns a session created from `before` into one created from `after`: only keys
 * that differ are sent (PATCH leaves the others as they are); a key no longer declared is `null`
 * (the stored override is removed, the default applies again); maps and filters are sent whole
 * (PATCH replaces them whole); other objects are sent whole, with `null` (or the documented
 * default, where null is refused) for a member no longer declared (PATCH merges them member by
 * member). With no `before` (an adopted session, or state written before bodies were recorded),
 * every declared key is sent.
 *
 * `before` and `after` are compared as the state records them (sensitive values as digests);
 * what is sent is taken from `values`, the same body with the values themselves. Only what the
 * `version` PATCH accepts is sent (a change of anything else is a replace, planned before this).
 */
export function patchBody(before: Body | null, after: Body, values: Body = after, version: ApiVersion = '3'): UpdateSessionRequest {
  const next = patchable(after, version);
  const real = patchable(values, version);
  const prev = before === null ? undefined : patchable(before, version);
  const out: Record<string, Json> = {};
  for (const key of new Set([...Object.keys(prev ?? {}), ...Object.keys(next)])) {
    const was = prev?.[key];
    const now = next[key];
    if (now === undefined) {
      if (was !== undefined) out[key] = null;
      continue;
    }
    if (was !== undefined && canonicalJson(was) === canonicalJson(now)) continue;
    const sent = real[key] ?? now;
    out[key] = REPLACED_WHOLE.has(key) || !isPlainObject(sent) || !isPlainObject(was) ? sent : withRemovedMembers(was, sent, UNDECLARED_MEMBERS[key] ?? {});
  }
  return out as UpdateSessionRequest;
}

function withRemovedMembers(was: Body, now: Body, defaults: Body): Json {
  const out: Body = { ...now };
  for (const key of Object.keys(was)) if (!(key in now)) out[key] = defaults[key] ?? null;
  return out;
}

/**
 * The PATCH that repairs drift: every top-level key the differences touch, sent as declared
 * (`null` when it is not declared, so the service drops what was set behind the manifest's back).
 * With `strict`, a block PATCH merges is sent with its undeclared members too, since merging would
 * keep them; without it, what the manifest does not declare is not drift and stays as it is.
 */
export function repairBody(declared: Body, keys: Iterable<string>, options: { strict?: boolean; version?: ApiVersion } = {}): UpdateSessionRequest {
  const next = patchable(declared, options.version ?? '3');
  const out: Record<string, Json> = {};
  for (const key of keys) {
    if (key === '' || key === 'user_id') continue;
    // Nothing of `experimental` can be sent to a version whose PATCH takes none of it (not even null).
    if (key === 'experimental' && PATCH_EXPERIMENTAL[options.version ?? '3'].length === 0) continue;
    const value = next[key];
    const undeclared = options.strict === true ? UNDECLARED_MEMBERS[key] : undefined;
    out[key] = value === undefined ? null : isPlainObject(value) ? { ...undeclared, ...value } : value;
  }
  return out as UpdateSessionRequest;
}
