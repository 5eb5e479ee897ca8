/**
 * Connected accounts for the conformance tests, made as an application makes them: a session of
 * the user, a link for the toolkit, the hosted connect page finished (the emulator's admin
 * approve). Real HTTP, no store access.
 */
import { call } from './emulator-http.js';

/** An ACTIVE connected account of `userId` for `toolkit`; its id. */
export async function connectedAccount(base: string, key: string, userId: string, toolkit: string): Promise<string> {
  const s = await call(base, 'POST', '/api/v3.1/tool_router/session', { key, body: { user_id: userId } });
  if (s.status !== 201) throw new Error(`create failed: ${s.status} ${s.text}`);
  const link = await call(base, 'POST', `/api/v3.1/tool_router/session/${s.json.session_id as string}/link`, { key, body: { toolkit } });
  if (link.status !== 201) throw new Error(`link failed: ${link.status} ${link.text}`);
  const id = link.json.connected_account_id as string;
  const approved = await call(base, 'POST', `/_emulator/connections/${id}/approve`, { key, body: {} });
  if (approved.status !== 200) throw new Error(`approve failed: ${approved.status} ${approved.text}`);
  return id;
}

/** Accounts with the given ids (as fixed ids in manifests and fixtures need), through the admin API. */
export async function seedAccounts(base: string, key: string, accounts: ReadonlyArray<{ id: string; user_id: string; toolkit: string }>): Promise<void> {
  for (const account of accounts) {
    const r = await call(base, 'POST', '/_emulator/connected_accounts', { key, body: account });
    if (r.status !== 201) throw new Error(`seeding ${account.id} failed: ${r.status} ${r.text}`);
  }
}
