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

/** Adds each field to a copy of `body` (a converted JSON Schema). */
function withFields(body: JsonSchema, fields: typeof laterCreateFields): JsonSchema {
  const out = structuredClone(body);
  for (const field of fields) {
    let node: JsonSchema = out;
    for (const key of field.at) node = (node['properties'] as Record<string, JsonSchema>)[key] as JsonSchema;
    const props = (node['properties'] ??= {}) as Record<string, JsonSchema>;
    props[field.name] = field.schema;
  }
  return out;
}

/** The contract's operations with the later v3 create fields added, and the v3 PATCH. Does not modify its input. */
export function withLaterFields(ops: Readonly<Record<string, OperationSchemas>>): Record<string, OperationSchemas> {
  const out: Record<string, OperationSchemas> = { ...ops };
  const create = ops[CREATE_OPERATION];
  if (create?.body === undefined) return out;
  const body = withFields(create.body, laterCreateFields);
  out[CREATE_OPERATION] = { ...create, body };
  const get = ops['getToolRouterSessionBySessionId'];
  if (get !== undefined) out[UPDATE_OPERATION_V3] = v3Update(body, get);
  return out;
}

export const UPDATE_OPERATION_V3 = 'patchToolRouterSessionBySessionId';
export const CREATE_OPERATION_V31 = 'postToolRouterSessionV31';
export const UPDATE_OPERATION_V31 = 'patchToolRouterSessionBySessionIdV31';
const PROXY_OPERATION_V31 = 'postToolRouterSessionBySessionIdProxyExecuteV31';

/** The keys a PATCH may carry besides the config's own: optimistic concurrency (api facts §7). */
const expectedVersion: JsonSchema = { type: 'integer', minimum: 1 };

/** A JSON Schema that also admits `null` (PATCH: `null` removes a stored override). */
function nullable(schema: JsonSchema): JsonSchema {
  const t = schema['type'];
  if (typeof t === 'string') return { ...schema, type: [t, 'null'] };
  if (Array.isArray(t)) return t.includes('null') ? schema : { ...schema, type: [...t, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Every top-level key nullable, `manage_connections.callback_url` too; the object closed; `expected_config_version` added. */
function updateBody(from: JsonSchema, drop: readonly string[]): JsonSchema {
  const props: Record<string, JsonSchema> = {};
  for (const [name, sub] of Object.entries(from['properties'] as Record<string, JsonSchema>)) {
    if (drop.includes(name)) continue;
    props[name] = nullable(structuredClone(sub));
  }
  const mc = props['manage_connections'];
  const mcProps = mc?.['properties'] as Record<string, JsonSchema> | undefined;
  if (mcProps?.['callback_url'] !== undefined) mcProps['callback_url'] = nullable(mcProps['callback_url']);
  props['expected_config_version'] = expectedVersion;
  return { type: 'object', properties: props, additionalProperties: false };
}

/**
 * PATCH /api/v3/tool_router/session/{id} (api facts §7, DOCV3): the v3 contract predates it. Its
 * body is the v3 create body without `user_id` and without `experimental` (custom tools cannot be
 * changed; the v3 PATCH's experimental keys are not modelled), every key nullable, closed.
 */
function v3Update(createBody: JsonSchema, get: OperationSchemas): OperationSchemas {
  return {
    operationId: UPDATE_OPERATION_V3,
    method: 'PATCH',
    path: get.path,
    successStatus: 200,
    body: updateBody(createBody, ['user_id', 'experimental']),
    ...(get.pathParams === undefined ? {} : { pathParams: get.pathParams }),
    response: get.response,
    error: get.error,
  };
}

/**
 * Fields and checks the v3.1 contract (derived from the rc.6 client's types) lacks:
 * - create and PATCH accept the OAS3 fields sessionctl's manifest accepts on v3
 *   (`workbench.enable_tool_execution`, `experimental.fast_mode`, `experimental.submit_feedback`);
 * - PATCH keys are nullable (api facts §7: `null` removes an override), the body is closed (no
 *   `user_id`, no custom tools) and carries `expected_config_version`;
 * - session ids have the `trs_` format, so a malformed one is a 400, as on v3;
 * - `multi_account.max_accounts_per_toolkit` is an integer 2..10, as on v3 (`tightenedV31Fields`);
 * - proxy_execute's deprecated `custom_connection_data` (a union over 14 auth schemes, api facts
 *   §2.6) is only checked to be an object: the emulator never uses it, and its full schema would
 *   triple the size of the generated validators.
 */
export const laterV31Fields: ReadonlyArray<{ at: readonly string[]; name: string; schema: JsonSchema }> = laterCreateFields.filter(
  (f) => (f.at[0] === 'workbench' && f.name === 'enable_tool_execution') || (f.at[0] === 'experimental' && (f.name === 'fast_mode' || f.name === 'submit_feedback')),
);

/**
 * Constraints the service documents in words that the rc.6 types cannot carry: v3's contract has
 * them as schema (`multi_account.max_accounts_per_toolkit` an integer 2..10, "Must be between 2 and
 * 10" in the v3.1 description too), so both versions refuse the same values with the same lines.
 */
export const tightenedV31Fields: ReadonlyArray<{ at: readonly string[]; name: string; schema: JsonSchema }> = [
  {
    at: ['multi_account'],
    name: 'max_accounts_per_toolkit',
    schema: { type: 'integer', minimum: 2, maximum: 10, description: 'Maximum number of connected accounts allowed per toolkit. Must be between 2 and 10.' },
  },
];

export function withLaterV31Fields(ops: Readonly<Record<string, OperationSchemas>>): Record<string, OperationSchemas> {
  const out: Record<string, OperationSchemas> = {};
  for (const [id, op] of Object.entries(ops)) {
    const next: OperationSchemas = { ...op };
    const params = op.pathParams?.['properties'] as Record<string, JsonSchema> | undefined;
    if (params?.['session_id'] !== undefined) {
      next.pathParams = structuredClone(op.pathParams);
      ((next.pathParams as JsonSchema)['properties'] as Record<string, JsonSchema>)['session_id'] = { type: 'string', format: 'toolRouterSessionId' };
    }
    if (id === PROXY_OPERATION_V31 && op.body !== undefined) {
      next.body = structuredClone(op.body);
      (next.body['properties'] as Record<string, JsonSchema>)['custom_connection_data'] = { type: 'object' };
    }
    if (id === CREATE_OPERATION_V31 && op.body !== undefined) next.body = withFields(withFields(op.body, laterV31Fields), tightenedV31Fields);
    if (id === UPDATE_OPERATION_V31 && op.body !== undefined) next.body = updateBody(withFields(withFields(op.body, laterV31Fields), tightenedV31Fields), []);
    out[id] = next;
  }
  return out;
}
