import type { ManifestDocument } from '../../../manifest/types.js';
import { itemPointer, placeOf, toolkitAccess } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';
import { names, openAccess } from '../words.js';

/** Only these toolkits: every toolkit the manifest enables must be listed, so the manifest needs an allowlist. */
export const allowedToolkits: PolicyKind = {
  name: 'allowed_toolkits',
  example: {
    policy: 'id: finance-toolkits\nmessage: Finance sessions use only the finance toolkits\nfiles: ["teams/finance/**"]\nallowed_toolkits: [quickbooks, stripe, gmail]',
    manifest: 'name: invoices\nuser_id: u-1\ntoolkits:\n  enable: [quickbooks, slack]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const allowed = value as string[];
    const access = toolkitAccess(doc.data);
    const hint = (): string => `Allowed toolkits: ${names(allowed)}.`;
    if (access.mode !== 'allow') {
      const place = placeOf(doc.data, '/toolkits');
      return [{ ...place, detail: openAccess(access.mode), hint: `Declare \`toolkits: {enable: [...]}\` instead. ${hint()}` }];
    }
    return access.items
      .filter((i) => !allowed.includes(i.slug))
      .map((i) => ({ pointer: itemPointer(access, i), key: false, detail: `\`${i.slug}\` is not an allowed toolkit`, hint: `Remove \`${i.slug}\`. ${hint()}` }));
  },
};
