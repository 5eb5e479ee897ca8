import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, stringList, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * A tag both enabled and disabled in one filter: a tool passes only with an enabled tag and none
 * of the disabled ones, so such a tag can never let a tool through. Checked in the global `tags`
 * and in every toolkit's `tags` under `tools`.
 */
export const tagConflict: DocumentRule = {
  code: 'rule/tag-conflict',
  check(doc: ManifestDocument) {
    const data = asPlainObject(doc.data);
    if (data === undefined) return [];
    const filters: Array<{ pointer: string; label: string; value: unknown }> = [{ pointer: '/tags', label: 'tags', value: data['tags'] }];
    const tools = asPlainObject(data['tools']);
    if (tools !== undefined) {
      for (const [toolkit, filter] of Object.entries(tools)) {
        const tags = asPlainObject(filter)?.['tags'];
        if (tags !== undefined) filters.push({ pointer: joinPointer('/tools', toolkit, 'tags'), label: `tools.${toolkit}.tags`, value: tags });
      }
    }
    const out: Diagnostic[] = [];
    for (const { pointer, label, value } of filters) {
      const filter = asPlainObject(value);
      if (filter === undefined) continue;
      const enabled = stringList(filter['enable']) ?? [];
      const disabled = stringList(filter['disable']) ?? [];
      disabled.forEach((tag, i) => {
        const j = enabled.indexOf(tag);
        if (j < 0) return;
        out.push(
          finding(
            doc,
            this.code,
            joinPointer(pointer, 'disable', i),
            `tag \`${tag}\` is both enabled and disabled in \`${label}\``,
            `Remove \`${tag}\` from one of \`${label}.enable\` and \`${label}.disable\`.`,
            { related: [{ pointer: joinPointer(pointer, 'enable', j), message: `\`${tag}\` is enabled here` }] },
          ),
        );
      });
    }
    return out;
  },
};
