/**
 * Request fields the service accepts on the same v3 routes but that the vendored contract predates
 * (api facts §3: client alpha.66/68 and the newest v3 OpenAPI). The contract's nested objects are
 * closed, so without these the emulator would answer 400 to a manifest that the real service and
 * sessionctl's own schema both accept. Kept to the fields the manifest schema marks as later v3
 * fields; `test/unit/emulator/later-fields.test.ts` holds the two lists together.
 */
import type { JsonSchema, OperationSchemas } from '../../src/emulator/contract/types.js';

export const CREATE_OPERATION = 'postToolRouterSession';

/** Properties to add, by the path of the object (in the create body) that receives them. */
export const laterCreateFields: ReadonlyArray<{ at: readonly string[]; name: string; schema: JsonSchema }> = [
  { at: ['workbench'], name: 'sandbox_size', schema: { type: 'string', enum: ['standard', 'medium', 'large', 'xlarge'] } },
  { at: ['workbench'], name: 'enable_tool_execution', schema: { type: 'boolean' } },
  {
    at: [],
    name: 'preload',
    schema: { type: 'object', additionalProperties: false, properties: { tools: { type: 'array', items: { type: 'string', minLength: 1 } } } },
  },
  {
    at: ['experimental'],
    name: 'permissions',
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        default: { type: 'string', enum: ['allow_all', 'ask_every_call', 'ask_once_per_session'] },
        overrides: { type: 'object', additionalProperties: { type: 'string', enum: ['always_allow', 'always_deny', 'ask_once', 'ask_always'] } },
      },
    },
  },
  { at: ['experimental'], name: 'link_url_overwrite', schema: { type: 'string', format: 'uri' } },
  { at: ['experimental'], name: 'fast_mode', schema: { type: 'boolean' } },
  {
    at: ['experimental'],
    name: 'submit_feedback',
    schema: { type: 'object', additionalProperties: false, properties: { enable: { type: 'boolean' } } },
  },
];

/** The contract's operations with the later v3 create fields added. Does not modify its input. */
export function withLaterFields(ops: Readonly<Record<string, OperationSchemas>>): Record<string, OperationSchemas> {
  const out: Record<string, OperationSchemas> = { ...ops };
  const create = ops[CREATE_OPERATION];
  if (create?.body === undefined) return out;
  const body = structuredClone(create.body);
  for (const field of laterCreateFields) {
    let node: JsonSchema = body;
    for (const key of field.at) node = (node['properties'] as Record<string, JsonSchema>)[key] as JsonSchema;
    const props = (node['properties'] ??= {}) as Record<string, JsonSchema>;
    props[field.name] = field.schema;
  }
  out[CREATE_OPERATION] = { ...create, body };
  return out;
}
