import type { ManifestDocument } from '../../../manifest/types.js';
import { placeOf, toolkitAccess } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';
import { openAccess } from '../words.js';

/** At most N toolkits: each costs the agent context and widens what it can do. */
export const maxToolkits: PolicyKind = {
  name: 'max_toolkits',
  example: {
    policy: 'id: small-sessions\nmessage: Keep sessions focused\nmax_toolkits: 2',
    manifest: 'name: everything\nuser_id: u-1\ntoolkits: [gmail, slack, github]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const max = value as number;
    const access = toolkitAccess(doc.data);
    if (access.mode !== 'allow') {
      return [{ ...placeOf(doc.data, '/toolkits'), detail: openAccess(access.mode), hint: `Declare an allowlist of at most ${max}: \`toolkits: {enable: [...]}\`.` }];
    }
    if (access.items.length <= max) return [];
    return [{ pointer: access.listPointer!, key: true, detail: `${access.items.length} toolkits are enabled; at most ${max} are allowed`, hint: 'Split the session, or drop the toolkits it does not need.' }];
  },
};
