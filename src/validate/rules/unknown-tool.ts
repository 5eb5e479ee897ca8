import type { Catalog } from '../../catalog/catalog.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { slugPointer, suggest, suggestionBudget, toolkitByPrefix, type CatalogSlugs, type SuggestionBudget } from '../catalog-slugs.js';
import { valueAt } from '../pointer.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, type CatalogRule } from '../rule.js';

/** A hint with the closest tool of the toolkit (and that tool, the fix), or how to list them. */
function hintFor(catalog: Catalog, toolkit: string, slug: string, budget: SuggestionBudget): { hint: string; guess?: string } {
  // Written in lower case, another toolkit's tool is no near miss of this toolkit's tools.
  const owner = catalog.tool(slug.toUpperCase())?.toolkit;
  if (owner !== undefined && owner !== toolkit) return { hint: `Tool slugs are upper case: \`${slug.toUpperCase()}\` is a tool of \`${owner}\`; list it under \`tools.${owner}\`.` };
  const guess = suggest(catalog, `tool:${toolkit}`, slug, () => catalog.toolsOf(toolkit).map((t) => t.slug), budget);
  return guess !== undefined ? { hint: `Did you mean \`${guess}\`?`, guess } : { hint: `Check the slug; if the tool is newer than the bundled catalogue, pass a current one with \`--catalog FILE\`.` };
}

/**
 * A tool slug that the catalogue does not list: under `tools.<toolkit>`, and in `preload.tools`.
 * Only toolkits whose tools the catalogue lists are checked (the bundled one lists tools for a
 * few dozen toolkits; the others' tools are unknown, not wrong). A tool that exists under another
 * toolkit is `catalog/tool-wrong-toolkit`'s.
 */
export const unknownTool: CatalogRule = {
  code: 'catalog/unknown-tool',
  check(doc: ManifestDocument, catalog: Catalog, slugs: CatalogSlugs) {
    const out: Diagnostic[] = [];
    const budget = suggestionBudget();
    for (const t of slugs.tools) {
      if (catalog.tool(t.slug) !== undefined || catalog.toolsOf(t.toolkit).length === 0) continue;
      const { hint, guess } = hintFor(catalog, t.toolkit, t.slug, budget);
      out.push(finding(doc, this.code, slugPointer(t), `\`${t.slug}\` is not a tool of \`${t.toolkit}\` in the catalogue`, hint, { replacement: guess }));
    }
    const preload = valueAt(doc.data, '/preload/tools');
    if (Array.isArray(preload)) {
      preload.forEach((slug, i) => {
        // Meta tools (COMPOSIO_*) are the schema's and the service's business, not the catalogue's.
        if (typeof slug !== 'string' || slug.startsWith('COMPOSIO_') || catalog.tool(slug) !== undefined) return;
        const toolkit = toolkitByPrefix(catalog, slug);
        if (toolkit === undefined || catalog.toolsOf(toolkit).length === 0) return;
        const { hint, guess } = hintFor(catalog, toolkit, slug, budget);
        out.push(finding(doc, this.code, joinPointer('/preload/tools', i), `\`${slug}\` is not a tool of \`${toolkit}\` in the catalogue`, hint, { replacement: guess }));
      });
    }
    return out;
  },
};
