import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * GitHub annotations and SARIF name files relative to the repository's root, whatever folder the
 * run starts in: the checks API and code scanning resolve them from there.
 */
const MANIFEST = 'name: empty\nuser_id: u1\ntoolkits:\n  enable: []\n';

function repository(): string {
  const root = tempDir('ci-paths');
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'deploy', 'sessions'), { recursive: true });
  writeFileSync(join(root, 'deploy', 'sessions', 'empty.yaml'), MANIFEST);
  return root;
}

const ANNOTATION = '::warning file=deploy/sessions/empty.yaml,line=4,col=11,endLine=4,endColumn=13,title=rule/empty-allowlist::';

describe('paths CI attaches, from a subfolder', () => {
  test('the nearest .git upwards is the root: annotations and SARIF from it, the human report from the working directory', async () => {
    const root = repository();
    const cwd = join(root, 'deploy');
    const github = await runCli(['validate', 'sessions', '--format', 'github'], { cwd, env: {} });
    expect(github.exitCode).toBe(0);
    expect(github.stdout.startsWith(ANNOTATION)).toBe(true);

    const sarif = await runCli(['validate', 'sessions', '--format', 'sarif'], { cwd, env: {} });
    const log = JSON.parse(sarif.stdout) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
    expect(log.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toStrictEqual(['deploy/sessions/empty.yaml']);

    const human = await runCli(['validate', 'sessions'], { cwd, env: {} });
    expect(human.stdout).toContain('sessions/empty.yaml:4:11');
    expect(human.stdout).not.toContain('deploy/sessions');
  });

  test('in GitHub Actions the workspace is the root, with reports written to files too', async () => {
    const root = repository();
    const cwd = join(root, 'deploy', 'sessions');
    const r = await runCli(['validate', '.', '--format', 'github', '--format', 'sarif=out/report.sarif'], { cwd, env: { GITHUB_WORKSPACE: root } });
    expect(r.stdout.startsWith(ANNOTATION)).toBe(true);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(cwd, 'out', 'report.sarif'), 'utf8')).toContain('"uri": "deploy/sessions/empty.yaml"');
  });

  test('outside any repository: relative to the working directory, as before', async () => {
    const dir = tempDir('ci-paths-bare');
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessions', 'empty.yaml'), MANIFEST);
    const r = await runCli(['validate', 'sessions', '--format', 'github'], { cwd: dir, env: {} });
    expect(r.stdout.startsWith('::warning file=sessions/empty.yaml,line=4')).toBe(true);
  });
});
