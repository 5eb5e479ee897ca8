// Derives contract/tool-router-v3.1.openapi.json from the TypeScript types that
// @composio/client@2.0.0-rc.6 ships (devDependency alias @composio/client-v2): for each v3.1 Tool
// Router operation (and the connected-account read), its request types and success response type
// are read with the TypeScript compiler's type checker and written as OpenAPI 3.0 schemas. Nothing
// of the client's code is copied; the types are only read. Run it again after a client upgrade:
//   node contract/derive-v3.1.mjs
// then `npm run generate` to rebuild the emulator's validators from the new contract.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = path.dirname(createRequire(import.meta.url).resolve('@composio/client-v2/package.json'));
const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const dtsName = readdirSync(path.join(pkgDir, 'dist')).find((f) => /^client-.*\.d\.mts$/.test(f));
const dtsPath = path.join(pkgDir, 'dist', dtsName);

const program = ts.createProgram([dtsPath], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022 });
const checker = program.getTypeChecker();
const source = program.getSourceFile(dtsPath);
const aliases = new Map();
for (const st of source.statements) if (ts.isTypeAliasDeclaration(st)) aliases.set(st.name.text, st);

function aliasType(name) {
  const decl = aliases.get(name);
  if (decl === undefined) throw new Error(`${dtsName} has no type ${name}`);
  return checker.getTypeFromTypeNode(decl.type);
}

function propType(type, name) {
  const sym = checker.getPropertyOfType(type, name);
  if (sym === undefined) return undefined;
  return checker.getNonNullableType(checker.getTypeOfSymbol(sym));
}

function describe(sym) {
  const text = ts.displayPartsToString(sym.getDocumentationComment(checker)).trim();
  return text === '' ? undefined : text;
}

const isNull = (t) => (t.flags & ts.TypeFlags.Null) !== 0;
const isUndefined = (t) => (t.flags & ts.TypeFlags.Undefined) !== 0;

