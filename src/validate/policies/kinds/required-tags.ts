import type { ManifestDocument } from '../../../manifest/types.js';
import { joinPointer } from '../../../util/json-pointer.js';
import { placeOf, tagFilter, toolEntries, toolkitAccess, usable, type TagFilter } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';
import { names } from '../words.js';

interface RequiredTags {
  enable?: string[];
  disable?: string[];
  toolkits?: string[];
}

/** The violations of one filter (absent: none declared there) for the tags the policy requires. */
function missingIn(doc: ManifestDocument, filter: TagFilter | undefined, at: string, label: string, wanted: RequiredTags): Violation[] {
  const out: Violation[] = [];
  for (const list of ['enable', 'disable'] as const) {
    const required = wanted[list] ?? [];
    const have = filter?.[list].map((e) => e.tag) ?? [];
    const missing = required.filter((t) => !have.includes(t));
    if (missing.length === 0) continue;
    const listPointer = joinPointer(at, list);
    const place = filter !== undefined && filter[list].length > 0 ? { pointer: list === 'enable' && filter.bare ? at : listPointer, key: true, point: false } : placeOf(doc.data, listPointer);
    out.push({
      ...place,
      detail: filter === undefined ? `\`${label}\` is not set, so ${names(missing)} ${list === 'enable' ? 'is not required of tools' : 'tools are not removed'}` : `\`${label}.${list}\` does not include ${names(missing)}`,
      hint: `Add ${names(missing)} to \`${label}.${list}\`.`,
    });
  }
  return out;
}


/**
 * Tag filters that must be in place: `enable` tags a tool must have one of, `disable` tags that
 * remove a tool. A toolkit's own `tools.<toolkit>.tags` overrides the global `tags` for that
 * toolkit, so without `toolkits` the global filter and every toolkit filter must comply; with
 * `toolkits`, the filter in effect for each of those toolkits (its own, else the global one).
 */
export const requiredTags: PolicyKind = {
  name: 'required_tags',
  example: {
    policy: 'id: no-destructive-tools\nmessage: Production sessions never enable destructive tools\nfiles: ["prod/**"]\nrequired_tags:\n  disable: [destructiveHint]',
    manifest: 'name: ops\nuser_id: u-1\ntags:\n  disable: [openWorldHint]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const wanted = value as RequiredTags;
    const global = tagFilter(doc.data);
    if (wanted.toolkits === undefined) {
      const out = missingIn(doc, global, '/tags', 'tags', wanted);
      for (const toolkit of toolEntries(doc.data)) {
        const own = tagFilter(doc.data, toolkit);
        if (own !== undefined) out.push(...missingIn(doc, own, own.pointer, `tools.${toolkit}.tags`, wanted));
      }
      return out;
    }
    const access = toolkitAccess(doc.data);
    return wanted.toolkits.filter((t) => usable(access, t)).flatMap((toolkit) => {
      const own = tagFilter(doc.data, toolkit);
      return own !== undefined ? missingIn(doc, own, own.pointer, `tools.${toolkit}.tags`, wanted) : missingIn(doc, global, '/tags', 'tags', wanted).map((v) => ({ ...v, detail: `for \`${toolkit}\`: ${v.detail}` }));
    });
  },
};
