/**
 * OpenAPI 3.0 schema objects -> JSON Schema that ajv (draft-07 mode) understands.
 *
 * The contract (`contract/tool-router-v3.openapi.json`) is OpenAPI 3.0, not JSON Schema. Its README
 * lists what has to change before ajv can use it, and this module does exactly that, nothing more:
 * - `nullable: true` becomes a `null` member of `type` (or of `enum`, or an `anyOf` when there is no type);
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` become the numeric draft-06+ form, taking the value
 *   of `minimum`/`maximum`;
 * - local `$ref`s (`#/components/...`) are inlined (the contract has no recursive schemas);
 * - `example`/`examples` and `x-*` vendor keys are dropped (ajv's strict mode rejects them).
 * The custom formats (`toolRouterSessionId`, `authConfigId`, `connectedAccountId`) are registered by
 * whoever compiles the result (see `customFormats`).
 */

import type { JsonSchema, OperationSchemas } from '../../src/emulator/contract/types.js';

export type { JsonSchema, OperationSchemas };

/** Patterns for the contract's custom string formats. Ids are a prefix plus an opaque token. */
export const customFormats: Readonly<Record<string, RegExp>> = {
  toolRouterSessionId: /^trs_[A-Za-z0-9_-]{1,128}$/,
  authConfigId: /^ac_[A-Za-z0-9_-]{1,128}$/,
  connectedAccountId: /^ca_[A-Za-z0-9_-]{1,128}$/,
};

const DROPPED_KEYS = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs']);

/** Converts one OpenAPI schema (resolving `$ref`s against `root`) to a self-contained JSON Schema. */
export function toJsonSchema(schema: unknown, root: unknown, seen: readonly string[] = []): JsonSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return {};
  }
  const src = schema as Record<string, unknown>;
  if (typeof src['$ref'] === 'string') {
    const ref = src['$ref'];
    if (seen.includes(ref)) throw new Error(`recursive $ref ${ref} is not supported`);
    return toJsonSchema(resolveRef(ref, root), root, [...seen, ref]);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(src)) {
    if (DROPPED_KEYS.has(key) || key.startsWith('x-') || key === 'nullable') continue;
    if (key === 'properties' || key === 'patternProperties' || key === 'definitions') {
      const props: Record<string, JsonSchema> = {};
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) props[name] = toJsonSchema(sub, root, seen);
      out[key] = props;
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not' || key === 'propertyNames') {
      out[key] = typeof value === 'boolean' ? value : toJsonSchema(value, root, seen);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      out[key] = (value as unknown[]).map((sub) => toJsonSchema(sub, root, seen));
    } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
      if (typeof value === 'number') out[key] = value;
      // boolean form: handled below together with minimum/maximum
    } else {
      out[key] = value;
    }
  }
  if (src['exclusiveMinimum'] === true && typeof src['minimum'] === 'number') {
    out['exclusiveMinimum'] = src['minimum'];
    delete out['minimum'];
  }
  if (src['exclusiveMaximum'] === true && typeof src['maximum'] === 'number') {
    out['exclusiveMaximum'] = src['maximum'];
    delete out['maximum'];
  }
  if (src['nullable'] === true) return makeNullable(out);
  return out;
}

function makeNullable(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  if (typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    return out;
  }
  if (Array.isArray(out['type'])) {
    if (!out['type'].includes('null')) out['type'] = [...out['type'], 'null'];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') throw new Error(`unresolvable $ref ${ref}`);
    node = (node as Record<string, unknown>)[part];
  }
  if (node === undefined) throw new Error(`unresolvable $ref ${ref}`);
  return node;
}


interface OpenApiDoc {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

/** Every operation of an OpenAPI document, keyed by operationId. */
export function operationsOf(doc: unknown): Record<string, OperationSchemas> {
  const api = doc as OpenApiDoc;
  const out: Record<string, OperationSchemas> = {};
  for (const [path, item] of Object.entries(api.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op === null || typeof op !== 'object' || !('responses' in op)) continue;
      const responses = op['responses'] as Record<string, { content?: Record<string, { schema?: unknown }> }>;
      const successKey = Object.keys(responses).find((s) => /^2\d\d$/.test(s));
      if (successKey === undefined) continue;
      const errorKey = Object.keys(responses).find((s) => /^4\d\d$/.test(s));
      const operationId = String(op['operationId']);
      const entry: OperationSchemas = {
        operationId,
        method: method.toUpperCase(),
        path,
        successStatus: Number(successKey),
        response: toJsonSchema(responses[successKey]?.content?.['application/json']?.schema ?? {}, doc),
        error: toJsonSchema(errorKey === undefined ? {} : (responses[errorKey]?.content?.['application/json']?.schema ?? {}), doc),
      };
      const bodySchema = (op['requestBody'] as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      if (bodySchema !== undefined) {
        const converted = toJsonSchema(bodySchema, doc);
        const props = converted['properties'] as Record<string, unknown> | undefined;
        // GET /tools declares an empty body (a known quirk): treat "no properties" as "no body".
        if (method !== 'get' || (props !== undefined && Object.keys(props).length > 0)) entry.body = converted;
      }
      const params = (op['parameters'] as Array<Record<string, unknown>> | undefined) ?? [];
      for (const where of ['query', 'path'] as const) {
        const list = params.filter((p) => p['in'] === where);
        if (list.length === 0) continue;
        const properties: Record<string, JsonSchema> = {};
        const required: string[] = [];
        for (const p of list) {
          const name = String(p['name']);
          properties[name] = toJsonSchema(p['schema'] ?? {}, doc);
          // Path parameters are always required, whatever the document says (a known quirk).
          if (where === 'path' || p['required'] === true) required.push(name);
        }
        const schema: JsonSchema = { type: 'object', properties, required, additionalProperties: where === 'path' ? false : true };
        if (where === 'query') entry.query = schema;
        else entry.pathParams = schema;
      }
      out[operationId] = entry;
    }
  }
  return out;
}
