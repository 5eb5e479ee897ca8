/** The catalogue's data shapes: the same as `../shared/data/*.json` (and the `--catalog FILE` format). */

export type ToolTag = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

export interface CatalogToolkit {
  slug: string;
  name: string;
  auth_schemes: string[];
  composio_managed_auth_schemes: string[];
  no_auth: boolean;
  description?: string;
}

export interface CatalogParameter {
  type: string;
  description?: string;
}

export interface CatalogTool {
  slug: string;
  name: string;
  toolkit: string;
  tags: string[];
  description?: string;
  input: { required: string[]; properties: Record<string, CatalogParameter> };
}

/** A catalogue file: `{ "toolkits": [...], "tools": [...] }`. */
export interface CatalogData {
  toolkits: CatalogToolkit[];
  tools: CatalogTool[];
}
