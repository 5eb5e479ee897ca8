/** The slugs of one document that the catalogue rules read, read once. */
export interface CatalogSlugs {
  toolkits: NamedSlug[];
  tools: Array<NamedSlug & { toolkit: string }>;
}

/**
 * A slug a document names: an item of a list (`parent` is the list's pointer, `index` its place),
 * or a key of a section (`parent` is the section's pointer). Pointers are built only for the few
 * slugs that get a finding (`slugPointer`): a bulk run reads thousands of slugs.
 */
export interface NamedSlug {
  slug: string;
  parent: string;
  index?: number;
}
