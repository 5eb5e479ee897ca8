/**
 * Issue 29, item 1: a pull request cannot reach outside its checkout. Everything a committed
 * sessionctl.yaml names (report files, the state, the catalogue, env files, manifest paths) must
 * lie inside the repository, by name and through links; a sessionctl.yaml that is a link out of
 * the repository is refused unread; the project file is looked for only inside the repository
 * (only the working directory when there is no `.git`). A saved plan's files must lie under the
 * folder apply runs in, and its state must be the run's. Each case lists the folder outside the
 * checkout before and after: nothing there is created, changed or printed.
 */
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';
import { STACK_LINE } from './bad-input-cases.js';

/** Lines of a file outside the checkout that must never reach any output. */
const SHADOW = 'root:$6$saltsalt$3Qv0hP9fZ2xkY:19000:0:99999:7:::\nAKIAIOSFODNN7EXAMPLE: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n';
const SCRIPT = '#!/bin/sh\necho deploy\n';
const MANIFEST = 'name: ok\nuser_id: u\ntoolkits: [gmail]\n';

let top: string;
let repo: string;
let outside: string;
let n = 0;

beforeEach(async () => {
  top = join(tempDir('confine'), `t${n++}`);
  repo = join(top, 'repo');
  outside = join(top, 'outside');
  await mkdir(join(repo, '.git'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'deploy.sh'), SCRIPT);
  await writeFile(join(outside, 'shadow'), SHADOW);
  await writeFile(join(repo, 'm.yaml'), MANIFEST);
});

/** Every file below a folder with its content: what "nothing changed outside" compares. */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[full.slice(dir.length + 1)] = await readFile(full, 'utf8');
  }
  return out;
}

function expectNothingLeaked(r: { stdout: string; stderr: string }): void {
  expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
  for (const line of ['root:$6$', 'AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI', 'echo deploy']) expect(r.stdout + r.stderr).not.toContain(line);
}

describe('what a committed sessionctl.yaml names stays inside the repository', () => {
  const cases: Array<[string, (o: string) => string, (repo: string, outside: string) => Promise<unknown>, string[]]> = [
    // The examples.
    ['a report file up and out, over a script', () => 'formats: [human=../outside/deploy.sh]\n', async () => undefined, ['validate', 'm.yaml']],
    ['a report file at an absolute path', (o) => `formats: ["json=${o}/report.json"]\n`, async () => undefined, ['validate', 'm.yaml']],
    ['the state up and out', () => 'state: ../outside/state.json\n', async () => undefined, ['plan', 'm.yaml']],
    ['the state at an absolute path', (o) => `state: ${o}/state.json\n`, async () => undefined, ['plan', 'm.yaml']],
    // New variants of the same class: through links committed in the repository.
    ['a report file in a folder that is a link out', () => 'formats: [sarif=reports/out.sarif]\n', (r, o) => symlink(o, join(r, 'reports')), ['validate', 'm.yaml']],
    ['a report file that is a link to nothing out there', () => 'formats: [junit=out.xml]\n', (r, o) => symlink(join(o, 'new.xml'), join(r, 'out.xml')), ['validate', 'm.yaml']],
    ['a report file that is a link to the script', () => 'formats: [markdown=summary.md]\n', (r, o) => symlink(join(o, 'deploy.sh'), join(r, 'summary.md')), ['validate', 'm.yaml']],
    ['the state through a linked folder', () => 'state: .sessionctl/state.json\n', (r, o) => symlink(o, join(r, '.sessionctl')), ['plan', 'm.yaml']],
    ['the catalogue as a link to a secret', () => 'catalog: catalog.json\n', (r, o) => symlink(join(o, 'shadow'), join(r, 'catalog.json')), ['validate', 'm.yaml']],
    ['an env file as a link to a secret', () => 'env_files: [.env]\n', (r, o) => symlink(join(o, 'shadow'), join(r, '.env')), ['validate', 'm.yaml']],
    ['a manifest path as a link to a secret', () => 'paths: [linked.yaml]\n', (r, o) => symlink(join(o, 'shadow'), join(r, 'linked.yaml')), ['validate']],
    ['a glob whose base is a link out', () => 'paths: ["teams/**/*.yaml"]\n', (r, o) => symlink(o, join(r, 'teams')), ['validate']],
    ['the state through a link with dots', () => 'state: st/../st/state.json\n', (r, o) => symlink(o, join(r, 'st')), ['plan', 'm.yaml']],
  ];

  it.each(cases)('%s: exit 2, config/outside-repository at its line, nothing outside written or printed', async (_name, config, arrange, argv) => {
    await writeFile(join(repo, 'sessionctl.yaml'), `# the project\n${config(outside)}`);
    await arrange(repo, outside);
    const before = await listing(outside);
    const r = await runCli([...argv, '--format', 'json'], { cwd: repo, env: {} });
    expect(r.exitCode, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; file: string; range: { start: { line: number } } | null }> };
    expect(report.diagnostics.map((d) => [d.code, d.file, d.range?.start.line])).toEqual([['config/outside-repository', 'sessionctl.yaml', 2]]);
    expectNothingLeaked(r);
    expect(await listing(outside)).toEqual(before);
    // Without the project file's formats, the default reporter shows the same refusal.
    const human = await runCli(argv, { cwd: repo, env: {} });
    expect(human.exitCode).toBe(2);
    expectNothingLeaked(human);
    expect(await listing(outside)).toEqual(before);
  });

  it('a `..` the schema refuses already is one finding, not two', async () => {
    await writeFile(join(repo, 'sessionctl.yaml'), 'env_files: [../outside/shadow]\n');
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: repo, env: {} });
    expect(r.exitCode).toBe(2);
    expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['config/invalid-value']);
  });

  it('the command line is the user\'s choice: --format FILE, --state and --config may name any place', async () => {
    await writeFile(join(outside, 'config.yaml'), 'rules:\n  rule/empty-allowlist: error\n');
    const r = await runCli(['validate', 'm.yaml', '--format', `json=${join(outside, 'report.json')}`, '--config', '../outside/config.yaml'], { cwd: repo, env: {} });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(outside, 'report.json'), 'utf8'))).toMatchObject({ command: 'validate' });
    const plan = await runCli(['plan', 'm.yaml', '--state', '../outside/state.json'], { cwd: repo, env: {} });
    expect(plan.exitCode, plan.stderr).toBe(0);
  });

  it('links that stay inside the repository are followed', async () => {
    await mkdir(join(repo, 'real-reports'));
    await symlink(join(repo, 'real-reports'), join(repo, 'reports'));
    await writeFile(join(repo, 'sessionctl.yaml'), 'formats: [json=reports/out.json]\n');
    const r = await runCli(['validate', 'm.yaml'], { cwd: repo, env: {} });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await stat(join(repo, 'real-reports', 'out.json'))).isFile()).toBe(true);
  });
});

