import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { applyWorld, KEY, type ApplyWorld } from './apply-helpers.js';

/** destroy says what happened: a declined confirmation is a cancellation, a dry run what would go. */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('destroy reports', () => {
  test('declined on a terminal: cancelled, no plan on stdout, exit 2, nothing deleted', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n' }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [entry] = (await w.state()).sessions;
    const env = { COMPOSIO_BASE_URL: w.emulator.url, COMPOSIO_API_KEY: KEY };
    const r = await runCli(['destroy', 'm'], { cwd: w.dir, env, tty: true, stdinTty: true, stdin: 'no\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`destroy will delete 1 session:\n  - a  user u1  ${entry!.session_id}\nDelete them? Only 'yes' is accepted: destroy cancelled: nothing was deleted\n`);
    expect(r.stdout).not.toContain('Plan:');
    expect(r.stdout).not.toContain(entry!.session_id);
    expect((await w.state()).sessions).toHaveLength(1);
    expect((await w.admin('GET', `sessions/${entry!.session_id}`)).session_id).toBe(entry!.session_id);

    // Confirmed: deleted.
    const yes = await runCli(['destroy', 'm'], { cwd: w.dir, env, tty: true, stdinTty: true, stdin: 'yes\n' });
    expect(yes.exitCode, yes.stdout + yes.stderr).toBe(0);
    expect((await w.state()).sessions).toHaveLength(0);
  });

  test('--dry-run says what would be deleted, and deletes nothing', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n' }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [entry] = (await w.state()).sessions;
    const dry = await w.run(['destroy', 'm', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(`        ${entry!.session_id}: would be deleted by destroy\n`);
    expect(dry.stdout).not.toMatch(/: deleted by destroy/);
    expect((await w.state()).sessions).toHaveLength(1);
  });
});
