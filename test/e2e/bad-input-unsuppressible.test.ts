/**
 * Issue 29, item 7: findings that make a manifest unusable (it could not be shaped into a manifest:
 * a required key missing, a value of the wrong type, a forbidden key) cannot be suppressed by a
 * comment or turned down in sessionctl.yaml, as `yaml/syntax` cannot; a plan of such a manifest
 * is never shown (no `user undefined`). A project file can also forbid comments to silence its
 * policies (`inline_policy_suppression: false`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { STACK_LINE } from './bad-input-cases.js';

interface JsonDiagnostic {
  code: string;
  severity: string;
  message: string;
  range: { start: { line: number; col: number } } | null;
}
interface JsonReport {
  diagnostics: JsonDiagnostic[];
  suppressed?: JsonDiagnostic[];
}

let root: string;
let n = 0;

beforeAll(async () => {
  root = tempDir('unsuppressible');
  await mkdir(join(root, '.git'));
});

/** A folder of its own with these files (sessionctl.yaml among them, or none). */
async function project(files: Record<string, string>): Promise<string> {
  const dir = join(root, `case-${n++}`);
  await mkdir(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const codesOf = (ds: readonly JsonDiagnostic[] | undefined): string[] => (ds ?? []).map((d) => `${d.code}:${d.severity}:${d.range?.start.line ?? '-'}`);

describe('a manifest that is not the shape of a manifest: its findings cannot be suppressed by a comment', () => {
  it.each([
    // The examples.
    ['no user_id, silenced for the file', '# sessionctl-ignore-file schema/required: the user comes later\nname: a\ntoolkits: [gmail]\n', 'schema/required:error:2'],
    ['a list as the user_id, silenced on its line', 'name: a\nuser_id: [u1, u2] # sessionctl-ignore schema/type: two users\ntoolkits: [gmail]\n', 'schema/type:error:2'],
    // New variants of the same class.
    ['the whole schema group silenced for the file', '# sessionctl-ignore-file schema/*: generated\nname: a\ntoolkits: [gmail]\n', 'schema/required:error:2'],
    ['silenced from the line above', 'name: a\n# sessionctl-ignore schema/type: a boolean is fine\nworkbench: true\nuser_id: u\n', 'schema/type:error:3'],
    ['a number as the user_id, silenced with other codes', 'name: a\nuser_id: 12 # sessionctl-ignore rule/empty-allowlist, schema/type: ids are numbers here\ntoolkits: [gmail]\n', 'schema/type:error:2'],
    ['a forbidden __proto__ key, silenced', 'name: a\nuser_id: u\n# sessionctl-ignore schema/forbidden-key: harmless\n__proto__: {x: 1}\n', 'schema/forbidden-key:error:4'],
    ['a list as the toolkits, silenced for the file', '# sessionctl-ignore-file schema/type: written for another tool\nname: a\nuser_id: u\ntoolkits: gmail\n', 'schema/type:error:4'],
  ])('%s: exit 1, the error stays, the comment is a finding of its own', async (_name, manifest, kept) => {
    const dir = await project({ 'm.yaml': manifest });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(codesOf(report.diagnostics)).toContain(kept);
    expect(codesOf(report.suppressed)).toEqual([]);
    expect(report.diagnostics.some((d) => d.code === 'suppression/unknown-code' || d.code === 'suppression/unused')).toBe(true);
  });

  it.each([
    ['no user_id', '# sessionctl-ignore-file schema/required: later\nname: a\ntoolkits: [gmail]\n'],
    ['a list as the user_id', 'name: a\nuser_id: [u1, u2] # sessionctl-ignore schema/type: two\ntoolkits: [gmail]\n'],
    ['a mapping as the user_id', 'name: a\nuser_id: {id: u} # sessionctl-ignore schema/type: nested\ntoolkits: [gmail]\n'],
  ])('plan of a manifest with %s, silenced: stops before planning (exit 1), never shows `user undefined`, writes no state', async (_name, manifest) => {
    const dir = await project({ 'm.yaml': manifest });
    const r = await runCli(['plan', 'm.yaml', '--state', 'state.json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/user (undefined|\[object Object\]|u1,u2)/);
    expect(r.stdout).not.toMatch(/\+ create/);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
  });
});

describe('sessionctl.yaml cannot turn them down', () => {
  it.each([
    ['rules: off', 'rules:\n  schema/required: off\n', 2],
    ['rules: warning', 'rules:\n  schema/type: warning\n', 2],
    ['rules: info', 'rules:\n  schema/forbidden-key: info\n', 2],
    ['an override', 'overrides:\n  - files: ["**"]\n    rules:\n      schema/type: off\n', 4],
    ['an override of the variant code', 'overrides:\n  - files: ["m.yaml"]\n    rules:\n      schema/variant: warning\n', 4],
  ])('%s is config/locked-code (exit 2), located', async (_name, config, line) => {
    const dir = await project({ 'sessionctl.yaml': config, 'm.yaml': 'name: a\ntoolkits: [gmail]\n' });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(codesOf((JSON.parse(r.stdout) as JsonReport).diagnostics)).toEqual([`config/locked-code:error:${line}`]);
  });

  it('`schema/*: off` turns the other schema codes off, never the ones that leave no manifest', async () => {
    const dir = await project({ 'sessionctl.yaml': 'rules:\n  schema/*: off\n', 'm.yaml': 'name: a\ntoolkits: [gmail]\nnope: 1\n' });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(codesOf((JSON.parse(r.stdout) as JsonReport).diagnostics)).toEqual(['schema/required:error:1']);
  });
});

describe('inline_policy_suppression: false', () => {
  const policy = 'policies:\n  - id: max-one\n    message: at most one toolkit\n    max_toolkits: 1\n';
  const manifests: Array<[string, string, number]> = [
    ['a line comment', 'name: a\nuser_id: u\ntoolkits: [gmail, github] # sessionctl-ignore policy/max-one: approved\n', 3],
    ['a comment on the line above', 'name: a\nuser_id: u\n# sessionctl-ignore policy/max-one: approved\ntoolkits: [gmail, github]\n', 4],
    ['a file comment', '# sessionctl-ignore-file policy/max-one: approved\nname: a\nuser_id: u\ntoolkits: [gmail, github]\n', 4],
    ['the policy group', '# sessionctl-ignore-file policy/*: approved\nname: a\nuser_id: u\ntoolkits: [gmail, github]\n', 4],
    ['among other codes', 'name: a\nuser_id: u\ntoolkits: [gmail, github] # sessionctl-ignore rule/empty-allowlist, policy/max-one: approved\n', 3],
  ];

  it.each(manifests)('%s silences the policy by default', async (_name, manifest) => {
    const dir = await project({ 'sessionctl.yaml': policy, 'm.yaml': manifest });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(codesOf((JSON.parse(r.stdout) as JsonReport).suppressed).some((c) => c.startsWith('policy/max-one:'))).toBe(true);
  });

  it.each(manifests)('%s silences nothing when the project forbids it: exit 1, the finding and a comment finding', async (_name, manifest, line) => {
    const dir = await project({ 'sessionctl.yaml': `${policy}inline_policy_suppression: false\n`, 'm.yaml': manifest });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(codesOf(report.suppressed)).toEqual([]);
    expect(codesOf(report.diagnostics)).toContain(`policy/max-one:error:${line}`);
    const comment = report.diagnostics.find((d) => d.code === 'suppression/unknown-code');
    expect(comment?.message).toMatch(/^`policy\/(max-one|\*)` cannot be suppressed: sessionctl\.yaml forbids comments to silence its policies$/);
  });

  it('the setting is checked as a boolean (exit 2 for a string)', async () => {
    const dir = await project({ 'sessionctl.yaml': `${policy}inline_policy_suppression: "no"\n`, 'm.yaml': 'name: a\nuser_id: u\ntoolkits: [gmail]\n' });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode).toBe(2);
    expect(codesOf((JSON.parse(r.stdout) as JsonReport).diagnostics)).toEqual(['config/type:error:5']);
  });

  it('rules in sessionctl.yaml still set the policy (the file is where its owner decides)', async () => {
    const dir = await project({ 'sessionctl.yaml': `${policy}inline_policy_suppression: false\nrules:\n  policy/max-one: warning\n`, 'm.yaml': manifests[0]![1] });
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode).toBe(0);
    expect(codesOf((JSON.parse(r.stdout) as JsonReport).diagnostics)).toContain('policy/max-one:warning:3');
  });
});