describe('the project file itself', () => {
  it.each([
    ['a link to a secret outside, read as YAML', (o: string) => join(o, 'shadow')],
    ['a link to a script outside', (o: string) => join(o, 'deploy.sh')],
    ['a relative link up and out', () => '../outside/shadow'],
    ['a link through a link', (o: string) => join(o, 'hop.yaml')],
    ['a link to /etc/passwd', () => '/etc/passwd'],
  ])('%s: input/symlink-outside (exit 2), not one line of it printed, in any format', async (_name, target) => {
    await symlink(join(outside, 'shadow'), join(outside, 'hop.yaml'));
    await symlink(target(outside), join(repo, 'sessionctl.yaml'));
    for (const format of ['human', 'json', 'github', 'sarif', 'junit', 'markdown']) {
      const r = await runCli(['validate', 'm.yaml', '--format', format], { cwd: repo, env: {} });
      expect(r.exitCode, r.stderr).toBe(2);
      expectNothingLeaked(r);
      expect(r.stdout + r.stderr).not.toMatch(/root:|daemon:|\$6\$/);
      if (format === 'json') {
        expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; message: string }> }).diagnostics.map((d) => [d.code, d.message])).toEqual([
          ['input/symlink-outside', 'sessionctl.yaml is a symbolic link that leads out of the repository; it is not read'],
        ]);
      }
    }
  });

  it('is looked for up to the repository root, not above it', async () => {
    await writeFile(join(top, 'sessionctl.yaml'), 'formats: [human=../outside/deploy.sh]\n');
    await mkdir(join(repo, 'teams'));
    await writeFile(join(repo, 'teams', 'm.yaml'), MANIFEST);
    const before = await listing(outside);
    const r = await runCli(['validate', 'm.yaml'], { cwd: join(repo, 'teams'), env: {} });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await listing(outside)).toEqual(before);
  });

  it.each([['one folder up'], ['two folders up']])('without any .git, only the working directory is searched: a file %s is not read', async (depth) => {
    const plain = join(top, 'plain');
    const work = depth === 'one folder up' ? join(plain, 'work') : join(plain, 'a', 'work');
    await mkdir(work, { recursive: true });
    await writeFile(join(plain, 'sessionctl.yaml'), 'formats: [human=../outside/deploy.sh]\nrules:\n  rule/empty-allowlist: off\n');
    await writeFile(join(work, 'm.yaml'), 'name: ok\nuser_id: u\ntoolkits: {enable: []}\n');
    const before = await listing(outside);
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: work, env: {} });
    // Warned about the empty allowlist: the parent's `rules` did not apply.
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['rule/empty-allowlist']);
    expect(await listing(outside)).toEqual(before);
    // In the working directory itself it is found (and refused for what it names).
    await writeFile(join(work, 'sessionctl.yaml'), 'formats: [human=../outside/deploy.sh]\n');
    expect((await runCli(['validate', 'm.yaml'], { cwd: work, env: {} })).exitCode).toBe(2);
  });
});

