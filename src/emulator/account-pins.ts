/**
 * Connected accounts pinned in a session config (create and PATCH) must be accounts the service
 * knows, of the session's own user and of the toolkit they are pinned for (api facts §3.1: "must
 * exist, not be deleted/disabled, and belong to the same user_id"). Another key's account does not
 * exist for the caller. A refusal is 400 `ToolRouterV2_InvalidConnectedAccountIds`, the slug seen on
 * the service (api facts §6.3), naming each id; its numeric code is not published, and the emulator
 * answers 4300 as for the service's other tool-router 400s. One lookup by id per pinned account.
 */
import type { ApiVersion } from '../wire/json.js';
import type { EffectiveConfig } from './effective.js';
import { ServiceError } from './errors.js';
import type { Store } from './store.js';

export function checkPinnedAccounts(config: EffectiveConfig, tenant: string, store: Store, version: ApiVersion): void {
  const bad: string[] = [];
  const lines: string[] = [];
  for (const [toolkit, ids] of Object.entries(config.connected_accounts)) {
    ids.forEach((id, n) => {
      const at = version === '3' ? `payload.connected_accounts.${toolkit}` : `payload.connected_accounts.${toolkit}[${n}]`;
      const c = store.connection(id, tenant);
      let problem: string | undefined;
      if (c === undefined) problem = `Connected account '${id}' not found`;
      else if (c.user_id !== config.user_id) problem = `Connected account '${id}' does not belong to user '${config.user_id}'`;
      else if (c.toolkit !== toolkit) problem = `Connected account '${id}' is an account of toolkit '${c.toolkit}', not '${toolkit}'`;
      if (problem === undefined) return;
      bad.push(id);
      lines.push(`Error in ${at}: ${problem}`);
    });
  }
  if (bad.length > 0) {
    throw new ServiceError(
      400,
      'ToolRouterV2_InvalidConnectedAccountIds',
      4300,
      `Invalid connected account ids: ${bad.join(', ')}`,
      lines,
      "Pin accounts of the session's own user_id, made for that toolkit (by a link flow)",
    );
  }
}
