import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/project/schema.js';

interface Node {
  description?: string;
  $ref?: string;
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: boolean | Node;
  definitions?: Record<string, Node>;
}

describe('schemas/sessionctl-config.schema.json', () => {
  it('is draft-07 with an $id and a title, ready for SchemaStore', () => {
    const schema = configSchema();
    expect(schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema['$id']).toBe('https://sessionctl.dev/schemas/sessionctl-config.schema.json');
    expect(schema['title']).toBeTruthy();
  });

  it('describes every property, at every depth', () => {
    const missing: string[] = [];
    const walk = (node: Node | undefined, path: string): void => {
      if (node === undefined) return;
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        if (child.description === undefined && child.$ref === undefined) missing.push(`${path}${key}`);
        walk(child, `${path}${key}.`);
      }
      if (node.items !== undefined) walk(node.items, `${path}[].`);
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}*.`);
    };
    const schema = configSchema() as Node;
    walk(schema, '');
    for (const [name, def] of Object.entries(schema.definitions ?? {})) {
      if (def.description === undefined) missing.push(`#/definitions/${name}`);
      walk(def, `#/definitions/${name}.`);
    }
    expect(missing).toEqual([]);
  });
});
