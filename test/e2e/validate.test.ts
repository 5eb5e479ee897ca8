import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function scratch(): string {
  return tempDir('validate');
}

function jsonCodes(stdout: string): string[] {
  const report = JSON.parse(stdout) as { diagnostics: Array<{ code: string; range?: { start: { line: number; col: number } } }> };
  return report.diagnostics.map((d) => `${d.code}@${d.range?.start.line}:${d.range?.start.col}`);
}

describe('sessionctl validate', () => {
  it('passes every example clean, without a single warning', async () => {
    // The examples' manifests, and those of the example application (examples/ensure-app/manifests).
    const files = readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const r = await runCli(['validate', 'examples', '--format', 'json', '--strict'], { cwd: root });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { diagnostics: unknown[]; summary: { files: number; manifests: number } };
    expect(report.diagnostics).toEqual([]);
    expect(report.summary.files).toBe(files.length);
    expect(report.summary.manifests).toBeGreaterThanOrEqual(7);
    expect(r.exitCode).toBe(0);
  });

  it('starts every example with the schema modeline', () => {
    for (const f of readdirSync(join(root, 'examples')).filter((x) => x.endsWith('.yaml'))) {
      expect(readFileSync(join(root, 'examples', f), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/session-manifest.schema.json');
    }
  });

  it('exits 1 with located findings for an invalid manifest', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'bad.yaml'), 'user_id: u\nworkbench:\n  enabel: false\ntoolkits: { enable: [gmail], disable: [slack] }\n');
    const r = await runCli(['validate', 'bad.yaml', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(r.stdout)).toEqual(['schema/unknown-key@3:3', 'rule/allowlist-with-denylist@4:30']);
    expect(r.exitCode).toBe(1);
  });

  it('exits 0 on warnings, and 1 with --strict', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'w.yaml'), 'user_id: u\ntoolkits: []\n');
    const plain = await runCli(['validate', 'w.yaml', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(plain.stdout)).toEqual(['rule/empty-allowlist@2:11']);
    expect(plain.exitCode).toBe(0);
    const strict = await runCli(['validate', 'w.yaml', '--format', 'json', '--strict'], { cwd: dir });
    expect(strict.exitCode).toBe(1);
  });

  it('exits 2 when a path matches nothing, and when no path is given', async () => {
    const dir = scratch();
    const missing = await runCli(['validate', 'nope.yaml', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(missing.stdout).map((c) => c.split('@')[0])).toEqual(['input/not-found']);
    expect(missing.exitCode).toBe(2);
    const none = await runCli(['validate'], { cwd: dir });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('paths');
  });

  it('reads standard input for -', async () => {
    const r = await runCli(['validate', '-', '--format', 'json'], { cwd: scratch(), stdin: 'user_id: u\ntags: [readonlyHint]\n' });
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ file: string; code: string; hint?: string }> };
    expect(report.diagnostics.map((d) => [d.file, d.code])).toEqual([['<stdin>', 'schema/enum']]);
    expect(report.diagnostics[0]!.hint).toContain('readOnlyHint');
    expect(r.exitCode).toBe(1);
  });

  it('expands ${VAR} from --env-file, the environment winning', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'm.yaml'), 'name: ${NAME}\nuser_id: ${USER_ID}\n');
    writeFileSync(join(dir, '.env'), 'NAME=Bad Name\nUSER_ID=u1\n');
    const fromFile = await runCli(['validate', 'm.yaml', '--env-file', '.env', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(fromFile.stdout)).toEqual(['schema/pattern@1:7']);
    const overridden = await runCli(['validate', 'm.yaml', '--env-file', '.env', '--format', 'json'], { cwd: dir, env: { NAME: 'good-name' } });
    expect(jsonCodes(overridden.stdout)).toEqual([]);
    expect(overridden.exitCode).toBe(0);
    const unset = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(unset.stdout).map((c) => c.split('@')[0])).toEqual(['env/unset-variable', 'env/unset-variable']);
    const badFile = await runCli(['validate', 'm.yaml', '--env-file', 'missing.env', '--format', 'json'], { cwd: dir });
    expect(badFile.exitCode).toBe(2);
    // The env file's finding is the run's own: counted in the summary like any other.
    const bad = JSON.parse(badFile.stdout) as { diagnostics: { code: string }[]; summary: { errors: number } };
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['env/unset-variable', 'env/unset-variable', 'input/env-file']);
    expect(bad.summary.errors).toBe(3);
  });

  it('plan names what --env-file names: --changed-since selects by the expanded name', async () => {
    const dir = scratch();
    writeFileSync(join(dir, '.env'), 'NAME=from-file\n');
    writeFileSync(join(dir, 'm.yaml'), 'name: ${NAME}\nuser_id: u1\n');
    const r = await runCli(['plan', 'm.yaml', '--env-file', '.env', '--format', 'json', '--state', 'state.json'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { plan: { items: { name: string }[] } }).plan.items.map((i) => i.name)).toEqual(['from-file']);
  });

  it('refuses files over --max-file-size with exit 2, and rejects a bad size as a usage error', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'm.yaml'), `user_id: u\n# ${'x'.repeat(200)}\n`);
    const r = await runCli(['validate', 'm.yaml', '--max-file-size', '100', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(r.stdout).map((c) => c.split('@')[0])).toEqual(['input/too-large']);
    expect(r.exitCode).toBe(2);
    const bad = await runCli(['validate', 'm.yaml', '--max-file-size', 'lots'], { cwd: dir });
    expect(bad.exitCode).toBe(2);
  });

  it('never shows a literal secret in any format, only its last four characters', async () => {
    const dir = scratch();
    const secret = 'ghp_Zx81kQ0pLm27vBn4Rt6yWq9sAb3De5Fg7Hj9';
    writeFileSync(join(dir, 'leak.yaml'), `user_id: u\nauth_configs:\n  github: ac_1\nexperimental:\n  link_url_overwrite: "https://x.example.com/${secret}"\n`);
    for (const format of ['human', 'json', 'github', 'sarif', 'junit', 'markdown']) {
      const r = await runCli(['validate', 'leak.yaml', '--format', format], { cwd: dir });
      expect(r.exitCode).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stdout).toContain('rule/literal-api-key');
    }
    const human = await runCli(['validate', 'leak.yaml', '--format', 'human'], { cwd: dir });
    expect(human.stdout).toContain('****7Hj9');
  });
});

