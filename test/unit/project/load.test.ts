import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { findProjectFile } from '../../../src/project/find.js';
import { loadProjectConfig } from '../../../src/project/load.js';
import { starterProjectConfig } from '../../../src/project/starter.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { dedent, where } from '../validate/helpers.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('project');
  // The search stops at a repository root; the temp folder is one, so nothing above it counts.
  mkdirSync(join(dir, '.git'));
});

async function load(text: string, env: Record<string, string> = {}) {
  writeFileSync(join(dir, 'sessionctl.yaml'), dedent(text));
  return loadProjectConfig({ cwd: dir, env });
}

describe('finding sessionctl.yaml', () => {
  it('is found from a subfolder upwards, and not past the repository root', () => {
    mkdirSync(join(dir, 'repo/.git'), { recursive: true });
    mkdirSync(join(dir, 'repo/teams/finance'), { recursive: true });
    writeFileSync(join(dir, 'sessionctl.yaml'), 'paths: [x]\n');
    expect(findProjectFile(join(dir, 'repo/teams/finance'))).toBeUndefined();
    writeFileSync(join(dir, 'repo/sessionctl.yml'), 'paths: [x]\n');
    expect(findProjectFile(join(dir, 'repo/teams/finance'))).toBe(join(dir, 'repo/sessionctl.yml'));
    writeFileSync(join(dir, 'repo/teams/sessionctl.yaml'), 'paths: [x]\n');
    expect(findProjectFile(join(dir, 'repo/teams/finance'))).toBe(join(dir, 'repo/teams/sessionctl.yaml'));
  });

  it('without a file, the configuration is empty; --no-config reads none; a missing --config is an error', async () => {
    const none = await loadProjectConfig({ cwd: dir, env: {} });
    expect(none).toMatchObject({ file: undefined, diagnostics: [], config: { dir, policies: [], rules: {}, overrides: [], ignore: [] } });
    writeFileSync(join(dir, 'sessionctl.yaml'), 'nonsense: 1\n');
    expect((await loadProjectConfig({ cwd: dir, env: {}, file: false })).diagnostics).toEqual([]);
    const missing = await loadProjectConfig({ cwd: dir, env: {}, file: 'nope.yaml' });
    expect(missing.config).toBeUndefined();
    expect(missing.diagnostics.map((d) => [d.code, d.file])).toEqual([['config/not-found', join(dir, 'nope.yaml')]]);
  });
});

describe('a sessionctl.yaml found that is no file', () => {
  it.each([
    ['a symbolic link to nothing', () => symlinkSync(join(dir, 'gone.yaml'), join(dir, 'sessionctl.yaml')), 'it is a symbolic link to nothing'],
    ['a loop of symbolic links', () => symlinkSync(join(dir, 'sessionctl.yaml'), join(dir, 'sessionctl.yaml')), 'it is a loop of symbolic links'],
    ['a folder', () => mkdirSync(join(dir, 'sessionctl.yaml')), 'it is a folder'],
    ['a .yml folder', () => mkdirSync(join(dir, 'sessionctl.yml')), 'it is a folder'],
  ])('%s stops the search and is config/not-found, not skipped for a file above it or none', async (_name, make, why) => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'm.yaml'), 'user_id: u\n');
    make();
    const name = existsSync(join(dir, 'sessionctl.yml')) ? 'sessionctl.yml' : 'sessionctl.yaml';
    expect(findProjectFile(join(dir, 'sub'))).toBe(join(dir, name));
    const r = await loadProjectConfig({ cwd: join(dir, 'sub'), env: {} });
    expect(r.config).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.file, d.message])).toEqual([['config/not-found', 'error', join(dir, name), `${name} was found here, but ${why}`]]);
  });

  it('given with --config, says why it cannot be used', async () => {
    symlinkSync(join(dir, 'gone.yaml'), join(dir, 'link.yaml'));
    for (const [file, why] of [
      ['link.yaml', 'it is a symbolic link to nothing'],
      ['missing.yaml', 'it does not exist'],
      ['.', 'it is a folder'],
      ['/dev/null', 'it is not a regular file'],
    ]) {
      const r = await loadProjectConfig({ cwd: dir, env: {}, file });
      expect(r.diagnostics.map((d) => d.message)).toEqual([`the configuration file ${file} cannot be used: ${why}`]);
    }
  });
});

