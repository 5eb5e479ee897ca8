import { manifestMarkdown, type SchemaNode } from './manifest-md.js';
import { rulesMarkdown } from './rules-md.js';

export { manifestMarkdown, rulesMarkdown };

/**
 * Every generated reference page, keyed by its path in the repository. `npm run docs` writes
 * them; a test regenerates them in memory and fails when a committed page is out of date.
 */
export function generatedDocs(schema: SchemaNode): Record<string, string> {
  return {
    'docs/manifest.md': manifestMarkdown(schema),
    'docs/rules.md': rulesMarkdown(),
  };
}
