import type { ManifestDocument } from '../../../manifest/types.js';
import { joinPointer, valueAt } from '../../pointer.js';
import { mapping } from '../../rule.js';
import type { PolicyKind, Violation } from '../types.js';

/** The lists that name tools a session turns on: each toolkit's allowlist (or bare list) and `preload.tools`. */
function enablingLists(data: unknown): Array<{ pointer: string; label: string }> {
  const lists: Array<{ pointer: string; label: string }> = [];
  for (const [toolkit, filter] of Object.entries(mapping(mapping(data)?.['tools']) ?? {})) {
    if (Array.isArray(filter)) lists.push({ pointer: joinPointer('/tools', toolkit), label: `tools.${toolkit}` });
    else if (mapping(filter)?.['enable'] !== undefined) lists.push({ pointer: joinPointer('/tools', toolkit, 'enable'), label: `tools.${toolkit}.enable` });
  }
  lists.push({ pointer: '/preload/tools', label: 'preload.tools' });
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
    for (const { pointer, label } of enablingLists(doc.data)) {
      const list = valueAt(doc.data, pointer);
      if (!Array.isArray(list)) continue;
      list.forEach((tool, i) => {
        if (typeof tool === 'string' && denied.includes(tool)) {
          out.push({ pointer: joinPointer(pointer, i), key: false, detail: `\`${label}\` turns on \`${tool}\``, hint: `Remove \`${tool}\` from \`${label}\`.` });
        }
      });
    }
    return out;
  },
};
