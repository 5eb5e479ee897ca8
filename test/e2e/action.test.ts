import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import YAML from 'yaml';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Runs the composite action of action.yml the way the runner does: each `run:` step as a bash
 * script (`bash --noprofile --norc -eo pipefail`), with `${{ }}` expressions expanded from the
 * inputs, and the GitHub environment files (GITHUB_OUTPUT per step, GITHUB_STEP_SUMMARY) in a
 * temporary workspace. Any expression this harness does not know fails the test, so action.yml
 * cannot grow a step the test silently skips.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface ActionYaml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; name?: string; shell?: string; run?: string; uses?: string; env?: Record<string, string> }> };
}

const action = YAML.parse(readFileSync(path.join(root, 'action.yml'), 'utf8')) as ActionYaml;

interface ActionRun {
  /** The exit status of the first failing step, or 0. */
  status: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** Each step's own streams, in step order. */
  steps: Array<{ stdout: string; stderr: string }>;
}

function expand(text: string, ctx: { inputs: Record<string, string>; steps: Record<string, Record<string, string>> }): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    let m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(expr);
    if (m !== null) {
      if (!(m[1]! in action.inputs)) throw new Error(`action.yml uses an undeclared input: ${expr}`);
      return ctx.inputs[m[1]!] ?? '';
    }
    if (expr === 'github.action_path') return root;
    m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(expr);
    if (m !== null) return ctx.steps[m[1]!]?.[m[2]!] ?? '';
    throw new Error(`the action test does not know the expression \${{ ${expr} }}`);
  });
}

/** Parses a GITHUB_OUTPUT file: `name=value` lines and `name<<DELIM` blocks. */
function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const body: string[] = [];
      while (++i < lines.length && lines[i] !== heredoc[2]) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return out;
}

function bash(file: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

async function runAction(workspace: string, inputs: Record<string, string>, extraEnv: Record<string, string> = {}): Promise<ActionRun> {
  const runnerTemp = tempDir('runner');
  const summaryFile = path.join(runnerTemp, 'step_summary.md');
  writeFileSync(summaryFile, '');
  const allInputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) allInputs[name] = spec.default ?? '';
  Object.assign(allInputs, inputs);
  const ctx = { inputs: allInputs, steps: {} as Record<string, Record<string, string>> };
  const result: ActionRun = { status: 0, stdout: '', stderr: '', outputs: {}, summary: '', steps: [] };
  for (const [index, step] of action.runs.steps.entries()) {
    expect(step.uses, 'composite steps are run: steps, so the test can run them').toBeUndefined();
    expect(step.shell).toBe('bash');
    const outputFile = path.join(runnerTemp, `output_${index}`);
    writeFileSync(outputFile, '');
    const scriptFile = path.join(runnerTemp, `step_${index}.sh`);
    writeFileSync(scriptFile, expand(step.run ?? '', ctx));
    const stepEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = expand(String(v), ctx);
    const run = await bash(scriptFile, workspace, {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: runnerTemp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: root,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: runnerTemp,
      ...extraEnv,
      ...stepEnv,
    });
    result.stdout += run.stdout;
    result.stderr += run.stderr;
    result.steps.push({ stdout: run.stdout, stderr: run.stderr });
    if (step.id !== undefined) ctx.steps[step.id] = parseOutputFile(readFileSync(outputFile, 'utf8'));
    if (run.code !== 0) {
      result.status = run.code;
      break;
    }
  }
  for (const [name, spec] of Object.entries(action.outputs)) result.outputs[name] = expand(spec.value, ctx);
  result.summary = readFileSync(summaryFile, 'utf8');
  return result;
}

const apiKey = 'sk-action-test-5f0c1e7d9a';

/**
 * The tests that run the whole action twice start a dozen node processes through bash; beside a
 * CPU hog on two cores they take up to 12 s, so they get 40 s (half of it stays out of reach).
 */
const ACTION_TWICE_TIMEOUT = 40_000;

const oncall = `name: oncall
user_id: oncall-bot
toolkits: [slack]
`;

