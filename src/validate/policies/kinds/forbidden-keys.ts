import type { ManifestDocument } from '../../../manifest/types.js';
import { dottedPath } from '../../pointer.js';
import { expandPointer } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';

/** Keys a manifest must not declare at all; `*` stands for any key (`tools.*.tags`). */
export const forbiddenKeys: PolicyKind = {
  name: 'forbidden_keys',
  example: {
    policy: 'id: no-custom-tools\nmessage: Custom tools go through a security review first\nforbidden_keys: [experimental.custom_tools, experimental.custom_toolkits]',
    manifest: 'name: helper\nuser_id: u-1\nexperimental:\n  custom_tools: []',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    return (value as string[]).flatMap((path) =>
      expandPointer(doc.data, path).map((pointer) => ({
        pointer,
        key: true,
        detail: `\`${dottedPath(pointer, doc.data)}\` must not be declared`,
        hint: `Remove \`${dottedPath(pointer, doc.data)}\`.`,
      })),
    );
  },
};
