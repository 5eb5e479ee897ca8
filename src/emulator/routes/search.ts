/**
 * POST /session/{id}/search (api facts §2.9): one result per query, in order, with `index` from 1;
 * a query that matches nothing carries an `error`, and the top-level `error` says how many failed
 * (`success` is false only when all did). Also: connection status of every toolkit in the results,
 * and the schemas of the tools named.
 */
import type { ApiHandler, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { connectionOf, isConnected } from '../connections.js';
import type { ApiVersion } from '../../wire/json.js';
import type { CatalogTool } from '../../catalog/types.js';
import { customCatalogTools, customEcho } from '../custom-tools.js';
import { inputSchemaOf } from '../meta-tools.js';
import type { SessionRecord } from '../store.js';
import { primaryAndRelated, rankTools } from '../tool-search.js';

/**
 * The answer to `queries`. Custom tools are searched too: those the session was created with, and
 * `inline` ones (the `experimental` block a v3.1 client sends with its search), which win over a
 * stored one of the same final slug.
 */
export function searchBody(
  queries: ReadonlyArray<{ use_case: string }>,
  session: SessionRecord,
  state: EmulatorState,
  version: ApiVersion = '3',
  inline?: Record<string, unknown>,
): Record<string, unknown> {
  const custom = new Map<string, CatalogTool>();
  for (const t of customCatalogTools(session.experimental)) custom.set(t.slug, t);
  for (const t of customCatalogTools(inline === undefined ? undefined : customEcho(inline, state))) custom.set(t.slug, t);
  const toolkits = new Set<string>();
  const schemas: Record<string, unknown> = {};
  let failed = 0;
  const results = queries.map((q, n) => {
    const { primary, related } = primaryAndRelated(rankTools(q.use_case, session, state, [...custom.values()]));
    if (primary.length === 0) failed += 1;
    // A standalone custom tool belongs to no toolkit.
    const kits = [...new Set([...primary, ...related].map((t) => t.toolkit))].filter((k) => k !== '');
    for (const k of kits) toolkits.add(k);
    for (const t of [...primary, ...related]) {
      schemas[t.slug] = { toolkit: t.toolkit, tool_slug: t.slug, description: t.description ?? t.name, hasFullSchema: true, input_schema: inputSchemaOf(t) };
    }
    return {
      index: n + 1,
      use_case: q.use_case,
      primary_tool_slugs: primary.map((t) => t.slug),
      related_tool_slugs: related.map((t) => t.slug),
      toolkits: kits,
      difficulty: primary.length === 0 ? 'unknown' : primary.length === 1 ? 'easy' : 'medium',
      recommended_plan_steps: primary.map((t) => `Call ${t.slug} (${t.name})`),
      known_pitfalls: [],
      execution_guidance: primary.length === 0 ? 'No matching tools in this session.' : `Start with ${primary[0]?.slug}.`,
      error: primary.length === 0 ? `No tools found for '${q.use_case}'` : null,
    };
  });
  const now = new Date();
  return {
    success: failed < queries.length,
    error: failed === 0 ? null : `${failed} out of ${queries.length} searches failed`,
    results,
    toolkit_connection_statuses: [...toolkits].sort().map((slug) => connectionStatus(slug, session, state, version)),
    tool_schemas: schemas,
    time_info: {
      current_time_utc: now.toISOString(),
      current_time_utc_epoch_seconds: Math.floor(now.getTime() / 1000),
      message: 'Current time in UTC',
    },
    session: { id: session.id, generate_id: false, instructions: 'Reuse this session id in later calls.' },
    next_steps_guidance: ['Check toolkit_connection_statuses before executing', 'Run the primary tools with COMPOSIO_MULTI_EXECUTE_TOOL'],
  };
}

/** One toolkit's connection in search results; v3.1 adds the account's sharing model and the accounts. */
function connectionStatus(slug: string, session: SessionRecord, state: EmulatorState, version: ApiVersion): Record<string, unknown> {
  const tk = state.catalog.toolkit(slug);
  // Not in the catalogue: a custom toolkit, which needs no authentication (api facts §3.6).
  const noAuth = tk === undefined || tk.no_auth;
  const active = noAuth || isConnected(session, tk, state);
  const out: Record<string, unknown> = {
    toolkit: slug,
    description: tk?.name ?? slug,
    has_active_connection: active,
    status_message: noAuth ? 'No authentication needed' : active ? 'Connected' : 'Not connected: use COMPOSIO_MANAGE_CONNECTIONS',
  };
  const account = tk === undefined || tk.no_auth ? null : connectionOf(session, tk, state);
  if (version === '3.1' && active && account !== null) {
    out['account_type'] = 'PRIVATE';
    out['accounts'] = [{ id: account.id, status: account.status, created_at: account.created_at, is_default: true }];
  }
  return out;
}

export const search: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const body = req.body as { queries: Array<{ use_case: string }>; experimental?: Record<string, unknown> };
  return { status: 200, body: searchBody(body.queries, session, state, req.version, body.experimental) };
};
