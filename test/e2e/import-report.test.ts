import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/** import reports on the manifest it adopts: another file's suppressed findings are not its own. */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const OTHER = 'name: other\nuser_id: u2\n# sessionctl-ignore rule/empty-allowlist: a placeholder session\ntoolkits: []\n';

describe('import summary', () => {
  test('counts only its own file\'s suppressions', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\n# sessionctl-ignore rule/empty-allowlist: kept empty on purpose\ntoolkits: []\n', 'other/o.yaml': OTHER }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [entry] = (await w.state()).sessions;
    await w.write('.sessionctl/state.json', '{"version": 2, "sessions": []}\n');
    await w.write('m/b.yaml', OTHER.replace('name: other', 'name: b'));

    const r = await w.run(['import', 'a', entry!.session_id, 'm', 'other', '--format', 'json']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { summary: { suppressed: number; files: number }; suppressed: Array<{ file: string }> };
    expect(report.summary).toMatchObject({ suppressed: 1, files: 1 });
    expect(report.suppressed.map((s) => s.file)).toStrictEqual(['m/a.yaml']);
    const human = await w.run(['import', 'a', entry!.session_id, 'm', 'other']);
    expect(human.stdout).toMatch(/1 suppressed/);
    expect(human.stdout).not.toMatch(/[23] suppressed/);
  });
});
