import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { joinPointer } from '../../util/json-pointer.js';
import { before, finding, has, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

const variants = ['enable', 'disable', 'tags'] as const;

/**
 * Each toolkit under `tools` must set exactly one of `enable`, `disable` or `tags` (the service's
 * variants are closed objects; the SDK refuses more than one key). A bare list is the `enable`
 * shorthand and always fine. Unknown keys are the schema's business, so a mapping holding only a
 * misspelt key is not reported twice.
 */
export const toolsVariant: DocumentRule = {
  code: 'rule/tools-variant',
  check(doc: ManifestDocument) {
    const tools = asPlainObject(asPlainObject(doc.data)?.['tools']);
    if (tools === undefined) return [];
    const out: Diagnostic[] = [];
    for (const [toolkit, value] of Object.entries(tools)) {
      const filter = asPlainObject(value);
      if (filter === undefined) continue;
      // In source order, so the finding sits at the later key and names the earlier as related.
      const set = variants.filter((v) => has(filter, v)).sort((a, b) => (before(doc, joinPointer('/tools', toolkit, a), joinPointer('/tools', toolkit, b)) ? -1 : 1));
      const pointer = joinPointer('/tools', toolkit);
      if (set.length > 1) {
        out.push(
          finding(
            doc,
            this.code,
            joinPointer(pointer, set[1]!),
            `\`tools.${toolkit}\` sets ${set.map((s) => `\`${s}\``).join(' and ')}; a toolkit takes exactly one of them`,
            'Use `enable` (only these tools), `disable` (all but these) or `tags` (filter by hint), one per toolkit.',
            { key: true, related: [{ pointer: joinPointer(pointer, set[0]!), key: true, message: `\`${set[0]!}\` is set here` }] },
          ),
        );
      } else if (Object.keys(filter).length === 0) {
        out.push(
          finding(
            doc,
            this.code,
            pointer,
            `\`tools.${toolkit}\` is empty; it must set one of \`enable\`, \`disable\` or \`tags\``,
            `Write for example \`${toolkit}: { enable: [...] }\`, or remove the entry.`,
            { key: true },
          ),
        );
      }
    }
    return out;
  },
};