describe('the configuration', () => {
  it('resolves every path against its folder', async () => {
    const r = await load(`
      paths: [manifests/, "teams/**/*.yaml"]
      api_version: 3.1
      base_url: https://eu.backend.example.com
      state: state/sessions.json
      formats: [human, sarif=reports/out.sarif]
      env_files: [.env.ci]
      ignore: ["drafts/**"]
      catalog: catalog.json
      rules: { catalog/*: error }
      overrides: [{ files: ["sandbox/**"], rules: { rule/empty-allowlist: off } }]
      sensitive: [SUPPORT_USER_ID]
      policies:
        - id: no-proxy
          message: No proxy execution
          required_values: { workbench.enable_proxy_execution: false }
    `);
    expect(r.diagnostics).toEqual([]);
    expect(r.config).toEqual({
      file: join(dir, 'sessionctl.yaml'),
      dir,
      paths: [join(dir, 'manifests'), join(dir, 'teams/**/*.yaml')],
      apiVersion: '3.1',
      baseUrl: 'https://eu.backend.example.com',
      state: join(dir, 'state/sessions.json'),
      formats: ['human', `sarif=${join(dir, 'reports/out.sarif')}`],
      envFiles: [join(dir, '.env.ci')],
      ignore: ['drafts/**'],
      catalog: join(dir, 'catalog.json'),
      rules: { 'catalog/*': 'error' },
      overrides: [{ files: ['sandbox/**'], rules: { 'rule/empty-allowlist': 'off' } }],
      sensitive: ['SUPPORT_USER_ID'],
      policies: [{ id: 'no-proxy', message: 'No proxy execution', severity: 'error', kind: 'required_values', value: { 'workbench.enable_proxy_execution': false } }],
    });
  });

  it('keeps a postgres URL as written, and an empty file is every default', async () => {
    expect((await load('state: postgres://app@db.internal:5432/sessions\n')).config?.state).toBe('postgres://app@db.internal:5432/sessions');
    const empty = await load('# nothing set yet\n');
    expect(empty.diagnostics).toEqual([]);
    expect(empty.config?.file).toBe(join(dir, 'sessionctl.yaml'));
  });

  it('the starter that init --config writes validates clean', async () => {
    const r = await load(starterProjectConfig('./schemas/sessionctl-config.schema.json'));
    expect(r.diagnostics).toEqual([]);
    expect(r.config?.policies.map((p) => p.id)).toEqual(['no-destructive-tools']);
  });
});

