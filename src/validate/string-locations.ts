import { joinPointer } from './pointer.js';

type SchemaObject = Record<string, unknown>;

function asSchema(value: unknown): SchemaObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as SchemaObject) : undefined;
}

function resolveRef(root: SchemaObject, schema: SchemaObject): SchemaObject {
  let current = schema;
  // Local refs only (`#/definitions/x`): the manifest schema has no others.
  for (let hops = 0; typeof current['$ref'] === 'string' && hops < 16; hops++) {
    const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
    let target: unknown = root;
    for (const seg of path) target = asSchema(target)?.[seg];
    const next = asSchema(target);
    if (next === undefined) break;
    current = next;
  }
  return current;
}

function allowsString(schema: SchemaObject): boolean {
  const t = schema['type'];
  return t === 'string' || (Array.isArray(t) && t.includes('string'));
}

/**
 * Every pointer in `data` whose value is a string where the schema expects one. YAML 1.1
 * ambiguities (`on`, `0755`) only matter at such places: where a boolean is expected, `on` is
 * already a type error. The walk follows `properties`, `additionalProperties`, `items`, `allOf`
 * and local `$ref`s, and touches each data node once.
 */
export function stringLocations(root: object, data: unknown): string[] {
  const out: string[] = [];
  const walk = (schemaIn: SchemaObject, value: unknown, pointer: string): void => {
    const schema = resolveRef(root as SchemaObject, schemaIn);
    const allOf = schema['allOf'];
    if (Array.isArray(allOf)) {
      // Only the first branch that says anything about the value's shape is followed, so that a
      // string is reported once.
      for (const sub of allOf) {
        const s = asSchema(sub);
        if (s !== undefined && (resolveRef(root as SchemaObject, s)['type'] !== undefined)) return walk(s, value, pointer);
      }
    }
    if (typeof value === 'string') {
      if (allowsString(schema)) out.push(pointer);
      return;
    }
    if (Array.isArray(value)) {
      const items = asSchema(schema['items']);
      if (items !== undefined) value.forEach((item, i) => walk(items, item, joinPointer(pointer, i)));
      return;
    }
    if (value !== null && typeof value === 'object') {
      const props = asSchema(schema['properties']) ?? {};
      const extra = asSchema(schema['additionalProperties']);
      for (const [key, child] of Object.entries(value)) {
        const sub = Object.prototype.hasOwnProperty.call(props, key) ? asSchema(props[key]) : extra;
        if (sub !== undefined) walk(sub, child, joinPointer(pointer, key));
      }
    }
  };
  walk(root as SchemaObject, data, '');
  return out;
}
