import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InputError, UsageError } from '../../../src/diagnostics/errors.js';
import { resolveSession } from '../../../src/runner/session-ref.js';
import { fileBackend } from '../../../src/state/backend.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
const entry = (name: string, user: string, id: string) => ({
  name,
  user_id: user,
  session_id: id,
  mcp_url: `https://example.invalid/${id}/mcp`,
  tool_router_tools: [],
  body_hash: 'h',
  applied_at: '2026-01-01T00:00:00.000Z',
});

beforeAll(async () => {
  dir = tempDir('ref');
  await writeFile(join(dir, 'state.json'), JSON.stringify({ version: 1, sessions: [entry('support', 'alice', 'trs_A'), entry('triage', 'bob', 'trs_B'), entry('triage', 'carol', 'trs_C')] }));
  await writeFile(join(dir, 'corrupt.json'), '{"version": 1, "sessions": 3}');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const opts = (extra: { userId?: string; state?: string } = {}) => ({
  state: fileBackend(join(dir, extra.state ?? 'state.json')),
  cwd: dir,
  ...(extra.userId !== undefined ? { userId: extra.userId } : {}),
});

describe('resolveSession', () => {
  test('an id is used as given, without reading the state', async () => {
    expect(await resolveSession('trs_anything', opts({ state: 'missing.json' }))).toEqual({ sessionId: 'trs_anything' });
  });

  test('a name recorded once', async () => {
    const r = await resolveSession('support', opts());
    expect(r.sessionId).toBe('trs_A');
    expect(r.entry?.user_id).toBe('alice');
  });

  test('a name recorded for several users needs --user-id, which picks one', async () => {
    await expect(resolveSession('triage', opts())).rejects.toThrow(/applied for 2 user ids \(bob, carol\)/);
    await expect(resolveSession('triage', opts())).rejects.toBeInstanceOf(UsageError);
    expect((await resolveSession('triage', opts({ userId: 'carol' }))).sessionId).toBe('trs_C');
    await expect(resolveSession('triage', opts({ userId: 'dave' }))).rejects.toThrow(/no session for the user id given with --user-id in state\.json/);
  });

  test('unknown names and missing state files are usage errors with a hint', async () => {
    const err = await resolveSession('billing', opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('no session named "billing": the state file state.json records: support, triage');
    expect((err as UsageError).hint).toMatch(/session id \(trs_\.\.\.\)/);
    await expect(resolveSession('support', opts({ state: 'missing.json' }))).rejects.toThrow(/no state file at missing\.json/);
  });

  test('--user-id with an id is refused', async () => {
    await expect(resolveSession('trs_A', opts({ userId: 'alice' }))).rejects.toBeInstanceOf(UsageError);
  });

  test('a corrupt state file is an input error', async () => {
    await expect(resolveSession('support', opts({ state: 'corrupt.json' }))).rejects.toBeInstanceOf(InputError);
  });
});
