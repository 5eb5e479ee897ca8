/**
 * Custom tools and toolkits (api facts §3.6): the final `LOCAL_...` slugs the service gives them,
 * the echo create and attach answer, and the same tools in the catalogue's shape so that search
 * ranks them beside the catalogue's. A custom toolkit slug that collides with a real one is a 400.
 */
import type { CatalogTool } from '../catalog/types.js';
import type { EmulatorState } from './context.js';
import { toolRouterErrors } from './errors.js';

type Custom = Record<string, unknown>;

export function localSlug(...parts: string[]): string {
  return `LOCAL_${parts.map((p) => p.toUpperCase().replace(/[^A-Z0-9_]/g, '_')).join('_')}`.slice(0, 60);
}

/** The custom toolkits and tools of an `experimental` block with their final slugs (and `original_slug`). */
export function customEcho(exp: Record<string, unknown>, state: EmulatorState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const customToolkits = exp['custom_toolkits'] as Custom[] | undefined;
  if (customToolkits !== undefined) {
    const clash = customToolkits.map((t) => String(t['slug'])).filter((slug) => state.catalog.toolkit(slug.toLowerCase()) !== undefined);
    if (clash.length > 0) throw toolRouterErrors.badRequest(`Custom toolkit slugs collide with existing toolkits: ${clash.join(', ')}`);
    out['custom_toolkits'] = customToolkits.map((tk) => ({
      ...tk,
      tools: (tk['tools'] as Custom[]).map((t) => ({ ...t, slug: localSlug(String(tk['slug']), String(t['slug'])), original_slug: t['slug'] })),
    }));
  }
  const customTools = exp['custom_tools'] as Custom[] | undefined;
  if (customTools !== undefined) {
    out['custom_tools'] = customTools.map((t) => ({
      ...t,
      slug: t['extends_toolkit'] === undefined ? localSlug(String(t['slug'])) : localSlug(String(t['extends_toolkit']), String(t['slug'])),
      original_slug: t['slug'],
    }));
  }
  return out;
}

function asCatalogTool(t: Custom, toolkit: string): CatalogTool {
  const schema = (t['input_schema'] ?? {}) as { properties?: CatalogTool['input']['properties']; required?: unknown };
  return {
    slug: String(t['slug']),
    name: `${String(t['name'])} ${String(t['original_slug'] ?? '')}`.trim(),
    toolkit,
    tags: [],
    description: typeof t['description'] === 'string' ? t['description'] : String(t['name']),
    input: {
      properties: schema.properties ?? {},
      required: Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
    },
  };
}

/**
 * An echo's tools in the catalogue's shape: a custom toolkit's tools under its slug (lower-cased,
 * as toolkit slugs are), an extending tool under the toolkit it extends, a standalone tool under
 * no toolkit (''). The original slug is part of the name, so search finds a tool by either slug.
 */
export function customCatalogTools(echo: Record<string, unknown> | undefined): CatalogTool[] {
  if (echo === undefined) return [];
  const tools: CatalogTool[] = [];
  for (const tk of (echo['custom_toolkits'] as Custom[] | undefined) ?? []) {
    for (const t of (tk['tools'] as Custom[] | undefined) ?? []) tools.push(asCatalogTool(t, String(tk['slug']).toLowerCase()));
  }
  for (const t of (echo['custom_tools'] as Custom[] | undefined) ?? []) {
    tools.push(asCatalogTool(t, typeof t['extends_toolkit'] === 'string' ? t['extends_toolkit'] : ''));
  }
  return tools;
}