/** One TypeScript type as an OpenAPI 3.0 schema (objects open: their closedness is a later decision). */
function toSchema(type, stack = []) {
  if (stack.includes(type)) return {};
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (f & ts.TypeFlags.Union) return unionSchema(type, stack);
  if (f & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [type.value] };
  if (f & ts.TypeFlags.NumberLiteral) return { type: 'number', enum: [type.value] };
  if (f & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', enum: [checker.typeToString(type) === 'true'] };
  if (f & ts.TypeFlags.String) return { type: 'string' };
  if (f & ts.TypeFlags.Number) return { type: 'number' };
  if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
  if (checker.isArrayType(type)) return { type: 'array', items: toSchema(checker.getTypeArguments(type)[0], [...stack, type]) };
  if (f & ts.TypeFlags.Object || f & ts.TypeFlags.Intersection) return objectSchema(type, [...stack, type]);
  throw new Error(`no schema for ${checker.typeToString(type)}`);
}

function unionSchema(type, stack) {
  const members = type.types.filter((t) => !isUndefined(t));
  const nullable = members.some(isNull);
  let rest = members.filter((t) => !isNull(t));
  // `boolean` is the union true | false.
  const bools = rest.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
  let schemas = [];
  if (bools.length === 2) {
    schemas.push({ type: 'boolean' });
    rest = rest.filter((t) => !bools.includes(t));
  }
  const strings = rest.filter((t) => t.flags & ts.TypeFlags.StringLiteral);
  if (strings.length > 0 && strings.length === rest.length) schemas.push({ type: 'string', enum: strings.map((t) => t.value) });
  else schemas.push(...rest.map((t) => toSchema(t, stack)));
  const out = schemas.length === 1 ? schemas[0] : { anyOf: schemas };
  return nullable ? { ...out, nullable: true } : out;
}

function objectSchema(type, stack) {
  const out = { type: 'object' };
  const properties = {};
  const required = [];
  for (const sym of checker.getPropertiesOfType(type)) {
    let t = checker.getTypeOfSymbol(sym);
    if (t.flags & ts.TypeFlags.Never) continue;
    const schema = toSchema(t, stack);
    const d = describe(sym);
    properties[sym.name] = d === undefined ? schema : { ...schema, description: d };
    if ((sym.flags & ts.SymbolFlags.Optional) === 0) required.push(sym.name);
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.length > 0) out.required = required;
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  if (index !== undefined) out.additionalProperties = toSchema(index.type, stack);
  return out;
}

/**
 * In the session config bodies (create, PATCH) every object below the top level is closed, as the
 * service's are (api facts §3, §9.18; the v3 contract closes the same objects). Other bodies stay open.
 */
function closeNested(schema, depth = 0) {
  if (schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => closeNested(s, depth));
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, closeNested(s, depth + 1)]));
    else if (k === 'items' || k === 'anyOf' || k === 'additionalProperties') out[k] = closeNested(v, depth);
    else out[k] = v;
  }
  if (depth > 0 && out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

const S = '/api/v3.1/tool_router/session';
const CONFIG_BODIES = new Set(['postToolRouterSessionV31', 'patchToolRouterSessionBySessionIdV31']);
// method, path, operationId, the *Data type (request), the *Responses type, success status.
const operations = [
  ['post', S, 'postToolRouterSessionV31', 'PostApiV31ToolRouterSessionData', 'PostApiV31ToolRouterSessionResponses', 201],
  ['get', `${S}/{session_id}`, 'getToolRouterSessionBySessionIdV31', undefined, 'GetApiV31ToolRouterSessionBySessionIdResponses', 200],
  ['patch', `${S}/{session_id}`, 'patchToolRouterSessionBySessionIdV31', 'PatchApiV31ToolRouterSessionBySessionIdData', 'PatchApiV31ToolRouterSessionBySessionIdResponses', 200],
  ['delete', `${S}/{session_id}`, 'deleteToolRouterSessionBySessionIdV31', undefined, 'DeleteApiV31ToolRouterSessionBySessionIdResponses', 200],
  ['post', `${S}/{session_id}/attach`, 'postToolRouterSessionBySessionIdAttachV31', 'PostApiV31ToolRouterSessionBySessionIdAttachData', 'PostApiV31ToolRouterSessionBySessionIdAttachResponses', 200],
  ['get', `${S}/{session_id}/config_history`, 'getToolRouterSessionBySessionIdConfigHistoryV31', 'GetApiV31ToolRouterSessionBySessionIdConfigHistoryData', 'GetApiV31ToolRouterSessionBySessionIdConfigHistoryResponses', 200],
  ['post', `${S}/{session_id}/search`, 'postToolRouterSessionBySessionIdSearchV31', 'PostApiV31ToolRouterSessionBySessionIdSearchData', 'PostApiV31ToolRouterSessionBySessionIdSearchResponses', 200],
  ['get', `${S}/{session_id}/tools`, 'getToolRouterSessionBySessionIdToolsV31', 'GetApiV31ToolRouterSessionBySessionIdToolsData', 'GetApiV31ToolRouterSessionBySessionIdToolsResponses', 200],
  ['post', `${S}/{session_id}/execute`, 'postToolRouterSessionBySessionIdExecuteV31', 'PostApiV31ToolRouterSessionBySessionIdExecuteData', 'PostApiV31ToolRouterSessionBySessionIdExecuteResponses', 200],
  ['post', `${S}/{session_id}/execute_meta`, 'postToolRouterSessionBySessionIdExecuteMetaV31', 'PostApiV31ToolRouterSessionBySessionIdExecuteMetaData', 'PostApiV31ToolRouterSessionBySessionIdExecuteMetaResponses', 200],
  ['post', `${S}/{session_id}/link`, 'postToolRouterSessionBySessionIdLinkV31', 'PostApiV31ToolRouterSessionBySessionIdLinkData', 'PostApiV31ToolRouterSessionBySessionIdLinkResponses', 201],
  ['post', `${S}/{session_id}/proxy_execute`, 'postToolRouterSessionBySessionIdProxyExecuteV31', 'PostApiV31ToolRouterSessionBySessionIdProxyExecuteData', 'PostApiV31ToolRouterSessionBySessionIdProxyExecuteResponses', 200],
  ['get', `${S}/{session_id}/toolkits`, 'getToolRouterSessionBySessionIdToolkitsV31', 'GetApiV31ToolRouterSessionBySessionIdToolkitsData', 'GetApiV31ToolRouterSessionBySessionIdToolkitsResponses', 200],
  ['get', `${S}/{session_id}/mounts/{mount_id}/items`, 'getToolRouterSessionBySessionIdMountsByMountIdItemsV31', 'GetApiV31ToolRouterSessionBySessionIdMountsByMountIdItemsData', 'GetApiV31ToolRouterSessionBySessionIdMountsByMountIdItemsResponses', 200],
  ['post', `${S}/{session_id}/mounts/{mount_id}/download_url`, 'postToolRouterSessionBySessionIdMountsByMountIdDownloadUrlV31', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdDownloadUrlData', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdDownloadUrlResponses', 201],
  ['post', `${S}/{session_id}/mounts/{mount_id}/upload_url`, 'postToolRouterSessionBySessionIdMountsByMountIdUploadUrlV31', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdUploadUrlData', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdUploadUrlResponses', 201],
  ['post', `${S}/{session_id}/mounts/{mount_id}/delete`, 'postToolRouterSessionBySessionIdMountsByMountIdDeleteV31', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdDeleteData', 'PostApiV31ToolRouterSessionBySessionIdMountsByMountIdDeleteResponses', 200],
  ['get', '/api/v3.1/connected_accounts/{nanoid}', 'getConnectedAccountsByNanoidV31', undefined, 'GetApiV31ConnectedAccountsByNanoidResponses', 200],
];

// The error envelope is not in the client's types (it decodes any error body); it is the service's
// shared `Error` component, taken from the v3 contract beside this file.
const v3 = JSON.parse(readFileSync(path.join(root, 'contract/tool-router-v3.openapi.json'), 'utf8'));
const errorSchema = v3.components.schemas.Error;

const paths = {};
for (const [method, url, operationId, dataName, responsesName, status] of operations) {
  const op = { operationId, parameters: [], responses: {} };
  const data = dataName === undefined ? undefined : aliasType(dataName);
  for (const name of [...url.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
    op.parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  const query = data === undefined ? undefined : propType(data, 'query');
  if (query !== undefined && !(query.flags & ts.TypeFlags.Never)) {
    const q = objectSchema(query, []);
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      const { description, ...rest } = schema;
      op.parameters.push({ name, in: 'query', required: (q.required ?? []).includes(name), schema: rest, ...(description === undefined ? {} : { description }) });
    }
  }
  const body = data === undefined ? undefined : propType(data, 'body');
  if (body !== undefined && !(body.flags & ts.TypeFlags.Never)) {
    const schema = toSchema(body);
    op.requestBody = { required: true, content: { 'application/json': { schema: CONFIG_BODIES.has(operationId) ? closeNested(schema) : schema } } };
  }
  const success = propType(aliasType(responsesName), String(status));
  op.responses[String(status)] = { description: 'success', content: { 'application/json': { schema: toSchema(success) } } };
  op.responses['400'] = { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  (paths[url] ??= {})[method] = op;
}

const doc = {
  openapi: '3.0.3',
  info: { title: 'Tool Router v3.1 (derived from the client types)', version: '3.1' },
  'x-derived-from': `npm ${pkg.name}@${pkg.version}, dist/${dtsName}, by contract/derive-v3.1.mjs`,
  paths,
  components: { schemas: { Error: errorSchema } },
};
writeFileSync(path.join(root, 'contract/tool-router-v3.1.openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
console.error(`wrote contract/tool-router-v3.1.openapi.json (${operations.length} operations from ${pkg.name}@${pkg.version})`);
