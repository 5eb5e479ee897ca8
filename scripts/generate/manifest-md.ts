/**
 * `docs/manifest.md`: the manifest reference, generated from the JSON Schema so that it cannot
 * drift from what `validate` enforces (a test compares it with the committed file).
 */

/** The parts of a draft-07 schema this generator reads. */
export interface SchemaNode {
  $ref?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  definitions?: Record<string, SchemaNode>;
}

interface Entry {
  /** `toolkits.enable`, `tools.<toolkit>`, `experimental.custom_tools[].slug`. */
  path: string;
  depth: number;
  node: SchemaNode;
  required: boolean;
}

/** The mark the schema's descriptions carry for fields added to v3 after the 13-endpoint spec. */
const laterMark = /\(?later v3 field[^)]*\)?/i;

export function manifestMarkdown(schema: SchemaNode): string {
  const entries: Entry[] = [];
  const root = resolve(schema, schema);
  collect(schema, root, '', 0, entries, new Set());
  const out: string[] = [
    `# Manifest reference`,
    '',
    '<!-- Generated from schemas/session-manifest.schema.json by `npm run generate`; do not edit by hand. -->',
    '',
    root.description ?? '',
    '',
    'Add this first line to a manifest and editors with yaml-language-server (VS Code\'s YAML extension,',
    'Neovim, JetBrains) complete and check it as you type:',
    '',
    '```yaml',
    '# yaml-language-server: $schema=../schemas/session-manifest.schema.json',
    '```',
    '',
    'The path is relative to the manifest: point it at a copy written by `sessionctl schema > schemas/session-manifest.schema.json`',
    'or at `node_modules/sessionctl/schemas/session-manifest.schema.json`. Any string',
    'value may use `${VAR}` or `${VAR:-default}`, expanded from the environment before validation.',
    'Fields marked **later v3** were added to the service after the 13-endpoint specification.',
    '',
    '| Field | Type | Required | Description |',
    '|---|---|---|---|',
    ...entries.map(
      (e) =>
        `| [\`${e.path}\`](#${anchor(e.path)}) | ${typeOf(schema, e.node, e.path)} | ${e.required ? 'yes' : ''} | ${cell(firstSentence(e.node.description ?? ''))}${isLater(e.node) ? ' **later v3**' : ''} |`,
    ),
  ];
  for (const e of entries) {
    out.push('', `<a id="${anchor(e.path)}"></a>`, '', `${e.depth === 0 ? '##' : '###'} \`${e.path}\``, '');
    const facts = [`Type: ${typeOf(schema, e.node, e.path)}`, e.required ? 'required' : 'optional'];
    if (e.node.default !== undefined) facts.push(`default: \`${JSON.stringify(e.node.default)}\``);
    if (isLater(e.node)) facts.push('**later v3 field**');
    out.push(`${facts.join(' · ')}.`, '');
    if (e.node.description !== undefined) out.push(e.node.description.replace(laterMark, '').trim(), '');
    const constraints = constraintsOf(schema, e.node);
    if (constraints.length > 0) out.push(`Constraints: ${constraints.join('; ')}.`, '');
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '')}\n`;
}

function collect(schema: SchemaNode, node: SchemaNode, path: string, depth: number, out: Entry[], seen: Set<string>): void {
  for (const [key, raw] of Object.entries(node.properties ?? {})) {
    const child = resolve(schema, raw);
    const childPath = path === '' ? key : `${path}.${key}`;
    out.push({ path: childPath, depth, node: child, required: (node.required ?? []).includes(key) });
    descend(schema, raw, child, childPath, depth + 1, out, seen);
  }
}

/** Walks into an object's properties, a map's values and an array's object items. */
function descend(schema: SchemaNode, raw: SchemaNode, node: SchemaNode, path: string, depth: number, out: Entry[], seen: Set<string>): void {
  // A schema that refers to itself (none does today) would otherwise recurse forever.
  if (raw.$ref !== undefined) {
    if (seen.has(raw.$ref)) return;
    seen = new Set(seen).add(raw.$ref);
  }
  collect(schema, node, path, depth, out, seen);
  if (typeof node.additionalProperties === 'object') {
    const value = resolve(schema, node.additionalProperties);
    const key = mapKeyName(path);
    const valuePath = `${path}.<${key}>`;
    if (value.properties !== undefined) {
      out.push({ path: valuePath, depth, node: value, required: false });
      descend(schema, node.additionalProperties, value, valuePath, depth + 1, out, seen);
    }
  }
  if (node.items !== undefined) {
    const item = resolve(schema, node.items);
    if (item.properties !== undefined && hasType(node, 'array') && !hasType(node, 'object')) {
      descend(schema, node.items, item, `${path}[]`, depth, out, seen);
    }
  }
}

function mapKeyName(path: string): string {
  const last = path.split('.').pop() ?? path;
  if (['tools', 'auth_configs', 'connected_accounts'].includes(last)) return 'toolkit';
  if (last === 'overrides') return 'tool:account';
  return 'key';
}

/** Merges `$ref` (and `allOf` members) into the node; the node's own keywords win. */
function resolve(schema: SchemaNode, node: SchemaNode): SchemaNode {
  let merged: SchemaNode = { ...node };
  if (node.$ref !== undefined) {
    const target = lookup(schema, node.$ref);
    const { $ref: _ref, ...own } = node;
    merged = { ...resolve(schema, target), ...own };
  }
  if (merged.allOf !== undefined) {
    for (const part of merged.allOf) merged = { ...resolve(schema, part), ...merged };
  }
  return merged;
}

function lookup(schema: SchemaNode, ref: string): SchemaNode {
  const match = /^#\/definitions\/(.+)$/.exec(ref);
  const target = match?.[1] !== undefined ? schema.definitions?.[match[1]] : undefined;
  if (target === undefined) throw new Error(`manifest docs: cannot resolve ${ref}`);
  return target;
}

function hasType(node: SchemaNode, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type));
}

function typeOf(schema: SchemaNode, node: SchemaNode, path = ''): string {
  const types = node.type === undefined ? (node.enum !== undefined ? ['enum'] : []) : Array.isArray(node.type) ? node.type : [node.type];
  const shown = types.map((t) => {
    if (t === 'array' && node.items !== undefined) {
      const item = resolve(schema, node.items);
      const itemType = item.enum !== undefined ? 'tag' : Array.isArray(item.type) ? item.type.join(' | ') : (item.type ?? 'any');
      return `list of ${itemType}`;
    }
    if (t === 'object' && typeof node.additionalProperties === 'object') {
      return `map of ${mapKeyName(path)} to ${typeOf(schema, resolve(schema, node.additionalProperties), `${path}.<>`)}`;
    }
    return t;
  });
  return shown.length === 0 ? 'any' : shown.join(' or ');
}

function constraintsOf(schema: SchemaNode, node: SchemaNode): string[] {
  const c: string[] = [];
  const values = node.enum ?? (node.items !== undefined ? resolve(schema, node.items).enum : undefined);
  if (values !== undefined) c.push(`one of ${values.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (node.format !== undefined) c.push(`format ${node.format}`);
  if (node.pattern !== undefined) c.push(`pattern \`${node.pattern}\``);
  if (node.minLength !== undefined && node.minLength > 1) c.push(`at least ${node.minLength} characters`);
  if (node.minLength === 1) c.push('not empty');
  if (node.maxLength !== undefined) c.push(`at most ${node.maxLength} characters`);
  if (node.minimum !== undefined) c.push(`minimum ${node.minimum}`);
  if (node.maximum !== undefined) c.push(`maximum ${node.maximum}`);
  if (node.exclusiveMinimum !== undefined) c.push(`greater than ${node.exclusiveMinimum}`);
  if (node.exclusiveMaximum !== undefined) c.push(`less than ${node.exclusiveMaximum}`);
  if (node.minItems !== undefined) c.push(`at least ${node.minItems} items`);
  if (node.maxItems !== undefined) c.push(`at most ${node.maxItems} items`);
  if (node.uniqueItems === true) c.push('no duplicates');
  if (node.maxProperties !== undefined) c.push(`at most ${node.maxProperties} ${node.maxProperties === 1 ? "key" : "keys"}`);
  if (node.required !== undefined && node.required.length > 0) c.push(`requires ${node.required.map((k) => `\`${k}\``).join(', ')}`);
  if (node.items !== undefined && hasType(node, 'array')) {
    const item = resolve(schema, node.items);
    if (item.pattern !== undefined) c.push(`each item matches \`${item.pattern}\``);
    if (item.maxLength !== undefined) c.push(`each item at most ${item.maxLength} characters`);
  }
  if (typeof node.additionalProperties === 'object') {
    const value = resolve(schema, node.additionalProperties);
    if (value.pattern !== undefined) c.push(`each value matches \`${value.pattern}\``);
    const valueEnum = value.enum;
    if (valueEnum !== undefined) c.push(`each value one of ${valueEnum.map((v) => `\`${String(v)}\``).join(', ')}`);
  }
  return c;
}

function isLater(node: SchemaNode): boolean {
  return laterMark.test(node.description ?? '');
}

/** GitHub's heading anchors drop punctuation inconsistently; explicit ids are stable. */
function anchor(path: string): string {
  return path.replace(/[^A-Za-z0-9_]+/g, '-').replace(/^-|-$/g, '').toLowerCase();
}

function firstSentence(text: string): string {
  const plain = text.replace(laterMark, '').trim();
  const m = /^(.*?[.!?])(\s|$)/.exec(plain);
  return m?.[1] ?? plain;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
