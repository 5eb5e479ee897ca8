/**
 * The session itself: create (POST /session), retrieve (GET), delete (DELETE, v3.1) and attach
 * (POST /attach, v3.1). What the schema cannot check is `slugs.ts`, `account-pins.ts` and
 * `config-rules.ts`; what each version answers is `session-view.ts`. Custom tools and toolkits are
 * echoed with their final `LOCAL_...` slugs (api facts §3.6) and kept with the `experimental`
 * answer, which GET, PATCH and attach give again; attach adds the ones a client re-sends.
 */
import type { CreateSessionRequest, CreateSessionRequestV31 } from '../../wire/request.js';
import type { ApiHandler, ApiRequest, ApiResponse, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { customEcho } from '../custom-tools.js';
import { storedConfig } from '../effective.js';
import { experimentalSettings } from '../experimental-settings.js';
import { sessionBody, toolRouterTools } from '../session-view.js';
import { checkPinnedAccounts } from '../account-pins.js';
import { checkConfigRules } from '../config-rules.js';
import { checkSlugs } from '../slugs.js';
import { newId, type SessionRecord } from '../store.js';

/** The `experimental` answer, made once at create and kept with the session: an assistive prompt and the custom tools with their final slugs. */
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
    ...(experimental === undefined ? {} : { experimental }),
  };
  const settings = experimentalSettings(undefined, create.experimental);
  if (settings !== undefined) record.experimental_settings = settings;
  state.store.addSession(record);
  return { status: 201, body: sessionBody(record, state, req.version) };
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
  if (exp !== undefined) out['experimental'] = { ...s.experimental, ...customEcho(exp, state) };
  return { status: 200, body: out };
};