describe('a saved plan stays in the folder apply runs in, on the run\'s state', () => {
  let world: ApplyWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  async function savedPlan(): Promise<{ w: ApplyWorld; plan: Record<string, unknown>; elsewhere: string }> {
    world = await applyWorld({ 'support.yaml': MANIFEST });
    const elsewhere = tempDir('confine-elsewhere');
    await writeFile(join(elsewhere, 'm.yaml'), MANIFEST);
    await writeFile(join(elsewhere, 'shadow'), SHADOW);
    expect((await world.run(['plan', 'support.yaml', '--out', 'plan.json'])).exitCode).toBe(0);
    return { w: world, plan: JSON.parse(await readFile(join(world.dir, 'plan.json'), 'utf8')), elsewhere };
  }

  it.each([
    ['a manifest up and out', (p: Record<string, unknown>, e: string) => ({ ...p, files: [`../${e.split('/').pop()}/m.yaml`] }), /the plan names ".*m\.yaml", outside the folder apply runs in/],
    ['a manifest at an absolute path', (p: Record<string, unknown>, e: string) => ({ ...p, files: [join(e, 'm.yaml')] }), /outside the folder apply runs in/],
    ['a secret as a manifest', (p: Record<string, unknown>, e: string) => ({ ...p, files: [join(e, 'shadow')] }), /outside the folder apply runs in/],
    ['a prune path out', (p: Record<string, unknown>, e: string) => ({ ...p, prune: true, paths: [e] }), /outside the folder apply runs in/],
    ['a database of its choosing', (p: Record<string, unknown>) => ({ ...p, state: 'postgres://sessionctl@attacker.invalid:5432/steal' }), /the plan was made against another state than this run's \(\.sessionctl\/state\.json\)/],
    ['a state file elsewhere', (p: Record<string, unknown>, e: string) => ({ ...p, state: join(e, 'state.json') }), /another state than this run's/],
    ['a state file beside the run\'s', (p: Record<string, unknown>) => ({ ...p, state: 'other/state.json' }), /another state than this run's/],
  ])('%s: exit 2 before anything is read or sent, PGPASSWORD never shown', async (_name, tamper, message) => {
    const { w, plan, elsewhere } = await savedPlan();
    await w.write('plan.json', JSON.stringify(tamper(plan, elsewhere)));
    const before = await listing(elsewhere);
    const r = await w.run(['apply', 'plan.json'], { PGPASSWORD: 'pg-secret-never-sent' });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: plan\.json: /);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('nothing was applied');
    expect(r.stdout + r.stderr).not.toContain('pg-secret-never-sent');
    expectNothingLeaked(r);
    expect(await w.creates()).toBe(0);
    expect((await w.admin('GET', 'stats')).total.received).toBe(0);
    expect(await listing(elsewhere)).toEqual(before);
  });

  it('the state the plan was made with is used when the user names it', async () => {
    world = await applyWorld({ 'support.yaml': MANIFEST });
    expect((await world.run(['plan', 'support.yaml', '--state', 'st/s.json', '--out', 'plan.json'])).exitCode).toBe(0);
    const refused = await world.run(['apply', 'plan.json']);
    expect(refused.exitCode).toBe(2);
    expect(await world.creates()).toBe(0);
    const ok = await world.run(['apply', 'plan.json', '--state', 'st/s.json']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(await world.creates()).toBe(1);
  });
});
