/**
 * The session itself: create (POST /session), retrieve (GET), delete (DELETE, v3.1) and attach
 * (POST /attach, v3.1). What the schema cannot check is `slugs.ts`; what each version answers is
 * `session-view.ts`. Custom tools and toolkits are echoed with their final `LOCAL_...` slugs (api
 * facts §3.6) and never stored: v3.1 clients re-send them on attach.
 */
import type { CreateSessionRequest, CreateSessionRequestV31 } from '../../wire/request.js';
import type { ApiHandler, ApiRequest, ApiResponse, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { storedConfig } from '../effective.js';
import { toolRouterErrors } from '../errors.js';
import { sessionBody, toolRouterTools } from '../session-view.js';
import { checkPinnedAccounts } from '../account-pins.js';
import { checkConfigRules } from '../config-rules.js';
import { checkSlugs } from '../slugs.js';
import { newId, type SessionRecord } from '../store.js';

function localSlug(...parts: string[]): string {
  return `LOCAL_${parts.map((p) => p.toUpperCase().replace(/[^A-Z0-9_]/g, '_')).join('_')}`.slice(0, 60);
}

type Custom = Record<string, unknown>;

/** Custom toolkits and tools with their final slugs; a toolkit slug that collides with a real one is a 400. */
function customEcho(exp: Record<string, unknown>, state: EmulatorState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const customToolkits = exp['custom_toolkits'] as Custom[] | undefined;
  if (customToolkits !== undefined) {
    const clash = customToolkits.map((t) => String(t['slug'])).filter((slug) => state.catalog.toolkit(slug.toLowerCase()) !== undefined);
    if (clash.length > 0) throw toolRouterErrors.badRequest(`Custom toolkit slugs collide with existing toolkits: ${clash.join(', ')}`);
    out['custom_toolkits'] = customToolkits.map((tk) => ({
      ...tk,
      tools: (tk['tools'] as Custom[]).map((t) => ({ ...t, slug: localSlug(String(tk['slug']), String(t['slug'])), original_slug: t['slug'] })),
    }));
  }
  const customTools = exp['custom_tools'] as Custom[] | undefined;
  if (customTools !== undefined) {
    out['custom_tools'] = customTools.map((t) => ({
      ...t,
      slug: t['extends_toolkit'] === undefined ? localSlug(String(t['slug'])) : localSlug(String(t['extends_toolkit']), String(t['slug'])),
      original_slug: t['slug'],
    }));
  }
  return out;
}

/** The create-only `experimental` answer: an assistive prompt and the custom tools with their final slugs. */
function experimentalEcho(exp: Record<string, unknown> | undefined, state: EmulatorState): Record<string, unknown> | undefined {
  if (exp === undefined) return undefined;
  const tz = (exp['assistive_prompt_config'] as { user_timezone?: string } | undefined)?.user_timezone;
  return {
    assistive_prompt:
      'You can discover tools with COMPOSIO_SEARCH_TOOLS and run them with COMPOSIO_MULTI_EXECUTE_TOOL.' + (tz === undefined ? '' : ` The user's timezone is ${tz}.`),
    ...customEcho(exp, state),
  };
}

export const createSession: ApiHandler = (req: ApiRequest, state: EmulatorState): ApiResponse => {
  const create = req.body as CreateSessionRequest | CreateSessionRequestV31;
  checkSlugs(create, state);
  // Everything that can refuse the request runs before anything is stored.
  const experimental = experimentalEcho(create.experimental, state);
  const config = storedConfig(create, req.version);
  checkPinnedAccounts(config, req.tenant, state.store, req.version);
  checkConfigRules(config, state.catalog);
  const now = new Date().toISOString();
  const record: SessionRecord = {
    id: newId('trs_'),
    tenant: req.tenant,
    created_at: now,
    updated_at: now,
    config,
    tool_router_tools: toolRouterTools(config, state.catalog),
    config_version: 1,
    history: [],
    mounts: {},
    executions: 0,
  };
  state.store.addSession(record);
  const out = sessionBody(record, state, req.version);
  if (experimental !== undefined) out['experimental'] = experimental;
  return { status: 201, body: out };
};

export const getSession: ApiHandler = (req, state) => ({ status: 200, body: sessionBody(requireSession(req, state), state, req.version) });

/** DELETE (v3.1): the session and its files are gone; later calls answer 404 (api facts §7). */
export const deleteSession: ApiHandler = async (req, state) => {
  const s = requireSession(req, state);
  await state.store.deleteSession(s.id);
  return { status: 200, body: { session_id: s.id, deleted: true } };
};

/** POST /attach (v3.1): the session, with the custom tools and toolkits re-supplied for this use. */
export const attachSession: ApiHandler = (req, state) => {
  const s = requireSession(req, state);
  const exp = (req.body as { experimental?: Record<string, unknown> } | undefined)?.experimental;
  const out = sessionBody(s, state, req.version);
  if (exp !== undefined) out['experimental'] = customEcho(exp, state);
  return { status: 200, body: out };
};
