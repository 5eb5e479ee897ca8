import { describe, expect, it } from 'vitest';
import { operationsOf, toJsonSchema } from '../../../scripts/generate/openapi-to-json-schema.js';

describe('OpenAPI 3.0 -> JSON Schema', () => {
  it.each([
    ['nullable type', { type: 'string', nullable: true }, { type: ['string', 'null'] }],
    ['nullable enum', { type: 'string', enum: ['a'], nullable: true }, { type: ['string', 'null'], enum: ['a', null] }],
    ['nullable without type', { nullable: true, properties: {} }, { anyOf: [{ properties: {} }, { type: 'null' }] }],
    ['boolean exclusiveMinimum', { type: 'number', minimum: 0, exclusiveMinimum: true }, { type: 'number', exclusiveMinimum: 0 }],
    ['boolean exclusiveMaximum false', { type: 'number', maximum: 9, exclusiveMaximum: false }, { type: 'number', maximum: 9 }],
    ['drops examples and x- keys', { type: 'string', example: 'x', 'x-experimental': true }, { type: 'string' }],
    ['nested', { type: 'array', items: { type: 'integer', nullable: true } }, { type: 'array', items: { type: ['integer', 'null'] } }],
  ])('%s', (_name, input, output) => {
    expect(toJsonSchema(input, {})).toEqual(output);
  });

  it('inlines local $refs and refuses recursion', () => {
    const root = { components: { schemas: { A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } }, B: { type: 'string' }, R: { $ref: '#/components/schemas/R' } } } };
    expect(toJsonSchema({ $ref: '#/components/schemas/A' }, root)).toEqual({ type: 'object', properties: { b: { type: 'string' } } });
    expect(() => toJsonSchema({ $ref: '#/components/schemas/R' }, root)).toThrow(/recursive/);
    expect(() => toJsonSchema({ $ref: 'other.json#/x' }, root)).toThrow(/only local/);
  });

  it('collects operations: success status, path params always required, empty GET bodies dropped', () => {
    const doc = {
      paths: {
        '/s/{id}': {
          get: {
            operationId: 'getS',
            parameters: [
              { name: 'id', in: 'path', required: false, schema: { type: 'string' } },
              { name: 'q', in: 'query', schema: { type: 'integer' } },
            ],
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: {} } } } },
            responses: { '200': { content: { 'application/json': { schema: { type: 'object' } } } }, '404': { content: { 'application/json': { schema: { type: 'object', properties: { error: {} } } } } } },
          },
        },
      },
    };
    const op = operationsOf(doc)['getS'];
    expect(op).toMatchObject({ method: 'GET', path: '/s/{id}', successStatus: 200 });
    expect(op?.body).toBeUndefined();
    expect(op?.pathParams).toEqual({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false });
    expect(op?.query).toEqual({ type: 'object', properties: { q: { type: 'integer' } }, required: [], additionalProperties: true });
  });
});
