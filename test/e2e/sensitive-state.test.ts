import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/**
 * The state keeps sensitive values as digests, yet the service gets the values themselves: a
 * create, an update after a rotation and an import all round-trip through the emulator.
 */
const MANIFEST = 'name: hook\nuser_id: ${USER_TOKEN}\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://hooks.example.com/cb?token=${HOOK_TOKEN}"\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const callbackAt = async (w: ApplyWorld, id: string): Promise<string> => (await w.admin('GET', `sessions/${id}`)).config.manage_connections.callback_url;

describe('sensitive values in the state', () => {
  test('created, rotated and imported: the service holds each value, the state only digests', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    const env = { USER_TOKEN: 'user-8812', HOOK_TOKEN: 'first-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    const [entry] = (await w.state()).sessions;
    expect(await callbackAt(w, entry!.session_id)).toBe('https://hooks.example.com/cb?token=first-secret-value');
    expect((await w.admin('GET', `sessions/${entry!.session_id}`)).config.user_id).toBe('user-8812');

    // The same values: nothing to do. A rotated one: an update in place that sends the new value.
    expect((await w.run(['plan', 'm', '--detailed-exitcode'], env)).exitCode).toBe(0);
    const rotated = { ...env, HOOK_TOKEN: 'second-secret-value' };
    const planned = await w.run(['plan', 'm', '--detailed-exitcode'], rotated);
    expect(planned.exitCode).toBe(4);
    expect(planned.stdout).toContain('~ manage_connections.callback_url: changed (sensitive: HOOK_TOKEN)');
    expect((await w.run(['apply', 'm'], rotated)).exitCode).toBe(0);
    expect(await callbackAt(w, entry!.session_id)).toBe('https://hooks.example.com/cb?token=second-secret-value');
    expect((await w.state()).sessions.map((s) => s.session_id)).toEqual([entry!.session_id]);

    // Imported into an empty state: recorded by digest, and the next plan has nothing to do.
    const statePath = join(w.dir, '.sessionctl/state.json');
    await w.write('.sessionctl/state.json', '{"version": 2, "sessions": []}\n');
    expect((await w.run(['import', 'hook', entry!.session_id, 'm'], rotated)).exitCode).toBe(0);
    const text = await readFile(statePath, 'utf8');
    for (const value of ['user-8812', 'second-secret-value', 'first-secret-value']) expect(text).not.toContain(value);
    expect(JSON.parse(text).sessions[0].user_id).toBe(entry!.user_id);
    expect((await w.run(['plan', 'm', '--detailed-exitcode'], rotated)).exitCode).toBe(0);
  });

  test('--show-sensitive shows the values on a person\'s machine, and is refused when CI is set', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    const env = { USER_TOKEN: 'user-8812', HOOK_TOKEN: 'first-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    const rotated = { ...env, HOOK_TOKEN: 'second-secret-value' };
    const masked = await w.run(['plan', 'm', '--format', 'json'], rotated);
    expect(masked.stdout).not.toContain('second-secret-value');
    const shown = await w.run(['plan', 'm', '--show-sensitive', '--format', 'json'], rotated);
    expect(shown.exitCode).toBe(0);
    // The new value shows; the old one never can (the state holds its digest only).
    expect(JSON.parse(shown.stdout).plan.items[0].changes[0]).toMatchObject({ field: 'manage_connections.callback_url', old: '(sensitive: HOOK_TOKEN)', new: 'https://hooks.example.com/cb?token=second-secret-value' });
    const refused = await w.run(['diff', 'm', '--show-sensitive'], { ...rotated, CI: 'true' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('error: --show-sensitive is refused when CI is set: CI logs, report files, plan files and step summaries are kept and read by others');

    // export: the recorded sensitive fields as their variables; as they are only when asked, never in CI.
    const exported = await w.run(['export', 'hook'], rotated);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('user_id: ${USER_TOKEN} # set USER_TOKEN: a sensitive value');
    expect(exported.stdout).not.toContain('user-8812');
    const revealed = await w.run(['export', 'hook', '--show-sensitive'], rotated);
    expect(revealed.stdout).toContain('user_id: user-8812');
    const refusedExport = await w.run(['export', 'hook', '--show-sensitive'], { ...rotated, CI: 'true' });
    expect(refusedExport.exitCode).toBe(2);
    expect(refusedExport.stdout).toBe('');
    expect(refusedExport.stderr).toContain('error: --show-sensitive is refused when CI is set');
  });
});
