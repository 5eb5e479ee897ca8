/**
 * The rules a session's config must keep as a whole, checked on the config a create or a PATCH
 * would store (so a PATCH that narrows the filters under an earlier preload is refused too), before
 * anything is stored. All are 400 `ToolRouterV2_BadRequest` (4300) with one line per problem
 * (api facts §3.1):
 *
 * - `preload.tools: "all"` needs an allowlist of toolkits (it would otherwise mean the catalogue);
 * - every preloaded tool passes the session's own toolkit, tool and tag filters: the service
 *   refuses "blocked" slugs, and a preloaded tool that execute then refuses is no use;
 * - preload is not supported with multi-account;
 * - several connected accounts for one toolkit need `multi_account.enable: true`, and at most
 *   `max_accounts_per_toolkit` of them (5 when not given). An unset `enable` falls back to the
 *   project's setting on the service; the emulator's projects have multi-account off.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { EffectiveConfig } from './effective.js';
import { toolRouterErrors } from './errors.js';
import { toolAllowed } from './policy.js';

/** A config with more preloaded tools than this gets the PRELOAD_TOOLS_HIGH_CONTEXT_USAGE warning (api facts §3.1: "keep ≲20"). */
export const PRELOAD_WARNING_THRESHOLD = 20;

/** The default of `multi_account.max_accounts_per_toolkit` (api facts §4.3). */
const DEFAULT_MAX_ACCOUNTS = 5;

function multiAccountOn(config: EffectiveConfig): boolean {
  return config.multi_account?.enable === true;
}

function preloadProblems(config: EffectiveConfig, catalog: Catalog): string[] {
  const preload = config.preload.tools;
  if (preload === 'all') {
    if (config.toolkits === undefined || !('enabled' in config.toolkits) || config.toolkits.enabled.length === 0) {
      return ['Error in payload.preload.tools: "all" needs toolkits.enable'];
    }
    return [];
  }
  const problems: string[] = [];
  preload.forEach((slug, n) => {
    const tool = catalog.tool(slug);
    if (tool !== undefined && !toolAllowed(config, tool)) {
      problems.push(`Error in payload.preload.tools[${n}]: Tool '${slug}' is blocked by the session's toolkits, tools or tags`);
    }
  });
  return problems;
}

function accountProblems(config: EffectiveConfig): string[] {
  const problems: string[] = [];
  const max = config.multi_account?.max_accounts_per_toolkit ?? DEFAULT_MAX_ACCOUNTS;
  for (const [toolkit, ids] of Object.entries(config.connected_accounts)) {
    if (ids.length <= 1) continue;
    if (!multiAccountOn(config)) {
      problems.push(`Error in payload.connected_accounts.${toolkit}: ${ids.length} accounts for one toolkit need multi_account.enable: true`);
    } else if (ids.length > max) {
      problems.push(`Error in payload.connected_accounts.${toolkit}: ${ids.length} accounts, more than multi_account.max_accounts_per_toolkit (${max})`);
    }
  }
  return problems;
}

/** Throws the service's 400 when the config breaks a rule above. */
export function checkConfigRules(config: EffectiveConfig, catalog: Catalog): void {
  const problems = preloadProblems(config, catalog);
  const preloads = config.preload.tools === 'all' || config.preload.tools.length > 0;
  if (preloads && multiAccountOn(config)) problems.push('Error in payload.preload: preload is not supported with multi-account (multi_account.enable: true)');
  problems.push(...accountProblems(config));
  if (problems.length > 0) throw toolRouterErrors.badRequest('The session config is not valid', problems);
}

/** The advisories of a session's answers (api facts §3.1): many preloaded tools cost the agent context. */
export function configWarnings(toolRouterTools: readonly string[]): Array<{ code: 'PRELOAD_TOOLS_HIGH_CONTEXT_USAGE'; message: string }> {
  let preloaded = 0;
  for (const slug of toolRouterTools) if (!slug.startsWith('COMPOSIO_')) preloaded += 1;
  if (preloaded <= PRELOAD_WARNING_THRESHOLD) return [];
  return [
    {
      code: 'PRELOAD_TOOLS_HIGH_CONTEXT_USAGE',
      message: `${preloaded} tools are preloaded; more than ${PRELOAD_WARNING_THRESHOLD} use much of the model's context. Preload fewer and let the agent search for the rest.`,
    },
  ];
}
