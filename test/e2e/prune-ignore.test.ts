import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `--prune` and the project's `ignore`: a file the project ignores is looked at by no command, so
 * the session applied from it before is not pruned as if its manifest were gone. Only a manifest
 * that is really gone from the run's paths is.
 */

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const state = ['--state', 'st/state.json', '--emulator'];

async function recorded(root: string): Promise<string[]> {
  const doc = JSON.parse(await readFile(join(root, 'st/state.json'), 'utf8')) as { sessions: Array<{ name: string }> };
  return doc.sessions.map((s) => s.name).sort();
}

describe('apply --prune with a project that ignores files', () => {
  test('keeps the sessions of ignored files, deletes those whose manifest is gone', { timeout: 60_000 }, async () => {
    const root = (dir = tempDir('prune-ignore'));
    await mkdir(join(root, '.git'));
    await mkdir(join(root, 'm/drafts'), { recursive: true });
    await writeFile(join(root, 'm/a.yaml'), 'name: a\nuser_id: u1\ntoolkits: [gmail]\n');
    await writeFile(join(root, 'm/gone.yaml'), 'name: gone\nuser_id: u2\ntoolkits: [gmail]\n');
    await writeFile(join(root, 'm/drafts/b.yaml'), 'name: b\nuser_id: u3\ntoolkits: [gmail]\n');
    const applied = await runCli(['apply', 'm', ...state], { cwd: root });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(await recorded(root)).toEqual(['a', 'b', 'gone']);

    // The team moves drafts out of the run, and removes one manifest.
    await writeFile(join(root, 'sessionctl.yaml'), 'ignore: ["**/drafts/**"]\n');
    await rm(join(root, 'm/gone.yaml'));
    const planned = await runCli(['plan', 'm', '--prune', '--format', 'json', ...state], { cwd: root });
    expect(planned.exitCode, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { plan: { deletions: Array<{ name: string; reason: string }> } };
    expect(plan.plan.deletions.map((d) => [d.name, d.reason])).toEqual([['gone', 'manifest-removed']]);

    const pruned = await runCli(['apply', 'm', '--prune', ...state], { cwd: root });
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(await recorded(root)).toEqual(['a', 'b']);

    // Without the project file the draft is in the run again: nothing to prune.
    const again = await runCli(['plan', 'm', '--prune', '--no-config', '--detailed-exitcode', ...state], { cwd: root });
    expect(again.stdout).toContain('0 to delete');
  });
});
