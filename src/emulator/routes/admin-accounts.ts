/**
 * `POST /_emulator/connected_accounts`: a connected account of a user, made without a session or a
 * link flow, with an id of the caller's choosing. Pinned accounts are checked (`account-pins.ts`),
 * so a manifest or a test that pins a fixed id (`ca_...`) needs the account to exist first, as it
 * would on the service. The account belongs to the project of the `x-api-key` presented (a key is
 * required: accounts, like sessions, are per project).
 *
 *   body {user_id, toolkit, id?: "ca_...", status?: "ACTIVE" (default) | "INITIATED"}
 *   201 {connected_account_id, toolkit, user_id, status}; 409 when the id is taken
 */
import { httpError } from '../errors.js';
import { isPlainObject } from '../../util/plain-object.js';
import { addAdminConnection } from './admin-connection.js';
import { jsonBody, presentedKey, type AdminAnswer, type AdminRequest } from './admin-request.js';

const ACCOUNT_ID = /^ca_[A-Za-z0-9_-]{1,128}$/;

export async function adminAccounts(a: AdminRequest): Promise<AdminAnswer | undefined> {
  const [head, id] = a.parts;
  if (head !== 'connected_accounts' || id !== undefined || a.method !== 'POST') return undefined;
  const { state } = a;
  const tenant = state.keys.tenantFor(presentedKey(a.req));
  if (tenant === undefined) throw httpError(401, 'A connected account belongs to a project: send one of the emulator\'s API keys in x-api-key');
  const body = await jsonBody(a);
  if (!isPlainObject(body)) throw httpError(400, 'The body must be an object {user_id, toolkit, id?, status?}');
  await state.ready();
  const userId = body['user_id'];
  if (typeof userId !== 'string' || userId === '') throw httpError(400, 'user_id must be a non-empty string');
  const toolkit = typeof body['toolkit'] === 'string' ? state.catalog.toolkit(body['toolkit']) : undefined;
  if (toolkit === undefined) throw httpError(400, 'toolkit must name a toolkit of the catalogue');
  const status = body['status'] ?? 'ACTIVE';
  if (status !== 'ACTIVE' && status !== 'INITIATED') throw httpError(400, "status must be 'ACTIVE' or 'INITIATED'");
  const wanted = body['id'];
  if (wanted !== undefined && (typeof wanted !== 'string' || !ACCOUNT_ID.test(wanted))) throw httpError(400, 'id must look like ca_... (letters, digits, _ and -)');
  if (typeof wanted === 'string' && state.store.connections.has(wanted)) throw httpError(409, `Connected account '${wanted}' exists already`);
  return addAdminConnection(state, toolkit, { ...(typeof wanted === 'string' ? { id: wanted } : {}), tenant, userId, status });
}
