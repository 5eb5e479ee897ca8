/**
 * `/_emulator/faults`: the scripted faults (`faults.ts`). The whole server's caller (the admin key,
 * or anyone without configured keys) sets rules for every request and sees, removes and releases
 * all of them; a tenant of a shared emulator sets rules for its own requests, and sees, removes and
 * releases its own alone (another tenant's rule id is 404, like one that never was).
 */
import { httpError } from '../errors.js';
import { checkFault, type FaultInput } from '../faults.js';
import { jsonBody, scopeOf, type AdminAnswer, type AdminRequest } from './admin-request.js';

export async function adminFaults(a: AdminRequest): Promise<AdminAnswer | undefined> {
  const { method, state } = a;
  const [head, id, more] = a.parts;
  if (head !== 'faults' || more !== undefined) return undefined;
  const scope = scopeOf(a);
  if (id === undefined && method === 'GET') return { status: 200, body: { faults: state.faults.list(scope) } };
  if (id === undefined && method === 'DELETE') return { status: 200, body: { cleared: state.faults.clear(scope) } };
  if (id === undefined && method === 'POST') {
    const body = await jsonBody(a);
    const list = Array.isArray(body) ? body : Array.isArray((body as { faults?: unknown }).faults) ? (body as { faults: unknown[] }).faults : [body];
    const problems = list.map((f, n) => [n, checkFault(f)] as const).filter(([, p]) => p !== undefined);
    if (problems.length > 0) throw httpError(400, 'Invalid fault', problems.map(([n, p]) => `faults[${n}]: ${p}`));
    return { status: 201, body: { faults: list.map((f) => state.faults.add(f as FaultInput, scope)) } };
  }
  if (id === 'release' && method === 'POST') return { status: 200, body: { released: state.faults.release(scope) } };
  if (id !== undefined && method === 'DELETE') {
    if (!state.faults.remove(id, scope)) throw httpError(404, `No fault '${id}'`);
    return { status: 200, body: { deleted: id } };
  }
  return undefined;
}
