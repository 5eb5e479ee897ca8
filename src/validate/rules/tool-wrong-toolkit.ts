import type { Catalog } from '../../catalog/catalog.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { slugPointer, type CatalogSlugs } from '../catalog-slugs.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, type CatalogRule } from '../rule.js';

/**
 * A tool listed under a toolkit it does not belong to (`GMAIL_SEND_EMAIL` under `tools.github`):
 * the service refuses the create. The finding names the toolkit the tool belongs to.
 */
export const toolWrongToolkit: CatalogRule = {
  code: 'catalog/tool-wrong-toolkit',
  check(doc: ManifestDocument, catalog: Catalog, slugs: CatalogSlugs) {
    return slugs.tools.flatMap((t) => {
      const owner = catalog.tool(t.slug)?.toolkit;
      if (owner === undefined || owner === t.toolkit || catalog.toolkit(t.toolkit) === undefined) return [];
      return [
        finding(
          doc,
          this.code,
          slugPointer(t),
          `\`${t.slug}\` is a tool of \`${owner}\`, not of \`${t.toolkit}\``,
          `Move it to \`tools.${owner}\` (and make sure \`${owner}\` is enabled in \`toolkits\`).`,
          { related: [{ pointer: joinPointer('/tools', t.toolkit), key: true, message: `the tools of \`${t.toolkit}\`` }] },
        ),
      ];
    });
  },
};