describe('sessionctl schema', () => {
  it('prints the shipped schema byte for byte', async () => {
    const r = await runCli(['schema']);
    expect(r.stdout).toBe(readFileSync(join(root, 'schemas/session-manifest.schema.json'), 'utf8'));
    expect(r.exitCode).toBe(0);
  });
});

describe('sessionctl init', () => {
  it('writes a starter manifest with the modeline that validates clean, and never overwrites', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'schemas'));
    writeFileSync(join(dir, 'schemas/session-manifest.schema.json'), readFileSync(join(root, 'schemas/session-manifest.schema.json')));
    const first = await runCli(['init', 'support-agent'], { cwd: dir });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain('wrote support-agent.yaml');
    expect(first.stdout).toContain('editor: `sessionctl lsp` shows these findings as you type');
    const text = readFileSync(join(dir, 'support-agent.yaml'), 'utf8');
    const modeline = /^# yaml-language-server: \$schema=(.+)$/m.exec(text);
    expect(modeline).not.toBeNull();
    expect(readFileSync(join(dir, modeline![1]!), 'utf8')).toContain('"$schema": "http://json-schema.org/draft-07/schema#"');
    const check = await runCli(['validate', 'support-agent.yaml', '--strict', '--format', 'json'], { cwd: dir });
    expect(jsonCodes(check.stdout)).toEqual([]);
    expect(check.exitCode).toBe(0);

    writeFileSync(join(dir, 'support-agent.yaml'), 'mine\n');
    const again = await runCli(['init', 'support-agent'], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(join(dir, 'support-agent.yaml'), 'utf8')).toBe('mine\n');
    expect(readdirSync(dir).sort()).toEqual(['schemas', 'support-agent.yaml']);
  });

  it.each([
    ['the project\'s schemas/ copy, from a sub-folder', ['schemas/session-manifest.schema.json'], '../schemas/session-manifest.schema.json', false],
    ['the dev dependency\'s copy', ['node_modules/sessionctl/schemas/session-manifest.schema.json'], '../node_modules/sessionctl/schemas/session-manifest.schema.json', false],
    ['neither: the path the package publishes, with a note', [], '../node_modules/sessionctl/schemas/session-manifest.schema.json', true],
  ])('init --dir points the modeline at %s, never into the sessionctl that runs', async (_name, files, ref, note) => {
    const dir = scratch();
    writeFileSync(join(dir, 'package.json'), '{}\n');
    for (const f of files) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), '{}\n');
    }
    mkdirSync(join(dir, 'sessions'));
    const r = await runCli(['init', 'bot', '--dir', 'sessions'], { cwd: join(dir) });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'sessions/bot.yaml'), 'utf8').split('\n', 1)[0]).toBe(`# yaml-language-server: $schema=${ref}`);
    expect(r.stdout.includes('note: the schema line points at')).toBe(note);
  });

  it('init --config writes a commented project file that validates clean and drives validate without paths', async () => {
    const dir = scratch();
    mkdirSync(join(dir, '.git'));
    const r = await runCli(['init', '--config'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').slice(0, 3)).toStrictEqual([
      'wrote sessionctl.yaml',
      'next: mkdir -p sessions && sessionctl init NAME --dir sessions   # a manifest where its paths look',
      'then: sessionctl validate   # checks the paths it names',
    ]);
    const text = readFileSync(join(dir, 'sessionctl.yaml'), 'utf8');
    // No copy of the schema in this project: the line names where the package publishes it.
    expect(text.split('\n', 1)[0]).toBe('# yaml-language-server: $schema=./node_modules/sessionctl/schemas/sessionctl-config.schema.json');
    expect(r.stdout).toContain('note: the schema line points at');
    expect(readFileSync(new URL('../../schemas/sessionctl-config.schema.json', import.meta.url), 'utf8')).toContain('"$id": "https://sessionctl.dev/schemas/sessionctl-config.schema.json"');
    // The layout its next line gives, as the reader would type it.
    mkdirSync(join(dir, 'sessions'));
    expect((await runCli(['init', 'support-agent', '--dir', 'sessions'], { cwd: dir })).exitCode).toBe(0);
    // From a subfolder: the project file is found above, and its `paths` are relative to it.
    const check = await runCli(['validate', '--strict', '--format', 'json'], { cwd: join(dir, 'sessions') });
    expect(check.stderr).toBe('');
    expect(JSON.parse(check.stdout)).toMatchObject({ files: ['support-agent.yaml'], diagnostics: [], summary: { suppressed: 0 } });
    expect(check.exitCode).toBe(0);
    const again = await runCli(['init', '--config'], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(readFileSync(join(dir, 'sessionctl.yaml'), 'utf8')).toBe(text);
  });

  it('init --config names the manifest folder the docs use: the example project file\'s, the README\'s and the walk-through\'s', async () => {
    const dir = scratch();
    expect((await runCli(['init', '--config'], { cwd: dir })).exitCode).toBe(0);
    const written = YAML.parse(readFileSync(join(dir, 'sessionctl.yaml'), 'utf8')) as { paths: string[] };
    const configuration = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    const example = YAML.parse(/```yaml\n(# sessionctl\.yaml\n[\s\S]*?)```/.exec(configuration)![1]!) as { paths: string[] };
    expect(written.paths).toStrictEqual(['sessions/']);
    expect(example.paths).toStrictEqual(written.paths);
    for (const page of ['README.md', 'docs/first-hour.md']) expect(readFileSync(join(root, page), 'utf8'), page).toContain('```yaml title="sessions/hello.yaml"');
  });

  it('keeps the values of the sensitive variables out of every report', async () => {
    const dir = scratch();
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'sessionctl.yaml'), 'sensitive: [SANDBOX_SIZE]\n');
    writeFileSync(join(dir, 'm.yaml'), 'name: m\nuser_id: u\nworkbench:\n  sandbox_size: ${SANDBOX_SIZE}\n');
    for (const format of ['human', 'json', 'sarif', 'github']) {
      const r = await runCli(['validate', 'm.yaml', '--format', format], { cwd: dir, env: { SANDBOX_SIZE: 'tenant-7f3a9c-huge' } });
      expect(r.exitCode).toBe(1);
      // The schema quotes the value it refuses; the value of a sensitive variable is named instead.
      expect(r.stdout).toContain(format === 'json' || format === 'sarif' ? '(sensitive: SANDBOX_SIZE)' : 'sensitive: SANDBOX_SIZE');
      expect(r.stdout + r.stderr).not.toContain('tenant-7f3a9c-huge');
    }
  });

  it('masks a sensitive variable whose value comes from the project\'s env file, in validate and plan', async () => {
    const dir = scratch();
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'sessionctl.yaml'), 'sensitive: [SANDBOX_SIZE]\nenv_files: [ci.env]\nstate: state.json\n');
    writeFileSync(join(dir, 'ci.env'), 'SANDBOX_SIZE=tenant-51d0e2-huge\n');
    writeFileSync(join(dir, 'm.yaml'), 'name: m\nuser_id: u\nworkbench:\n  sandbox_size: ${SANDBOX_SIZE}\n');
    for (const args of [['validate', 'm.yaml'], ['plan', 'm.yaml', '--format', 'json']]) {
      const r = await runCli(args, { cwd: dir, env: {} });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stdout).toContain('sensitive: SANDBOX_SIZE');
      expect(r.stdout + r.stderr).not.toContain('tenant-51d0e2-huge');
    }
  });

  it('without paths or a project file, validate is a usage error', async () => {
    const dir = scratch();
    mkdirSync(join(dir, '.git'));
    const r = await runCli(['validate'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no manifests to check');
  });

  it('rejects a name that is not a manifest name', async () => {
    const dir = scratch();
    const r = await runCli(['init', '../escape'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});
