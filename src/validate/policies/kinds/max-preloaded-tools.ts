import type { ManifestDocument } from '../../../manifest/types.js';
import type { PolicyKind, Violation } from '../types.js';
import { asPlainObject } from '../../../util/plain-object.js';

/** At most N preloaded tools: each is in the agent's context from the first turn. */
export const maxPreloadedTools: PolicyKind = {
  name: 'max_preloaded_tools',
  example: {
    policy: 'id: lean-preload\nmessage: Preload only the few tools every conversation needs\nmax_preloaded_tools: 1',
    manifest: 'name: inbox\nuser_id: u-1\npreload:\n  tools: [GMAIL_FETCH_EMAILS, GMAIL_SEND_EMAIL]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const max = value as number;
    const tools = asPlainObject(asPlainObject(doc.data)?.['preload'])?.['tools'];
    if (!Array.isArray(tools) || tools.length <= max) return [];
    return [{ pointer: '/preload/tools', key: true, detail: `${tools.length} tools are preloaded; at most ${max} are allowed`, hint: 'Keep the rest reachable through search instead of preloading them.' }];
  },
};