const valid = `# yaml-language-server: $schema=../schemas/session-manifest.schema.json
name: support-agent
user_id: user-42
toolkits:
  enable: [gmail, slack]
`;

const invalid = `name: analyst
user_id: user-7
toolkits: [gmail]
workbnch: { enable: false }
tools:
  github: { disable: [GITHUB_DELETE_A_REPOSITORY] }
`;

let workspace: string;
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [apiKey] });
  const bin = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: { sessionctl: string } }).bin.sessionctl;
  expect(existsSync(path.join(root, bin)), 'build first (npm run build); npm test does').toBe(true);
  workspace = tempDir('workspace');
  mkdirSync(path.join(workspace, 'sessions'));
  writeFileSync(path.join(workspace, 'sessions/support.yaml'), valid);
  writeFileSync(path.join(workspace, 'sessions/analyst.yaml'), invalid);
  mkdirSync(path.join(workspace, 'clean'));
  writeFileSync(path.join(workspace, 'clean/support.yaml'), valid);
  writeFileSync(path.join(workspace, 'clean/oncall.yaml'), oncall);
});

afterAll(async () => {
  await emulator.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe('the GitHub Action, run locally', () => {
  test('action.yml declares the documented inputs and outputs, and installs from the repository', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['command', 'paths', 'format', 'state', 'base-url', 'fail-on', 'sarif']),
    );
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['report', 'session-ids', 'mcp-urls', 'exit-code']));
    const install = readFileSync(path.join(root, 'scripts/action-install.sh'), 'utf8');
    expect(install).toContain('npm ci');
    expect(install).toContain('[ -f "$bin" ] || npm run -s build');
  });

  test('validate with findings: annotations on the manifest lines, step summary, JSON report, SARIF, outputs, exit 1', async () => {
    const run = await runAction(workspace, { paths: 'sessions', sarif: 'sessionctl.sarif' });
    expect(run.status).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => /^::(error|warning|notice) /.test(l));
    expect(annotations).toEqual([
      expect.stringMatching(/^::error file=sessions\/analyst\.yaml,line=4,col=1,endLine=4,endColumn=9,title=schema\/unknown-key::/),
      expect.stringMatching(/^::error file=sessions\/analyst\.yaml,line=6,col=3,.*title=rule\/toolkit-not-enabled::/),
    ]);
    expect(run.summary).toContain('sessions/analyst.yaml');
    expect(run.summary).toContain('schema/unknown-key');
    expect(run.outputs['exit-code']).toBe('1');
    const report = JSON.parse(readFileSync(run.outputs['report']!, 'utf8')) as { reportVersion: number; diagnostics: Array<{ code: string }> };
    expect(report.reportVersion).toBe(1);
    expect(report.diagnostics.map((d) => d.code)).toEqual(['schema/unknown-key', 'rule/toolkit-not-enabled']);
    expect(run.outputs['sarif']).toBe('sessionctl.sarif');
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'sessionctl.sarif'), 'utf8')) as {
      version: string;
      runs: Array<{ results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }> }>;
    };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results.map((r) => [r.ruleId, r.locations[0]!.physicalLocation.artifactLocation.uri, r.locations[0]!.physicalLocation.region.startLine])).toEqual([
      ['schema/unknown-key', 'sessions/analyst.yaml', 4],
      ['rule/toolkit-not-enabled', 'sessions/analyst.yaml', 6],
    ]);
    // The human report is in the log, fenced off from workflow-command parsing.
    expect(run.stdout).toMatch(/::stop-commands::(\S+)\n[\s\S]*analyst\.yaml[\s\S]*\n::\1::\n/);
  });

  test('fail-on never reports but passes; the exit code is still an output', async () => {
    const run = await runAction(workspace, { paths: 'sessions', 'fail-on': 'never' });
    expect(run.status).toBe(0);
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.stdout).toContain('title=schema/unknown-key::');
  });

  test('clean manifests pass, with a summary and no annotations', async () => {
    const run = await runAction(workspace, { paths: 'clean', format: 'junit=junit.xml' });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/^::(error|warning) /m);
    expect(run.outputs['exit-code']).toBe('0');
    expect(run.summary).not.toBe('');
    expect(readFileSync(path.join(workspace, 'junit.xml'), 'utf8')).toContain('<testsuites');
  });

  test('missing paths fail with an annotation and exit 2', async () => {
    const run = await runAction(workspace, {});
    expect(run.status).toBe(2);
    expect(run.stdout).toContain("::error title=sessionctl action::input 'paths' is required");
  });

  test('a bad input fails with an annotation and exit 2, before running anything', async () => {
    const run = await runAction(workspace, { command: 'destroy', paths: 'sessions' });
    expect(run.status).toBe(2);
    expect(run.stdout).toContain("::error title=sessionctl action::input 'command' must be validate, plan, apply or diff, not 'destroy'");
  });

  test('apply: sessions created on the service, their ids and MCP URLs as outputs, the key never in the log', async () => {
    const inputs = { command: 'apply', paths: 'clean', 'base-url': emulator.url, 'api-key': apiKey, state: 'state/sessions.json' };
    const run = await runAction(workspace, inputs);
    expect(run.status).toBe(0);
    expect(run.outputs['exit-code']).toBe('0');
    const ids = JSON.parse(run.outputs['session-ids']!) as Record<string, string>;
    const urls = JSON.parse(run.outputs['mcp-urls']!) as Record<string, string>;
    expect(Object.keys(ids).sort()).toEqual(['oncall', 'support-agent']);
    for (const [name, id] of Object.entries(ids)) {
      expect(id).toMatch(/^trs_/);
      expect(urls[name]).toContain(id);
      // The session exists at the service, as declared.
      const res = await fetch(`${emulator.url}/api/v3/tool_router/session/${id}`, { headers: { 'x-api-key': apiKey } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { session_id: string }).session_id).toBe(id);
    }
    const state = JSON.parse(readFileSync(path.join(workspace, 'state/sessions.json'), 'utf8')) as unknown;
    expect(JSON.stringify(state)).toContain(ids['support-agent']);
    expect(run.summary).toMatch(/^### sessionctl apply: /m);
    expect(run.summary).toContain('support-agent');
    expect(run.summary).toContain(ids['support-agent']);
    // The key was masked for the runner, and appears nowhere else.
    expect(run.stdout.split('\n').filter((l) => l.includes(apiKey))).toEqual([`::add-mask::${apiKey}`]);
    expect(run.stderr.split('\n').filter((l) => l.includes(apiKey))).toEqual([`::add-mask::${apiKey}`]);
    expect(run.summary).not.toContain(apiKey);
    expect(readFileSync(run.outputs['report']!, 'utf8')).not.toContain(apiKey);

    // Applied again: nothing changes, the same ids come out.
    const again = await runAction(workspace, inputs);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.outputs['session-ids']!)).toEqual(ids);
  }, ACTION_TWICE_TIMEOUT);

  test('sensitive values: registered with ::add-mask:: before anything else is printed, shown nowhere else', async () => {
    const token = 'hooktoken-Zx81Qa77Lm';
    const user = 'user-private-991';
    mkdirSync(path.join(workspace, 'secret'));
    writeFileSync(path.join(workspace, 'secret/support.yaml'), `name: secret-support\nuser_id: \${SUPPORT_USER}\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://hooks.example.com/cb?token=\${HOOK_TOKEN}"\n`);
    const inputs = { command: 'apply', paths: 'secret', 'base-url': emulator.url, 'api-key': apiKey, state: 'state/secret.json', sensitive: 'SUPPORT_USER' };
    const run = await runAction(workspace, inputs, { HOOK_TOKEN: token, SUPPORT_USER: user });
    expect(run.status, run.stderr).toBe(0);
    // The run step: on stdout the script's own mask of the key comes first, on stderr sessionctl's masks.
    const step = run.steps[action.runs.steps.findIndex((st) => st.id === 'run')]!;
    expect(step.stdout.split('\n')[0]).toBe(`::add-mask::${apiKey}`);
    const stderr = step.stderr.split('\n');
    const masks = stderr.slice(0, stderr.findIndex((l) => !l.startsWith('::add-mask::')));
    expect(new Set(masks)).toEqual(new Set([`::add-mask::${apiKey}`, `::add-mask::${user}`, `::add-mask::https://hooks.example.com/cb?token=${token}`, `::add-mask::${token}`]));
    const rest = [...stderr.slice(masks.length), run.stdout, run.summary, readFileSync(run.outputs['report']!, 'utf8'), readFileSync(path.join(workspace, 'state/secret.json'), 'utf8'), run.outputs['mcp-urls']!].join('\n');
    expect(rest).not.toContain(token);
    expect(rest).not.toContain(user);
    expect(rest).toContain('user (sensitive: SUPPORT_USER)');
  }, ACTION_TWICE_TIMEOUT);

  test('diff: drift after an edit is annotated on the declared line, and the step fails', async () => {
    mkdirSync(path.join(workspace, 'drift'));
    writeFileSync(path.join(workspace, 'drift/support.yaml'), valid);
    const common = { paths: 'drift', 'base-url': emulator.url, 'api-key': apiKey, state: 'state/drift.json' };
    expect((await runAction(workspace, { ...common, command: 'apply' })).status).toBe(0);
    const inSync = await runAction(workspace, { ...common, command: 'diff' });
    expect(inSync.status).toBe(0);
    expect(inSync.stdout).not.toMatch(/^::error /m);

    // The manifest now declares slack alone; the live session still has gmail and slack.
    writeFileSync(path.join(workspace, 'drift/support.yaml'), valid.replace('enable: [gmail, slack]', 'enable: [slack]'));
    const run = await runAction(workspace, { ...common, command: 'diff', sarif: 'drift.sarif' });
    expect(run.status).toBe(1);
    expect(run.outputs['exit-code']).toBe('1');
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations.length).toBeGreaterThan(0);
    for (const a of annotations) expect(a).toMatch(/^::error file=drift\/support\.yaml,line=\d+,col=\d+,.*title=drift\/[a-z-]+::/);
    expect(annotations.some((a) => a.includes('line=5,'))).toBe(true);
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'drift.sarif'), 'utf8')) as { runs: Array<{ results: Array<{ ruleId: string }> }> };
    expect(sarif.runs[0]!.results.map((r) => r.ruleId).every((id) => id.startsWith('drift/'))).toBe(true);
    expect(run.summary).toMatch(/^### sessionctl diff: /m);
  }, ACTION_TWICE_TIMEOUT);

  test('changed-since: a pull-request run checks only the manifests the branch changed', async () => {
    const repo = tempDir('action-git');
    const gitEnv = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv });
    try {
      git('init', '-q', '-b', 'main');
      mkdirSync(path.join(repo, 'sessions'));
      writeFileSync(path.join(repo, 'sessions/legacy.yaml'), invalid); // broken on main already, not this branch's doing
      writeFileSync(path.join(repo, 'sessions/support.yaml'), valid);
      git('add', '.');
      git('commit', '-q', '-m', 'base');
      git('checkout', '-q', '-b', 'feature');
      writeFileSync(path.join(repo, 'sessions/support.yaml'), valid.replace('enable: [gmail, slack]', 'enable: [gmail, slak]\n  disable: [github]'));
      git('commit', '-q', '-am', 'edit support');

      const run = await runAction(repo, { paths: 'sessions', 'changed-since': 'main' }, { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });
      expect(run.status).toBe(1);
      const annotated = run.stdout.split('\n').filter((l) => l.startsWith('::error ')).map((l) => /file=([^,]+)/.exec(l)?.[1]);
      expect(annotated.length).toBeGreaterThan(0);
      expect(new Set(annotated)).toEqual(new Set(['sessions/support.yaml']));
      expect(run.stderr).toContain('--changed-since main: 1 manifest file(s) since');
      const report = JSON.parse(readFileSync(run.outputs['report']!, 'utf8')) as { files: string[] };
      expect(report.files).toEqual(['sessions/support.yaml']);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
