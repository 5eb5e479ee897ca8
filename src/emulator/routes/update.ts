/**
 * PATCH /session/{id} (v3 and v3.1), exactly as api facts §7: only the supplied keys change;
 * `null` removes a stored override (`toolkits: null` = every toolkit again); the supplied
 * `tools`, `auth_configs` and `connected_accounts` maps replace the stored ones wholesale;
 * `manage_connections` and `workbench` change field by field (`callback_url: null` clears only
 * that field); `config_version` is bumped and the replaced version kept for config_history. A
 * stale `expected_config_version` is 409 and changes nothing. `user_id` and custom tools cannot be
 * patched: the closed schema refuses them (400). `experimental` settings change key by key (`null`
 * removes one; `experimental: null` all of them); the create-time `experimental` answer stays.
 */
import type { ApiVersion } from '../../wire/json.js';
import type { UpdateSessionRequest } from '../../wire/request.js';
import type { ApiHandler, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { accountLists, manageConnections, multiAccount, tagFilter, toolFilters, toolkitFilter, workbench, type EffectiveConfig } from '../effective.js';
import { ServiceError } from '../errors.js';
import { experimentalSettings } from '../experimental-settings.js';
import { sessionBody, toolRouterTools } from '../session-view.js';
import { checkPinnedAccounts } from '../account-pins.js';
import { checkConfigRules } from '../config-rules.js';
import { checkSlugs } from '../slugs.js';
import type { SessionRecord } from '../store.js';

/** The stored config after a PATCH body (already schema-valid). Pure. */
export function patchedConfig(current: EffectiveConfig, patch: UpdateSessionRequest): EffectiveConfig {
  const next: EffectiveConfig = structuredClone(current);
  const has = (key: keyof UpdateSessionRequest): boolean => Object.prototype.hasOwnProperty.call(patch, key) && patch[key] !== undefined;
  if (has('toolkits')) {
    if (patch.toolkits === null) delete next.toolkits;
    else next.toolkits = toolkitFilter(patch.toolkits!);
  }
  if (has('tags')) {
    if (patch.tags === null) delete next.tags;
    else next.tags = tagFilter(patch.tags!);
  }
  if (has('multi_account')) {
    if (patch.multi_account === null) delete next.multi_account;
    else next.multi_account = multiAccount(patch.multi_account!);
  }
  if (has('auth_configs')) next.auth_configs = { ...(patch.auth_configs ?? {}) };
  if (has('connected_accounts')) next.connected_accounts = accountLists(patch.connected_accounts ?? {});
  if (has('tools')) next.tools = toolFilters(patch.tools ?? {});
  if (has('manage_connections')) next.manage_connections = manageConnections(patch.manage_connections === null ? undefined : current.manage_connections, patch.manage_connections ?? null);
  if (has('workbench')) next.workbench = workbench(patch.workbench === null ? undefined : current.workbench, patch.workbench ?? null);
  if (has('preload')) next.preload = { tools: patch.preload?.tools === 'all' ? 'all' : [...(patch.preload?.tools ?? [])] };
  if (has('search')) next.search = { enable: patch.search?.enable ?? true };
  if (has('execute')) next.execute = { enable_multi_execute: patch.execute?.enable_multi_execute ?? true };
  return next;
}

/**
 * Applies a schema-valid PATCH body to a session: the version check (409), the slug checks (400),
 * then the new config, its tools, the bumped version and the archived old one. Nothing changes
 * unless all checks pass. Also used by the admin surface to change a session out of band.
 */
export function applyUpdate(s: SessionRecord, patch: UpdateSessionRequest, state: EmulatorState, version: ApiVersion = '3.1'): void {
  const expected = patch.expected_config_version;
  if (expected !== undefined && expected !== s.config_version) {
    throw new ServiceError(
      409,
      'HTTP_Conflict',
      10409,
      `Config version conflict: the request expected version ${expected}, the session is at version ${s.config_version}`,
      undefined,
      'Read the session again (GET), reapply your change to its current config, and send the new config_version',
    );
  }
  checkSlugs({ ...patch, toolkits: patch.toolkits ?? undefined, preload: patch.preload ?? undefined }, state);
  const config = patchedConfig(s.config, patch);
  // Only the pins the PATCH sends: those it keeps were checked when they were set (or were put
  // there by the admin API's drift injection, which a PATCH of other keys must not trip over).
  if (patch.connected_accounts !== undefined && patch.connected_accounts !== null) checkPinnedAccounts(config, s.tenant, state.store, version);
  checkConfigRules(config, state.catalog);
  const now = new Date().toISOString();
  s.history.push({ version: s.config_version, archived_at: now, config: s.config, tool_router_tools: s.tool_router_tools });
  s.config = config;
  s.tool_router_tools = toolRouterTools(config, state.catalog);
  if (Object.prototype.hasOwnProperty.call(patch, 'experimental')) {
    const settings = experimentalSettings(s.experimental_settings, patch.experimental ?? null);
    if (settings === undefined) delete s.experimental_settings;
    else s.experimental_settings = settings;
  }
  s.config_version += 1;
  s.updated_at = now;
  state.store.changed();
}

export const updateSession: ApiHandler = (req, state) => {
  const s = requireSession(req, state);
  applyUpdate(s, req.body as UpdateSessionRequest, state, req.version);
  return { status: 200, body: sessionBody(s, state, req.version) };
};
