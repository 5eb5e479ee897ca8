import type { LinkResult } from '../../wire/operations.js';
import type { RenderContext } from './context.js';
import { cell, renderFields } from './table.js';

/** `link`: the URL to open (never cut: it must be copied whole), and the ids the flow created. */
export function renderLink(toolkit: string, result: LinkResult, ctx: RenderContext): string {
  return (
    `Open this URL to connect ${cell(toolkit)}:\n  ${cell(result.redirect_url)}\n\n` +
    renderFields(
      [
        ['connected account', `${result.connected_account_id} (active once the flow completes)`],
        ['link token', result.link_token],
      ],
      ctx,
    )
  );
}
