import { joinPointer } from '../util/json-pointer.js';
import { asPlainObject } from '../util/plain-object.js';

type SchemaObject = Record<string, unknown>;

/** The schema to walk for a value: `$ref`s followed and `allOf` reduced to its shape-giving branch. */
const resolvedCache = new WeakMap<SchemaObject, SchemaObject>();

function resolveSchema(root: SchemaObject, schema: SchemaObject): SchemaObject {
  const cached = resolvedCache.get(schema);
  if (cached !== undefined) return cached;
  let current = schema;
  // Local refs only (`#/definitions/x`): the manifest schema has no others.
  for (let hops = 0; typeof current['$ref'] === 'string' && hops < 16; hops++) {
    let target: unknown = root;
    for (const seg of (current['$ref'] as string).replace(/^#\//, '').split('/')) target = asPlainObject(target)?.[seg];
    const next = asPlainObject(target);
    if (next === undefined) break;
    current = next;
  }
  const allOf = current['allOf'];
  if (Array.isArray(allOf)) {
    // Only the first branch that gives the value a type is followed, so a string counts once.
    for (const sub of allOf) {
      const s = asPlainObject(sub);
      if (s !== undefined && resolveSchema(root, s)['type'] !== undefined) {
        current = resolveSchema(root, s);
        break;
      }
    }
  }
  resolvedCache.set(schema, current);
  return current;
}

function allowsString(schema: SchemaObject): boolean {
  const t = schema['type'];
  return t === 'string' || (Array.isArray(t) && t.includes('string'));
}

/**
 * Every pointer in `data` whose value is a string where the schema expects one, and that passes
 * `accept`. YAML 1.1 ambiguities (`on`, `0755`) only matter at such places: where a boolean is
 * expected, `on` is already a type error. The walk follows `properties`, `additionalProperties`,
 * `items`, `allOf` and local `$ref`s, touches each data node once, and builds a pointer only for
 * the strings it returns.
 */
export function stringLocations(root: object, data: unknown, accept: (value: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const path: string[] = [];
  const walk = (schemaIn: SchemaObject, value: unknown): void => {
    const schema = resolveSchema(root as SchemaObject, schemaIn);
    if (typeof value === 'string') {
      if (allowsString(schema) && accept(value)) out.push(joinPointer('', ...path));
      return;
    }
    if (Array.isArray(value)) {
      const items = asPlainObject(schema['items']);
      if (items === undefined) return;
      for (let i = 0; i < value.length; i++) {
        path.push(String(i));
        walk(items, value[i]);
        path.pop();
      }
      return;
    }
    if (value !== null && typeof value === 'object') {
      const props = asPlainObject(schema['properties']);
      const extra = asPlainObject(schema['additionalProperties']);
      for (const key of Object.keys(value)) {
        const sub = props !== undefined && Object.prototype.hasOwnProperty.call(props, key) ? asPlainObject(props[key]) : extra;
        if (sub === undefined) continue;
        path.push(key);
        walk(sub, (value as Record<string, unknown>)[key]);
        path.pop();
      }
    }
  };
  walk(root as SchemaObject, data);
  return out;
}