describe('its own errors, located', () => {
  it.each([
    ['an unknown key, with did-you-mean', 'rule: {}\n', ['config/unknown-key@1:1'], 'Did you mean `rules`?'],
    ['a wrong type', 'paths: manifests/\n', ['config/type@1:8'], undefined],
    ['a bad severity', 'rules:\n  rule/empty-allowlist: fatal\n', ['config/invalid-value@2:25'], undefined],
    ['an absolute glob', 'ignore: ["/etc/**"]\n', ['config/invalid-value@1:10'], undefined],
    ['a path out of the folder', 'paths: [../other]\n', ['config/invalid-value@1:9'], undefined],
    ['an unknown code', 'rules:\n  rule/empty-alowlist: off\n', ['config/unknown-code@2:3'], 'Did you mean `rule/empty-allowlist`?'],
    ['an undeclared policy', 'overrides:\n  - files: [a/**]\n    rules: { policy/nope: off }\n', ['config/unknown-code@3:14'], undefined],
    ['a locked code', 'rules:\n  yaml/syntax: off\n  input/*: warning\n', ['config/locked-code@2:3', 'config/locked-code@3:3'], undefined],
    ['a policy without a condition', 'policies:\n  - id: p\n    message: m\n', ['config/policy-condition@2:9'], undefined],
    ['a policy with two conditions', 'policies:\n  - id: p\n    message: m\n    max_toolkits: 3\n    denied_toolkits: [x]\n', ['config/policy-condition@5:5'], undefined],
    ['an unknown condition', 'policies:\n  - id: p\n    message: m\n    max_toolkit: 3\n', ['config/unknown-key@4:5'], 'Did you mean `max_toolkits`?'],
    ['two policies with one id', 'policies:\n  - {id: p, message: m, max_toolkits: 1}\n  - {id: p, message: n, max_toolkits: 2}\n', ['config/duplicate-policy@3:10'], undefined],
    ['a bad policy id', 'policies:\n  - {id: No Spaces, message: m, max_toolkits: 1}\n', ['config/invalid-value@2:10'], undefined],
    ['an exponential pattern', 'policies:\n  - id: p\n    message: m\n    user_id_pattern: "^(a+)+$"\n', ['config/unsafe-pattern@4:22'], undefined],
    ['an invalid pattern', 'policies:\n  - id: p\n    message: m\n    auth_config_pattern: "^(ac_"\n', ['config/unsafe-pattern@4:26'], undefined],
    ['a second document', 'paths: [a]\n---\npaths: [b]\n', ['config/invalid-value@3:1'], undefined],
    ['a state that is neither', 'state: mysql://db/x\n', ['config/invalid-value@1:8'], undefined],
    ['a __proto__ key', '__proto__: {}\n', ['config/unknown-key@1:1'], undefined],
  ])('%s', async (_name, text, expected, hint) => {
    const r = await load(text);
    expect(r.config).toBeUndefined();
    expect(where(r.diagnostics)).toEqual(expected);
    expect(r.diagnostics.every((d) => d.file === join(dir, 'sessionctl.yaml'))).toBe(true);
    if (hint !== undefined) expect(r.diagnostics[0]?.hint).toBe(hint);
  });

  it('YAML hazards are the loader\'s findings, in the config file', async () => {
    expect(where((await load('paths: [a]\npaths: [b]\n')).diagnostics)).toEqual(['yaml/duplicate-key@2:1']);
    expect(where((await load('base_url: !!js/function "x"\n')).diagnostics)).toEqual(['yaml/unknown-tag@1:11']);
    expect(where((await load('state: ${STATE_URL}\n')).diagnostics)).toEqual(['env/unset-variable@1:8']);
    expect((await load('state: ${STATE_URL}\n', { STATE_URL: 'postgres://app@db.internal/sessions' })).config?.state).toBe('postgres://app@db.internal/sessions');
    // The value is the file's, whoever set the variable: a path out of the repository is refused (--state or SESSIONCTL_STATE are the user's own).
    expect(where((await load('state: ${STATE_URL}\n', { STATE_URL: '/srv/state.json' })).diagnostics)).toEqual(['config/outside-repository@1:8']);
  });

  it('refuses secrets, and masks them in the source and the message', async () => {
    const r = await load(`
      base_url: https://backend.composio.dev/?api_key=ak_live1234567890abcdefXYZ9
      state: postgres://app:hunter2hunter2@db/sessions
      sensitive: [ak_abcdefghijklmnopqrstuvwx1234]
    `);
    // The secret is the finding at its place; the schema's complaint about the same value is left out.
    expect(where(r.diagnostics)).toEqual(['config/secret@1:11', 'config/secret@2:8', 'config/secret@3:13']);
    expect(r.secrets.sort()).toEqual(['ak_abcdefghijklmnopqrstuvwx1234', 'ak_live1234567890abcdefXYZ9', 'hunter2hunter2']);
    const text = [...r.sources.values()].join('');
    for (const secret of r.secrets) expect(text).not.toContain(secret);
    for (const d of r.diagnostics) for (const secret of r.secrets) expect(`${d.message} ${d.hint ?? ''}`).not.toContain(secret);
  });
});
