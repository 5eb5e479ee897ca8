import type { ManifestDocument } from '../../../manifest/types.js';
import { tagFilter, toolEntries } from '../manifest-view.js';
import type { PolicyKind, Violation } from '../types.js';

interface ForbiddenTags {
  enable?: string[];
  disable?: string[];
  toolkits?: string[];
}

/** Tags a manifest must not list: in the global `tags` and every `tools.<toolkit>.tags` (or only the listed toolkits'). */
export const forbiddenTags: PolicyKind = {
  name: 'forbidden_tags',
  example: {
    policy: 'id: no-destructive-opt-in\nmessage: Nobody opts in to destructive tools\nforbidden_tags:\n  enable: [destructiveHint]',
    manifest: 'name: cleanup\nuser_id: u-1\ntools:\n  github:\n    tags:\n      enable: [destructiveHint]',
  },
  check(doc: ManifestDocument, value: unknown): Violation[] {
    const forbidden = value as ForbiddenTags;
    const filters: Array<{ toolkit?: string; label: string }> = [
      ...(forbidden.toolkits === undefined ? [{ label: 'tags' }] : []),
      ...toolEntries(doc.data)
        .filter((t) => forbidden.toolkits === undefined || forbidden.toolkits.includes(t))
        .map((t) => ({ toolkit: t, label: `tools.${t}.tags` })),
    ];
    const out: Violation[] = [];
    for (const { toolkit, label } of filters) {
      const filter = tagFilter(doc.data, toolkit);
      if (filter === undefined) continue;
      for (const list of ['enable', 'disable'] as const) {
        for (const entry of filter[list]) {
          if (!(forbidden[list] ?? []).includes(entry.tag)) continue;
          out.push({ pointer: entry.pointer, key: false, detail: `\`${label}.${list}\` lists \`${entry.tag}\``, hint: `Remove \`${entry.tag}\` from \`${label}.${list}\`.` });
        }
      }
    }
    return out;
  },
};
