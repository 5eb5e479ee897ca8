/**
 * The catalogue the emulator serves: toolkits (with auth kinds) and tools (with tags and
 * parameters). Built in: the service's 530 toolkits and 885 real tools from the shared data, plus the
 * emulator's own tools for common toolkits (`own-tools.ts`). `--catalog FILE` replaces it with
 * another file of the same shape (`{toolkits: [...], tools: [...]}`).
 */
import type { CatalogData, CatalogTool, CatalogToolkit } from './types.js';
import { ownTools } from './own-tools.js';

export class Catalog {
  readonly toolkits: readonly CatalogToolkit[];
  readonly tools: readonly CatalogTool[];
  private readonly toolkitBySlug = new Map<string, CatalogToolkit>();
  private readonly toolBySlug = new Map<string, CatalogTool>();
  private readonly toolsByToolkit = new Map<string, CatalogTool[]>();

  constructor(data: CatalogData) {
    this.toolkits = [...data.toolkits].sort((x, y) => (x.slug < y.slug ? -1 : x.slug > y.slug ? 1 : 0));
    this.tools = data.tools;
    for (const tk of this.toolkits) this.toolkitBySlug.set(tk.slug, tk);
    for (const t of this.tools) {
      this.toolBySlug.set(t.slug, t);
      const list = this.toolsByToolkit.get(t.toolkit) ?? [];
      list.push(t);
      this.toolsByToolkit.set(t.toolkit, list);
    }
  }

  toolkit(slug: string): CatalogToolkit | undefined {
    return this.toolkitBySlug.get(slug);
  }

  tool(slug: string): CatalogTool | undefined {
    return this.toolBySlug.get(slug);
  }

  toolsOf(toolkit: string): readonly CatalogTool[] {
    return this.toolsByToolkit.get(toolkit) ?? [];
  }

  /** Toolkits that have at least one tool. */
  toolkitsWithTools(): string[] {
    return [...this.toolsByToolkit.keys()].sort();
  }
}

let builtIn: Promise<Catalog> | undefined;

/**
 * The built-in catalogue (built once per process): the vendored shared data (`data/*.json`, byte
 * for byte the shared facts) plus the emulator's own tools. Asynchronous because the data (~500 KB)
 * is imported on first use, not at start-up: the emulator answers its health check before loading it.
 */
export function builtInCatalog(): Promise<Catalog> {
  builtIn ??= Promise.all([import('./data/toolkits.json', { with: { type: 'json' } }), import('./data/tools.json', { with: { type: 'json' } })]).then(
    ([toolkits, tools]) =>
      new Catalog({
        toolkits: toolkits.default.toolkits,
        tools: [...tools.default.tools, ...ownTools],
      }),
  );
  return builtIn;
}

/**
 * Checks a parsed `--catalog` file and builds a catalogue from it. Throws an Error naming the first
 * problem (the CLI turns it into an input error).
 */
export function catalogFromJson(value: unknown): Catalog {
  const fail = (what: string): never => {
    throw new Error(`catalog: ${what}`);
  };
  if (value === null || typeof value !== 'object') fail('expected an object with "toolkits" and "tools" arrays');
  const v = value as { toolkits?: unknown; tools?: unknown };
  if (!Array.isArray(v.toolkits)) fail('"toolkits" must be an array');
  if (!Array.isArray(v.tools)) fail('"tools" must be an array');
  const toolkits: CatalogToolkit[] = [];
  (v.toolkits as unknown[]).forEach((raw, n) => {
    const tk = raw as Partial<CatalogToolkit>;
    if (typeof tk?.slug !== 'string' || tk.slug === '') fail(`toolkits[${n}].slug must be a non-empty string`);
    const noAuth = tk.no_auth === true;
    toolkits.push({
      slug: tk.slug as string,
      name: typeof tk.name === 'string' ? tk.name : (tk.slug as string),
      auth_schemes: Array.isArray(tk.auth_schemes) ? tk.auth_schemes.map(String) : noAuth ? ['NO_AUTH'] : ['OAUTH2'],
      composio_managed_auth_schemes: Array.isArray(tk.composio_managed_auth_schemes) ? tk.composio_managed_auth_schemes.map(String) : [],
      no_auth: noAuth,
      ...(typeof tk.description === 'string' ? { description: tk.description } : {}),
    });
  });
  const known = new Set(toolkits.map((t) => t.slug));
  const tools: CatalogTool[] = [];
  (v.tools as unknown[]).forEach((raw, n) => {
    const t = raw as Partial<CatalogTool>;
    if (typeof t?.slug !== 'string' || t.slug === '') fail(`tools[${n}].slug must be a non-empty string`);
    if (typeof t.toolkit !== 'string' || !known.has(t.toolkit)) fail(`tools[${n}].toolkit must name one of the catalogue's toolkits`);
    const input = (t.input ?? { required: [], properties: {} }) as CatalogTool['input'];
    tools.push({
      slug: t.slug as string,
      name: typeof t.name === 'string' ? t.name : (t.slug as string),
      toolkit: t.toolkit as string,
      tags: Array.isArray(t.tags) ? t.tags.map(String) : [],
      input: { required: Array.isArray(input.required) ? input.required : [], properties: input.properties ?? {} },
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
    });
  });
  return new Catalog({ toolkits, tools });
}
