import type { ManifestDocument } from '../../../manifest/types.js';
import { joinPointer } from '../../../util/json-pointer.js';
import type { PolicyKind, Violation } from '../types.js';
import { asPlainObject } from '../../../util/plain-object.js';

/** The lists that name tools a session turns on: each toolkit's allowlist (or bare list) and `preload.tools`, with their pointers built lazily. */
function enablingLists(data: unknown): Array<{ list: unknown[]; pointer: () => string; label: string }> {
  const lists: Array<{ list: unknown[]; pointer: () => string; label: string }> = [];
  for (const [toolkit, filter] of Object.entries(asPlainObject(asPlainObject(data)?.['tools']) ?? {})) {
    const enable = asPlainObject(filter)?.['enable'];
    if (Array.isArray(filter)) lists.push({ list: filter, pointer: () => joinPointer('/tools', toolkit), label: `tools.${toolkit}` });
    else if (Array.isArray(enable)) lists.push({ list: enable, pointer: () => joinPointer('/tools', toolkit, 'enable'), label: `tools.${toolkit}.enable` });
  }
  const preload = asPlainObject(asPlainObject(data)?.['preload'])?.['tools'];
  if (Array.isArray(preload)) lists.push({ list: preload, pointer: () => '/preload/tools', label: 'preload.tools' });
  return lists;
}

/** Tools a manifest must never turn on by name: in a toolkit's `enable` list or in `preload.tools`. */
export const deniedTools: PolicyKind = {
  name: 'denied_tools',
  example: {
    policy: 'id: no-repo-deletion\nmessage: No agent deletes repositories\ndenied_tools: [GITHUB_DELETE_A_REPOSITORY]',
    manifest: 'name: maintainer\nuser_id: u-1\ntools:\n  github:\n    enable: [GITHUB_GET_A_REPOSITORY, GITHUB_DELETE_A_REPOSITORY]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const denied = value as string[];
    const out: Violation[] = [];
    for (const { list, pointer, label } of enablingLists(doc.data)) {
      list.forEach((tool, i) => {
        if (typeof tool === 'string' && denied.includes(tool)) {
          out.push({ pointer: joinPointer(pointer(), i), key: false, detail: `\`${label}\` turns on \`${tool}\``, hint: `Remove \`${tool}\` from \`${label}\`.` });
        }
      });
    }
    return out;
  },
};
