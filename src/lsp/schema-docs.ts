import { readFileSync } from 'node:fs';
import { packageRoot } from '../version.js';

/** A node of the manifest's JSON Schema, as far as completion and hover read it. */
export interface SchemaNode {
  description?: string;
  $ref?: string;
  allOf?: SchemaNode[];
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
}

let schema: (SchemaNode & { definitions?: Record<string, SchemaNode> }) | undefined;

/** The manifest schema that ships with the package, read on first use. */
function root(): SchemaNode & { definitions?: Record<string, SchemaNode> } {
  schema ??= JSON.parse(readFileSync(new URL('schemas/session-manifest.schema.json', packageRoot), 'utf8')) as SchemaNode;
  return schema;
}

/** A node with its `$ref`s followed, the description of the referring node kept (it is the more specific). */
function resolved(node: SchemaNode | undefined): SchemaNode | undefined {
  let n = node;
  for (let hops = 0; n?.$ref !== undefined && hops < 10; hops++) {
    const target = root().definitions?.[n.$ref.replace('#/definitions/', '')];
    n = target === undefined ? undefined : { ...target, ...(n.description !== undefined ? { description: n.description } : {}) };
  }
  return n;
}

/** The schema of the value at a path of keys (`['tools', 'github']`), or undefined when the schema has no such place. */
export function schemaAt(path: readonly string[]): SchemaNode | undefined {
  let node = resolved(root());
  for (const key of path) {
    const next: SchemaNode | undefined = node?.properties?.[key] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
    node = resolved(next);
  }
  return node;
}

/** The keys a mapping at `path` may have, each with its description. */
export function keysAt(path: readonly string[]): Array<{ key: string; description: string }> {
  const props = schemaAt(path)?.properties ?? {};
  return Object.entries(props).map(([key, node]) => ({ key, description: resolved(node)?.description ?? '' }));
}

/** The allowed values of the scalar at `path` (an `enum`), of a list's items too. */
export function enumAt(path: readonly string[]): string[] {
  const node = schemaAt(path);
  const values = node?.enum ?? resolved(node?.items)?.enum ?? [];
  return values.filter((v): v is string => typeof v === 'string');
}
