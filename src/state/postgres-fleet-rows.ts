import { InputError } from '../diagnostics/errors.js';
import { isTemplateList, storableVersion } from './entry.js';
import { fleetRowProblem, type FleetSession, type Publication } from './fleet.js';
import type { PostgresTarget } from './postgres-url.js';

/** The fleet's rows in PostgreSQL as the statements read them, and what each statement shares. */

export interface FleetRow {
  name: string;
  user_id: string;
  session_id: string;
  mcp_url: string;
  tool_router_tools: unknown;
  config_version: string | null;
  version: number | null;
  body_hash: string | null;
  created_at: Date | null;
  claim_id: string | null;
  claim_state: 'claimed' | 'sent' | 'unknown' | null;
  claim_since: Date | null;
  claim_expired: boolean | null;
  claim_reason: string | null;
}

/** The columns a fleet row is read with, of the table or of its alias in a join. */
export function fleetColumns(alias?: string): string {
  const a = alias === undefined ? '' : `${alias}.`;
  const plain = ['name', 'user_id', 'session_id', 'mcp_url', 'tool_router_tools', 'config_version', 'version', 'body_hash', 'created_at', 'claim_id', 'claim_state', 'claim_since'];
  return `${plain.map((c) => a + c).join(', ')}, ${a}claim_expires < now() AS claim_expired, ${a}claim_reason`;
}

export const FLEET_SELECT = fleetColumns();

export function rowToSession(row: FleetRow): FleetSession {
  // A row is written by sessionctl alone; one edited by hand or by another writer is reported, not handed on.
  const problem = fleetRowProblem(row);
  if (problem !== undefined) throw new InputError(`a fleet row of the state is not valid (${JSON.stringify(row.name).slice(0, 80)}, user ${JSON.stringify(row.user_id).slice(0, 80)}: ${problem}); fix it, or remove it with \`sessionctl state rm\``);
  const tools = Array.isArray(row.tool_router_tools) ? row.tool_router_tools.filter((t): t is string => typeof t === 'string') : [];
  const session: FleetSession = {
    name: row.name,
    user_id: row.user_id,
    session_id: row.session_id,
    mcp_url: row.mcp_url,
    tool_router_tools: tools,
    config_version: row.config_version === null ? null : storableVersion(Number(row.config_version)),
    version: row.version,
    body_hash: row.body_hash,
    created_at: row.created_at?.toISOString() ?? null,
  };
  if (row.claim_id !== null && row.claim_state !== null) {
    session.claim = {
      id: row.claim_id,
      state: row.claim_state,
      since: (row.claim_since ?? new Date(0)).toISOString(),
      expired: row.claim_expired === true,
      ...(row.claim_reason !== null ? { reason: row.claim_reason } : {}),
    };
  }
  return session;
}

export interface PublishedRow {
  name: string;
  version: number;
  body: unknown;
  templates: unknown;
  body_hash: string;
  api_version: string;
  file: string | null;
  published_at: Date;
}

export const PUBLISHED_SELECT = 'name, version, body, templates, body_hash, api_version, file, published_at';

export function rowToPublication(row: PublishedRow, target: PostgresTarget): Publication {
  const body = row.body;
  const templates = row.templates;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !isTemplateList(templates)) {
    throw new InputError(`the publication of "${row.name}" (workspace "${target.workspace}") is not valid; publish it again with \`sessionctl apply\``, target.location);
  }
  return {
    name: row.name,
    version: row.version,
    body: body as Publication['body'],
    templates,
    body_hash: row.body_hash,
    api_version: row.api_version === '3.1' ? '3.1' : '3',
    file: row.file,
    published_at: row.published_at.toISOString(),
  };
}

/** How a user's row is named in errors. */
export const who = (name: string, userId: string): string => `the session of "${name}" for user ${JSON.stringify(userId)}`;

/**
 * A write as one statement that answers how many rows it changed (`n`) and sets the durability of
 * its own commit (`synchronous_commit` for this transaction alone, whatever the server's default).
 */
export function durability(commit: 'on' | 'off', write: string): string {
  return `WITH w AS (${write} RETURNING 1) SELECT (SELECT count(*) FROM w)::int AS n, set_config('synchronous_commit', '${commit}', true) AS synchronous_commit`;
}

