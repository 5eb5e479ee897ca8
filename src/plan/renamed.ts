import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import { hasSession, type StateEntry } from '../state/entry.js';
import type { ManifestDocument } from '../manifest/types.js';

/** What a plan item tells of a create (plan.ts's PlanItem, which imports this file). */
interface PlannedCreate {
  name: string;
  user_id: string;
  body_hash: string;
  action: string;
  reason: string;
  doc: ManifestDocument;
}

/**
 * Creates that look like a renamed manifest: the same user and the same body as a recorded session
 * whose manifest is gone. Deleting that one and creating another changes the session's id and
 * MCP URL for nothing; `state mv` keeps it.
 */
export function renamed(items: readonly PlannedCreate[], gone: readonly StateEntry[], pruning: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const item of items) {
    if (item.action !== 'create' || item.reason !== 'not-applied') continue;
    const old = gone.find((e) => e.user_id === item.user_id && e.body_hash === item.body_hash && hasSession(e));
    if (old === undefined) continue;
    const fate = pruning ? 'deletes it and creates another' : 'creates another beside it (and --prune would delete it)';
    const d = atDocument(item.doc, 'plan/renamed', 'info', `${item.name}: the same user and body as ${old.name}'s session ${old.session_id}, whose manifest is gone; this plan ${fate}`);
    d.hint = `if ${old.name} was renamed to ${item.name}, keep its session: \`sessionctl state mv ${old.name} ${item.name}\`, then plan again`;
    out.push(d);
  }
  return out;
}
