/**
 * POST /session/{id}/execute and /execute_meta (api facts §2.2, §2.3). Results are deterministic: the
 * same tool and arguments give the same `data` (a result id hashed from them); `log_id` counts per
 * session. A tool-level failure is HTTP 200 with `error` set and `data` empty (facts §9.10): the tool
 * is not enabled in the session, its toolkit has no active connection, the session's permissions
 * do not let the call run (`permissions.ts`), or the arguments miss a required parameter or have
 * the wrong type. An unknown tool slug is a 400. `/execute` accepts meta
 * tools too (facts §2.3).
 */
import { createHash } from 'node:crypto';
import type { CatalogTool } from '../../catalog/types.js';
import type { ApiHandler, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { isPlainObject } from '../../util/plain-object.js';
import { connectionOf, isConnected } from '../connections.js';
import { toolRouterErrors } from '../errors.js';
import { appToolView, inputSchemaOf, metaTool } from '../meta-tools.js';
import { permissionFor } from '../permissions.js';
import { toolAllowed } from '../policy.js';
import type { SessionRecord } from '../store.js';
import { createLinkFor } from './link.js';
import { searchBody } from './search.js';

export interface Outcome {
  data: Record<string, unknown>;
  error: string | null;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

function typeMatches(expected: string, value: unknown): boolean {
  switch (expected) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return true;
  }
}

function fail(error: string): Outcome {
  return { data: {}, error };
}

/** Runs one app tool for a session (no HTTP errors: every failure is tool-level). */
export function runAppTool(tool: CatalogTool, args: Record<string, unknown>, session: SessionRecord, state: EmulatorState): Outcome {
  if (!toolAllowed(session.config, tool)) return fail(`Tool '${tool.slug}' is not enabled in this session`);
  const toolkit = state.catalog.toolkit(tool.toolkit);
  if (toolkit !== undefined && !isConnected(session, toolkit, state)) {
    return fail(`No active connection for toolkit '${tool.toolkit}'. Connect it first (POST /link, or COMPOSIO_MANAGE_CONNECTIONS).`);
  }
  const account = toolkit === undefined || toolkit.no_auth ? null : (connectionOf(session, toolkit, state)?.id ?? null);
  const permission = permissionFor(session.experimental_settings, tool.slug, account);
  if (!permission.run) return fail(permission.error);
  const missing = tool.input.required.filter((p) => args[p] === undefined);
  if (missing.length > 0) return fail(`Missing required parameter(s): ${missing.join(', ')}`);
  for (const [name, value] of Object.entries(args)) {
    const spec = tool.input.properties[name];
    if (spec !== undefined && !typeMatches(spec.type, value)) return fail(`Parameter '${name}' must be of type ${spec.type}`);
  }
  const digest = createHash('sha256').update(`${tool.slug}\n${stableJson(args)}`).digest('hex');
  return {
    data: {
      successful: true,
      tool_slug: tool.slug,
      toolkit: tool.toolkit,
      connected_account_id: account,
      result: { id: `emu_${digest.slice(0, 16)}`, arguments: args },
    },
    error: null,
  };
}

function toolkitList(args: Record<string, unknown>): string[] | string {
  const t = args['toolkits'];
  if (!Array.isArray(t) || !t.every((x) => typeof x === 'string')) return "argument 'toolkits' must be an array of toolkit slugs";
  return t as string[];
}

/** Runs one meta tool for a session. */
export function runMetaTool(slug: string, args: Record<string, unknown>, session: SessionRecord, state: EmulatorState): Outcome {
  if (!session.tool_router_tools.includes(slug)) return fail(`Meta tool '${slug}' is not enabled in this session`);
  switch (slug) {
    case 'COMPOSIO_SEARCH_TOOLS': {
      const queries = args['queries'];
      const list =
        Array.isArray(queries) && queries.every((q) => typeof (q as { use_case?: unknown })?.use_case === 'string')
          ? (queries as Array<{ use_case: string }>)
          : typeof args['use_case'] === 'string'
            ? [{ use_case: args['use_case'] }]
            : undefined;
      if (list === undefined || list.length === 0) return fail("argument 'queries' must be a non-empty array of {use_case}");
      return { data: searchBody(list, session, state), error: null };
    }
    case 'COMPOSIO_GET_TOOL_SCHEMAS': {
      const slugs = args['tool_slugs'];
      if (!Array.isArray(slugs) || !slugs.every((s) => typeof s === 'string')) return fail("argument 'tool_slugs' must be an array of strings");
      const schemas: Record<string, unknown> = {};
      const notFound: string[] = [];
      for (const s of slugs as string[]) {
        const t = state.catalog.tool(s);
        if (t === undefined || !toolAllowed(session.config, t)) notFound.push(s);
        else schemas[s] = { ...appToolView(t, state.catalog.toolkit(t.toolkit)), input_schema: inputSchemaOf(t) };
      }
      return { data: { tool_schemas: schemas, not_found: notFound }, error: null };
    }
    case 'COMPOSIO_MULTI_EXECUTE_TOOL': {
      const tools = args['tools'];
      if (!Array.isArray(tools) || tools.length === 0 || tools.length > 50) return fail("argument 'tools' must be an array of 1..50 {tool_slug, arguments}");
      const results = (tools as Array<{ tool_slug?: unknown; arguments?: unknown }>).map((call) => {
        const s = typeof call?.tool_slug === 'string' ? call.tool_slug : '';
        const t = state.catalog.tool(s);
        const a = call?.arguments !== null && typeof call?.arguments === 'object' ? (call.arguments as Record<string, unknown>) : {};
        const outcome = t === undefined ? fail(`Tool '${s}' not found`) : runAppTool(t, a, session, state);
        return { tool_slug: s, ...outcome };
      });
      const failed = results.filter((r) => r.error !== null).length;
      return { data: { results }, error: failed === 0 ? null : `${failed} out of ${results.length} tools failed` };
    }
    case 'COMPOSIO_MANAGE_CONNECTIONS':
    case 'COMPOSIO_WAIT_FOR_CONNECTIONS':
      return manageConnections(slug, args, session, state);
    case 'COMPOSIO_REMOTE_WORKBENCH': {
      if (typeof args['code_to_execute'] !== 'string') return fail("argument 'code_to_execute' must be a string");
      return { data: { stdout: '', stderr: '', results: [], note: 'emulated workbench: the code was not run' }, error: null };
    }
    case 'COMPOSIO_REMOTE_BASH_TOOL': {
      if (typeof args['command'] !== 'string') return fail("argument 'command' must be a string");
      return { data: { stdout: '', stderr: '', exit_code: 0, note: 'emulated sandbox: the command was not run' }, error: null };
    }
    default:
      return fail(`Meta tool '${slug}' is not available in the emulator`);
  }
}

/** COMPOSIO_MANAGE_CONNECTIONS starts link flows; COMPOSIO_WAIT_FOR_CONNECTIONS only reports. */
function manageConnections(slug: string, args: Record<string, unknown>, session: SessionRecord, state: EmulatorState): Outcome {
  const list = toolkitList(args);
  if (typeof list === 'string') return fail(list);
  const results: Record<string, unknown> = {};
  for (const tkSlug of list) {
    const tk = state.catalog.toolkit(tkSlug);
    if (tk === undefined) {
      results[tkSlug] = { status: 'UNKNOWN_TOOLKIT' };
      continue;
    }
    if (tk.no_auth) {
      results[tkSlug] = { status: 'NO_AUTH_REQUIRED' };
      continue;
    }
    const c = connectionOf(session, tk, state);
    // WAIT only reports; MANAGE starts a link flow for a toolkit that has no active connection.
    if (c?.status === 'ACTIVE' || slug === 'COMPOSIO_WAIT_FOR_CONNECTIONS') {
      results[tkSlug] = { status: c?.status ?? 'NOT_CONNECTED', connected_account_id: c?.id ?? null };
      continue;
    }
    try {
      const link = createLinkFor(session, tk, undefined, undefined, state);
      results[tkSlug] = { status: 'INITIATED', connected_account_id: link.connected_account_id, redirect_url: link.redirect_url };
    } catch (err) {
      results[tkSlug] = { status: 'FAILED', error: err instanceof Error ? err.message : String(err) };
    }
  }
  return { data: { results }, error: null };
}

/** One execution's answer: the outcome and a `log_id` counted per session. */
export function logged(session: SessionRecord, outcome: Outcome): { data: Record<string, unknown>; error: string | null; log_id: string } {
  session.executions += 1;
  return { data: outcome.data, error: outcome.error, log_id: `log_${session.id.slice(4)}_${session.executions}` };
}

/** A meta tool or an app tool by slug, as /execute runs it; undefined for a slug that is neither. */
export function runTool(slug: string, args: Record<string, unknown>, session: SessionRecord, state: EmulatorState): Outcome | undefined {
  if (metaTool(slug) !== undefined) return runMetaTool(slug, args, session, state);
  const tool = state.catalog.tool(slug);
  return tool === undefined ? undefined : runAppTool(tool, args, session, state);
}

export const execute: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const body = req.body as { tool_slug: string; arguments?: Record<string, unknown> };
  const outcome = runTool(body.tool_slug, body.arguments ?? {}, session, state);
  if (outcome === undefined) {
    throw toolRouterErrors.badRequest(`Tool '${body.tool_slug}' not found`, [`Error in payload.tool_slug: Unknown tool '${body.tool_slug}'`]);
  }
  return { status: 200, body: logged(session, outcome) };
};

export const executeMeta: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const body = req.body as { slug: string; arguments?: Record<string, unknown> };
  return { status: 200, body: logged(session, runMetaTool(body.slug, body.arguments ?? {}, session, state)) };
};
