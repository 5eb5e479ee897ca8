/**
 * The meta tools a session exposes (api facts §5.1), with input schemas of the emulator's making
 * (the service promises no compatibility for them), and the contract's `Tool` shape for both meta and
 * app tools (GET /tools, search's tool_schemas, COMPOSIO_GET_TOOL_SCHEMAS).
 */
import type { CatalogTool, CatalogToolkit } from '../catalog/types.js';

interface MetaTool {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  input: Record<string, unknown>;
}

const str = { type: 'string' };
const strings = { type: 'array', items: str };

export const metaTools: readonly MetaTool[] = [
  {
    slug: 'COMPOSIO_SEARCH_TOOLS',
    name: 'Search tools',
    description: 'Discover tools for a task; returns plans, tool schemas and connection status.',
    tags: ['important', 'openWorldHint', 'readOnlyHint'],
    input: {
      type: 'object',
      properties: { queries: { type: 'array', items: { type: 'object', properties: { use_case: str, known_fields: str }, required: ['use_case'] } } },
      required: ['queries'],
    },
  },
  {
    slug: 'COMPOSIO_GET_TOOL_SCHEMAS',
    name: 'Get tool schemas',
    description: 'Full input schemas for known tool slugs.',
    tags: ['readOnlyHint'],
    input: { type: 'object', properties: { tool_slugs: strings }, required: ['tool_slugs'] },
  },
  {
    slug: 'COMPOSIO_MULTI_EXECUTE_TOOL',
    name: 'Multi execute tool',
    description: 'Run several discovered tools in parallel (up to 50).',
    tags: ['openWorldHint', 'destructiveHint', 'important'],
    input: {
      type: 'object',
      properties: {
        tools: { type: 'array', maxItems: 50, items: { type: 'object', properties: { tool_slug: str, arguments: { type: 'object' } }, required: ['tool_slug'] } },
      },
      required: ['tools'],
    },
  },
  {
    slug: 'COMPOSIO_MANAGE_CONNECTIONS',
    name: 'Manage connections',
    description: 'Check connections and return an auth link for toolkits that are not connected.',
    tags: ['openWorldHint'],
    input: { type: 'object', properties: { toolkits: strings }, required: ['toolkits'] },
  },
  {
    slug: 'COMPOSIO_WAIT_FOR_CONNECTIONS',
    name: 'Wait for connections',
    description: 'Poll until the user has finished authentication for the given toolkits.',
    tags: [],
    input: { type: 'object', properties: { toolkits: strings, timeout_seconds: { type: 'integer' } }, required: ['toolkits'] },
  },
  {
    slug: 'COMPOSIO_REMOTE_WORKBENCH',
    name: 'Remote workbench',
    description: 'Run Python in a persistent remote sandbox (emulated: the code is not run).',
    tags: ['destructiveHint', 'openWorldHint'],
    input: { type: 'object', properties: { code_to_execute: str }, required: ['code_to_execute'] },
  },
  {
    slug: 'COMPOSIO_REMOTE_BASH_TOOL',
    name: 'Remote bash tool',
    description: 'Run bash in the same sandbox (emulated: the command is not run).',
    tags: ['destructiveHint', 'openWorldHint'],
    input: { type: 'object', properties: { command: str }, required: ['command'] },
  },
  {
    slug: 'COMPOSIO_UPSERT_RECIPE',
    name: 'Upsert recipe',
    description: 'Save a recipe (not available in the emulator).',
    tags: [],
    input: { type: 'object', properties: {} },
  },
  {
    slug: 'COMPOSIO_GET_RECIPE',
    name: 'Get recipe',
    description: 'Read a recipe (not available in the emulator).',
    tags: [],
    input: { type: 'object', properties: {} },
  },
];

const metaBySlug = new Map(metaTools.map((t) => [t.slug, t]));

export function metaTool(slug: string): MetaTool | undefined {
  return metaBySlug.get(slug);
}

const VERSION = '20251201_00';
const logo = (slug: string): string => `https://logos.composio.dev/api/${encodeURIComponent(slug)}`;

/** A catalogue tool's input as a JSON Schema object. */
export function inputSchemaOf(tool: CatalogTool): Record<string, unknown> {
  return { type: 'object', properties: structuredClone(tool.input.properties), required: [...tool.input.required] };
}

function toolShape(
  slug: string,
  name: string,
  description: string,
  toolkit: { slug: string; name: string },
  input: Record<string, unknown>,
  tags: string[],
  noAuth: boolean,
): Record<string, unknown> {
  return {
    slug,
    name,
    description,
    human_description: description,
    toolkit: { slug: toolkit.slug, name: toolkit.name, logo: logo(toolkit.slug) },
    input_parameters: input,
    output_parameters: {
      type: 'object',
      properties: { data: { type: 'object' }, error: { type: ['string', 'null'] }, successful: { type: 'boolean' } },
      required: ['data', 'successful'],
    },
    no_auth: noAuth,
    version: VERSION,
    available_versions: [VERSION],
    scopes: [],
    scope_requirements: null,
    tags: [...tags],
    is_deprecated: false,
    deprecated: { displayName: name, version: VERSION, available_versions: [VERSION], is_deprecated: false, toolkit: { logo: logo(toolkit.slug) } },
  };
}

export function metaToolView(t: MetaTool): Record<string, unknown> {
  return toolShape(t.slug, t.name, t.description, { slug: 'composio', name: 'Composio' }, structuredClone(t.input), t.tags, true);
}

export function appToolView(t: CatalogTool, toolkit: CatalogToolkit | undefined): Record<string, unknown> {
  return toolShape(
    t.slug,
    t.name,
    t.description ?? t.name,
    { slug: t.toolkit, name: toolkit?.name ?? t.toolkit },
    inputSchemaOf(t),
    t.tags,
    toolkit?.no_auth ?? false,
  );
}
