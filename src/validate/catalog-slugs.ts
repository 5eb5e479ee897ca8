import type { Catalog } from '../catalog/catalog.js';
import { didYouMean } from './did-you-mean.js';
import { joinPointer } from '../util/json-pointer.js';
import { has } from './rule.js';
import type { CatalogSlugs, NamedSlug } from './slug-types.js';
import { asPlainObject } from '../util/plain-object.js';

export type { CatalogSlugs, NamedSlug } from './slug-types.js';

/** Keys of the toolkit-keyed sections that are keywords, not toolkits (`rule/misplaced-key` reports them). */
export const KEYWORDS = new Set(['enable', 'disable', 'tags']);

const SLUG = /^[A-Za-z0-9_-]+$/;

/** Slugs the schema refuses (bad characters, `__proto__`): the schema's finding is enough. */
function plausible(slug: string): boolean {
  return SLUG.test(slug) && slug !== '__proto__' && slug !== 'constructor' && slug !== 'prototype';
}

export function catalogSlugs(data: unknown): CatalogSlugs {
  return { toolkits: toolkitSlugs(data), tools: toolSlugs(data) };
}

/** The sections whose keys are toolkit slugs. */
export const TOOLKIT_SECTIONS = ['tools', 'auth_configs', 'connected_accounts'] as const;

export function slugPointer(s: NamedSlug): string {
  return joinPointer(s.parent, s.index ?? s.slug);
}

/** Every toolkit slug a document names, with where: list items (values) and section keys. */
export function toolkitSlugs(data: unknown): NamedSlug[] {
  const root = asPlainObject(data);
  if (root === undefined) return [];
  const out: NamedSlug[] = [];
  const list = (parent: string, value: unknown): void => {
    if (Array.isArray(value)) value.forEach((slug, index) => typeof slug === 'string' && out.push({ slug, parent, index }));
  };
  const toolkits = root['toolkits'];
  if (Array.isArray(toolkits)) list('/toolkits', toolkits);
  else for (const k of ['enable', 'disable']) list(`/toolkits/${k}`, asPlainObject(toolkits)?.[k]);
  const custom = customToolkits(root);
  for (const section of TOOLKIT_SECTIONS) {
    for (const slug of Object.keys(asPlainObject(root[section]) ?? {})) {
      if (!KEYWORDS.has(slug)) out.push({ slug, parent: `/${section}` });
    }
  }
  return out.filter((s) => !custom.has(s.slug) && plausible(s.slug));
}

const none: ReadonlySet<string> = new Set();

/** The slugs of `experimental.custom_toolkits`: the project's own, never in the catalogue. */
function customToolkits(root: Record<string, unknown>): ReadonlySet<string> {
  const list = asPlainObject(root['experimental'])?.['custom_toolkits'];
  if (!Array.isArray(list)) return none;
  return new Set(list.map((t) => asPlainObject(t)?.['slug']).filter((s): s is string => typeof s === 'string'));
}

/** The tool slugs listed under each toolkit of `tools` (bare list, `enable` or `disable`). */
export function toolSlugs(data: unknown): Array<NamedSlug & { toolkit: string }> {
  const out: Array<NamedSlug & { toolkit: string }> = [];
  for (const [toolkit, filter] of Object.entries(asPlainObject(asPlainObject(data)?.['tools']) ?? {})) {
    if (KEYWORDS.has(toolkit) || !plausible(toolkit)) continue;
    const obj = asPlainObject(filter);
    const lists: Array<[string, unknown]> = Array.isArray(filter)
      ? [['', filter]]
      : obj === undefined
        ? []
        : (['enable', 'disable'] as const).filter((k) => has(obj, k)).map((k): [string, unknown] => [k, obj[k]]);
    for (const [key, list] of lists) {
      if (!Array.isArray(list)) continue;
      const parent = key === '' ? joinPointer('/tools', toolkit) : joinPointer('/tools', toolkit, key);
      list.forEach((slug, index) => typeof slug === 'string' && plausible(slug) && out.push({ toolkit, slug, parent, index }));
    }
  }
  return out;
}

/** Whether a document names any toolkit or tool: only then is the catalogue loaded. */
export function namesCatalogSlugs(data: unknown): boolean {
  const root = asPlainObject(data);
  if (root === undefined) return false;
  return ['toolkits', 'preload', ...TOOLKIT_SECTIONS].some((k) => has(root, k));
}

/**
 * Suggestions are remembered: bulk runs meet the same few misspellings in thousands of files,
 * and a tool suggestion compares against every tool of the toolkit (hundreds for github). Per
 * catalogue: a process that checks two projects (the library) must not answer one with the
 * other's slugs.
 */
const suggestions = new WeakMap<Catalog, Map<string, string | undefined>>();

/**
 * Suggestions a document may cost: each compares the slug with every candidate (hundreds), and a
 * hostile 500 KB flow list of 70,000 unknown slugs cost 70,000 of them (minutes). Past the
 * budget an unknown slug still gets its finding, with the hint that says how to check it; a
 * document with a hundred misspellings is not one a suggestion helps. Remembered answers are free.
 */
export const SUGGESTIONS_PER_DOCUMENT = 100;

/** What one rule may still spend on one document; `suggest` takes from it. */
export interface SuggestionBudget {
  left: number;
}

export function suggestionBudget(): SuggestionBudget {
  return { left: SUGGESTIONS_PER_DOCUMENT };
}

export function suggest(catalog: Catalog, kind: string, input: string, candidates: () => readonly string[], budget: SuggestionBudget = { left: Infinity }): string | undefined {
  let remembered = suggestions.get(catalog);
  if (remembered === undefined) suggestions.set(catalog, (remembered = new Map()));
  const key = `${kind}\0${input}`;
  if (remembered.has(key)) return remembered.get(key);
  if (budget.left <= 0) return undefined;
  budget.left--;
  const found = didYouMean(input, candidates());
  if (remembered.size < 10_000) remembered.set(key, found);
  return found;
}

/** The toolkit whose slug prefixes a tool slug (`GMAIL_SEND_EMAIL` -> `gmail`), longest first. */
export function toolkitByPrefix(catalog: Catalog, tool: string): string | undefined {
  const lower = tool.toLowerCase();
  for (let cut = lower.lastIndexOf('_'); cut > 0; cut = lower.lastIndexOf('_', cut - 1)) {
    const slug = lower.slice(0, cut);
    if (catalog.toolkit(slug) !== undefined) return slug;
  }
  return undefined;
}
