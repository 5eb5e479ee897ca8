import type { ManifestDocument } from '../../../manifest/types.js';
import { itemPointer, placeOf, toolkitAccess } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';
import { names, openAccess } from '../words.js';

/** Never these toolkits: an allowlist must not name them, a denylist must name them all. */
export const deniedToolkits: PolicyKind = {
  name: 'denied_toolkits',
  example: {
    policy: 'id: no-code-hosting\nmessage: Support agents never touch source code\ndenied_toolkits: [github, gitlab]',
    manifest: 'name: support\nuser_id: u-1\ntoolkits:\n  disable: [gitlab]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const denied = value as string[];
    const access = toolkitAccess(doc.data);
    if (access.mode === 'allow') {
      return access.items
        .filter((i) => denied.includes(i.slug))
        .map((i) => ({ pointer: itemPointer(access, i), key: false, detail: `\`${i.slug}\` is a denied toolkit`, hint: `Remove \`${i.slug}\` from the allowlist.` }));
    }
    const missing = denied.filter((slug) => !access.items.some((i) => i.slug === slug));
    if (missing.length === 0) return [];
    if (access.mode === 'deny') {
      return [{ pointer: access.listPointer!, key: true, detail: `${names(missing)} ${missing.length === 1 ? 'is' : 'are'} not in the denylist`, hint: `Add ${names(missing)} to \`toolkits.disable\`.` }];
    }
    return [{ ...placeOf(doc.data, '/toolkits'), detail: `${openAccess(access.mode)}, ${names(missing)} included`, hint: `Add \`toolkits: {disable: [${missing.join(', ')}]}\`, or an allowlist without them.` }];
  },
};
