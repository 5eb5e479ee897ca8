import { runCli } from '../helpers/run-cli.js';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, KEY, type ApplyWorld } from './apply-helpers.js';

/** `sessionctl delete SESSION` (issue 30 item 7): one session by id or name, on the service and in the state. */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const STATE = '.sessionctl/state.json';

describe('delete one session', () => {
  test('by id: deleted on the service, its record forgotten; again: already gone, not recorded', { timeout: 60_000 }, async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n', 'm/b.yaml': 'name: b\nuser_id: u2\ntoolkits: [gmail]\n' }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [a, b] = (await w.state()).sessions;
    const r = await w.run(['delete', a!.session_id, '--auto-approve']);
    expect([r.exitCode, r.stdout, r.stderr]).toStrictEqual([0, `Deleted ${a!.session_id} (a, user u1); its record is forgotten in ${w.dir}/${STATE}.\n`, '']);
    expect((await w.state()).sessions.map((e) => e.name)).toStrictEqual(['b']);
    await expect(w.admin('GET', `sessions/${a!.session_id}`)).rejects.toThrow(/404/);
    expect((await w.admin('GET', `sessions/${b!.session_id}`)).session_id).toBe(b!.session_id);

    const again = await w.run(['delete', a!.session_id, '--auto-approve', '--format', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toStrictEqual({ session_id: a!.session_id, outcome: 'already-gone', forgotten: [], state: `${w.dir}/${STATE}` });
  });

  test('by recorded name, confirmed on a terminal; off a terminal it needs --auto-approve', { timeout: 60_000 }, async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n' }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [a] = (await w.state()).sessions;
    const refused = await w.run(['delete', 'a']);
    expect([refused.exitCode, refused.stdout, refused.stderr]).toStrictEqual([
      2,
      '',
      `error: delete needs a confirmation: on a terminal it asks, elsewhere pass --auto-approve\nhint: sessionctl delete ${a!.session_id} --auto-approve\n`,
    ]);
    const env = { COMPOSIO_BASE_URL: w.emulator.url, COMPOSIO_API_KEY: KEY };
    const declined = await runCli(['delete', 'a'], { cwd: w.dir, env, tty: true, stdinTty: true, stdin: 'no\n' });
    expect([declined.exitCode, declined.stderr]).toStrictEqual([2, `Delete session ${a!.session_id} (a, user u1)? Only 'yes' is accepted: delete cancelled: nothing was deleted\n`]);
    expect((await w.state()).sessions).toHaveLength(1);
    const yes = await runCli(['delete', 'a'], { cwd: w.dir, env, tty: true, stdinTty: true, stdin: 'yes\n' });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await w.state()).sessions).toStrictEqual([]);
    await expect(w.admin('GET', `sessions/${a!.session_id}`)).rejects.toThrow(/404/);
  });
});
