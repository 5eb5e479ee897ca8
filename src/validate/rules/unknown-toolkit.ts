import type { Catalog } from '../../catalog/catalog.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { slugPointer, suggest, suggestionBudget, type CatalogSlugs } from '../catalog-slugs.js';
import { finding, type CatalogRule } from '../rule.js';

/**
 * A toolkit slug the catalogue does not know, wherever the manifest names one: `toolkits`, and
 * the keys of `tools`, `auth_configs` and `connected_accounts`. The service refuses the whole
 * create (HTTP 400) for one unknown slug, so `gitub` is worth a finding before apply.
 */
export const unknownToolkit: CatalogRule = {
  code: 'catalog/unknown-toolkit',
  check(doc: ManifestDocument, catalog: Catalog, slugs: CatalogSlugs) {
    const budget = suggestionBudget();
    return slugs.toolkits
      .filter((s) => catalog.toolkit(s.slug) === undefined)
      .map((s) => {
        const guess = suggest(catalog, 'toolkit', s.slug, () => catalog.toolkits.map((t) => t.slug), budget);
        return finding(
          doc,
          this.code,
          slugPointer(s),
          `toolkit \`${s.slug}\` is not in the catalogue`,
          guess !== undefined ? `Did you mean \`${guess}\`?` : 'Check the slug; if the toolkit is newer than the bundled catalogue, pass a current one with `--catalog FILE`.',
          { key: s.index === undefined, replacement: guess },
        );
      });
  },
};
