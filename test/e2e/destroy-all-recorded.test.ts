import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, normalise, type ApplyWorld } from './apply-helpers.js';

/**
 * `destroy --all-recorded` (issue 30 item 7): every session the state records in the workspace,
 * whatever the manifests say now: a manifest renamed without `state mv`, and one whose file is
 * gone, lose their sessions too. PATHS and --all-recorded exclude each other.
 */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('destroy --all-recorded', () => {
  test('deletes the sessions of renamed and removed manifests, and forgets them', { timeout: 60_000 }, async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n', 'm/b.yaml': 'name: b\nuser_id: u2\ntoolkits: [gmail]\n' }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const ids = (await w.state()).sessions.map((e) => e.session_id);
    expect(ids).toHaveLength(2);
    // a is renamed (no state mv), b's file is gone: destroy m would find neither.
    await w.write('m/a.yaml', 'name: a-renamed\nuser_id: u1\ntoolkits: [gmail]\n');
    await rm(join(w.dir, 'm/b.yaml'));
    expect((await w.run(['destroy', 'm', '--auto-approve'])).exitCode).toBe(0);
    expect((await w.state()).sessions).toHaveLength(2);

    const dry = await w.run(['destroy', '--all-recorded', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(normalise(dry.stdout, w).match(/trs_<id>: would be deleted by destroy/g)).toHaveLength(2);
    expect((await w.state()).sessions).toHaveLength(2);

    const r = await w.run(['destroy', '--all-recorded', '--auto-approve']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(normalise(r.stderr, w).split('\n').slice(0, 3)).toStrictEqual(['destroy will delete 2 sessions:', '  - a  user u1  trs_<id>', '  - b  user u2  trs_<id>']);
    expect((await w.state()).sessions).toStrictEqual([]);
    for (const id of ids) await expect(w.admin('GET', `sessions/${id}`)).rejects.toThrow(/404/);
  });

  test('takes no PATHS, and destroy without either says what it needs (exit 2)', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\n' }));
    const both = await w.run(['destroy', 'm', '--all-recorded', '--auto-approve']);
    expect([both.exitCode, both.stdout, both.stderr]).toStrictEqual([
      2,
      '',
      'error: --all-recorded deletes every session the state records; it takes no PATHS\nhint: drop the paths, or drop --all-recorded to delete only the sessions of those manifests\n',
    ]);
    const none = await w.run(['destroy', '--auto-approve']);
    expect([none.exitCode, none.stdout, none.stderr]).toStrictEqual([
      2,
      '',
      'error: destroy needs PATHS (the manifests whose sessions to delete), or --all-recorded for every session the state records\nhint: for example: sessionctl destroy sessions/old-agent.yaml\n',
    ]);
  });
});
