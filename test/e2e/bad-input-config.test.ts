/**
 * The bad-input suite for the project file: a hostile or broken `sessionctl.yaml` gets the same
 * guarantees as a manifest. Every case ends with exit code 2 (the configuration cannot be
 * trusted), at least one error located in sessionctl.yaml at line:col, no stack trace, within the
 * per-test timeout; a secret written into the file never reaches any output. Each case has its own
 * folder (the file is found there), removed after the run.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Code } from '../../src/diagnostics/codes.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { bytes, laughs, noise, STACK_LINE, utf16 } from './bad-input-cases.js';

interface ConfigCase {
  name: string;
  content: string | Buffer;
  /** At least one error with one of these codes... */
  codes?: readonly Code[];
  /** ...at this line. */
  line?: number;
}

const policy = (condition: string): string => `policies:\n  - id: p\n    message: m\n    ${condition}\n`;

const cases: ConfigCase[] = [
  // The loader's hazards, in the project file.
  { name: 'billion laughs', content: laughs(9, 9), codes: ['yaml/excessive-aliases'], line: 3 },
  { name: '10,000 levels of flow sequences', content: `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, codes: ['input/too-deep'], line: 1 },
  { name: '10,000 levels of flow mappings', content: `rules: ${'{a: '.repeat(10_000)}\n`, codes: ['input/too-deep'], line: 1 },
  { name: 'larger than a configuration needs (300 KiB)', content: `paths: [${'a, '.repeat(100_000)}a]\n`, codes: ['input/too-large'], line: 1 },
  { name: '64 KiB of random bytes', content: noise(64 * 1024, 11), codes: ['input/binary', 'input/invalid-utf8', 'input/utf16'] },
  { name: 'UTF-16 with a byte order mark', content: utf16('paths: [a]\n', true, true), codes: ['input/utf16'], line: 1 },
  { name: 'Latin-1 text', content: bytes('paths: [caf', [0xe9], ']\n'), codes: ['input/invalid-utf8'], line: 1 },
  { name: 'a NUL byte', content: 'paths: [a]\n\0', codes: ['input/binary'], line: 2 },
  { name: 'a JavaScript function tag', content: 'base_url: !!js/function "function () { process.exit(9) }"\n', codes: ['yaml/unknown-tag'], line: 1 },
  { name: 'a Python object tag', content: 'state: !!python/object/apply:os.system ["touch /tmp/pwned"]\n', codes: ['yaml/unknown-tag'], line: 1 },
  { name: 'duplicate keys', content: 'rules: {rule/empty-allowlist: off}\nrules: {rule/empty-allowlist: error}\n', codes: ['yaml/duplicate-key'], line: 2 },
  { name: 'a merge key', content: 'base: &b {rule/empty-allowlist: off}\nrules:\n  <<: *b\n', codes: ['config/unknown-key'], line: 1 },
  { name: 'a __proto__ key', content: '__proto__: {polluted: true}\n', codes: ['config/unknown-key'], line: 1 },
  { name: 'a __proto__ rule key', content: 'rules:\n  __proto__: off\n', codes: ['config/invalid-value', 'config/unknown-key'], line: 2 },
  { name: 'a constructor in required_values', content: policy('required_values: {constructor: 1}'), codes: ['config/unknown-key', 'config/invalid-value'], line: 4 },
  { name: 'a syntax error', content: 'rules:\n  rule/empty-allowlist: off\n policies: []\n', codes: ['yaml/syntax'], line: 3 },
  { name: 'an unclosed quote', content: 'base_url: "https://x\n', codes: ['yaml/syntax'] },
  { name: 'a second document', content: 'paths: [a]\n---\npaths: [b]\n', codes: ['config/invalid-value'], line: 3 },
  { name: 'a list instead of a mapping', content: '- paths: [a]\n', codes: ['config/type'], line: 1 },
  { name: 'a variable that is not set', content: 'state: ${SESSIONCTL_BAD_INPUT_UNSET}\n', codes: ['env/unset-variable'], line: 1 },

  // What only a project file can get wrong.
  { name: 'a nested-quantifier pattern (ReDoS)', content: policy('user_id_pattern: "^(a+)+$"'), codes: ['config/unsafe-pattern'], line: 4 },
  { name: 'an alternation under repetition (ReDoS)', content: policy('user_id_pattern: "^(a|aa)*b$"'), codes: ['config/unsafe-pattern'], line: 4 },
  { name: 'overlapping repetitions (polynomial)', content: policy('auth_config_pattern: "^.*.*.*.*.*.*.*.*x$"'), codes: ['config/unsafe-pattern'], line: 4 },
  { name: 'a backreference', content: policy('user_id_pattern: "^(a)\\\\1$"'), codes: ['config/unsafe-pattern'], line: 4 },
  { name: 'a pattern that does not compile', content: policy('user_id_pattern: "[z-a]"'), codes: ['config/unsafe-pattern'], line: 4 },
  { name: 'a pattern longer than 256 characters', content: policy(`user_id_pattern: "${'a'.repeat(300)}"`), codes: ['config/invalid-value'], line: 4 },
  { name: 'a glob that does not close', content: 'ignore: ["teams/{a,b"]\n', codes: ['config/invalid-value'], line: 1 },
  { name: 'a glob out of the folder', content: 'ignore: ["../../**"]\n', codes: ['config/invalid-value'], line: 1 },
  { name: '201 policies', content: `policies:\n${Array.from({ length: 201 }, (_, i) => `  - {id: p${i}, message: m, max_toolkits: 1}`).join('\n')}\n`, codes: ['config/invalid-value'], line: 2 },
  { name: 'a code that does not exist', content: 'rules:\n  rule/does-not-exist: off\n', codes: ['config/unknown-code'], line: 2 },
  { name: 'turning off unreadable input', content: 'rules:\n  input/*: off\n', codes: ['config/locked-code'], line: 2 },
  { name: 'a policy of two conditions', content: `${policy('max_toolkits: 1')}    denied_toolkits: [github]\n`, codes: ['config/policy-condition'], line: 5 },
  { name: 'an API key as the base URL', content: 'base_url: https://backend.composio.dev/?x-api-key=ak_9f8e7d6c5b4a39281706abcd\n', codes: ['config/secret'], line: 1 },
  { name: 'a password in the state URL', content: 'state: postgres://sessionctl:correct-horse-battery@db.internal/sessions\n', codes: ['config/secret'], line: 1 },
  { name: 'a token in a policy message', content: policy('max_toolkits: 1').replace('message: m', 'message: ghp_0123456789abcdefghijklmnopqrstuvwxyz'), codes: ['config/secret'], line: 3 },
];

/** Secrets the cases above write into the file: none may reach any output. */
const SECRETS = ['ak_9f8e7d6c5b4a39281706abcd', 'correct-horse-battery', 'ghp_0123456789abcdefghijklmnopqrstuvwxyz'];

let root: string;
const folder = (i: number): string => join(root, `case-${i}`);

beforeAll(async () => {
  root = tempDir('bad-config');
  // A repository root: the search for sessionctl.yaml stops here.
  await mkdir(join(root, '.git'));
  for (const [i, c] of cases.entries()) {
    await mkdir(folder(i));
    await writeFile(join(folder(i), 'sessionctl.yaml'), c.content);
    await writeFile(join(folder(i), 'm.yaml'), 'name: ok\nuser_id: u\ntoolkits: [gmail]\n');
  }
}, 60_000);


interface JsonDiagnostic {
  code: Code;
  severity: string;
  file: string | null;
  range: { start: { line: number; col: number } } | null;
}

describe('bad input in sessionctl.yaml: exit 2, a located error, no stack trace', () => {
  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s', { timeout: 5_000 }, async (_name, c, i) => {
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: folder(i), env: {} });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).not.toMatch(/unexpected error/i);
    const report = JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[]; files: string[] };
    // The manifest is never checked with a configuration that cannot be trusted.
    expect(report.files).toEqual(['sessionctl.yaml']);
    const located = report.diagnostics.filter((d) => d.severity === 'error' && d.file === 'sessionctl.yaml' && d.range !== null && d.range.start.line >= 1 && d.range.start.col >= 1);
    const matching = located.filter((d) => (c.codes === undefined || c.codes.includes(d.code)) && (c.line === undefined || d.range?.start.line === c.line));
    expect(matching.length, JSON.stringify(report.diagnostics.map((d) => [d.code, d.range?.start]))).toBeGreaterThan(0);
  });

  it.each(cases.map((c, i) => [c.name, i] as const))('every format for %s: no stack trace, no secret', { timeout: 5_000 }, async (_name, i) => {
    for (const format of ['human', 'github', 'sarif', 'junit', 'markdown']) {
      const r = await runCli(['validate', 'm.yaml', '--format', format], { cwd: folder(i), env: {} });
      expect(r.exitCode).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
      for (const secret of SECRETS) expect(r.stdout + r.stderr).not.toContain(secret);
    }
  });

  it('--config naming a folder, a device or nothing is config/not-found (exit 2)', async () => {
    for (const path of ['.', '/dev/null', 'missing.yaml']) {
      const r = await runCli(['validate', 'm.yaml', '--config', path, '--format', 'json'], { cwd: folder(0), env: {} });
      expect(r.exitCode).toBe(2);
      expect((JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics.map((d) => d.code)).toEqual(['config/not-found']);
    }
  });

  it.each([
    ['a symbolic link to nothing', (at: string) => symlink(join(at, 'gone.yaml'), join(at, 'sessionctl.yaml')), 'sessionctl.yaml was found here, but it is a symbolic link to nothing'],
    ['a folder', (at: string) => mkdir(join(at, 'sessionctl.yaml')), 'sessionctl.yaml was found here, but it is a folder'],
  ])('a sessionctl.yaml found above that is %s stops the run (exit 2) instead of running without its policies', async (name, make, message) => {
    const at = join(root, `found-${name.replaceAll(' ', '-')}`);
    await mkdir(join(at, '.git'), { recursive: true });
    await mkdir(join(at, 'teams'));
    await writeFile(join(at, 'teams', 'm.yaml'), 'user_id: u\n');
    await make(at);
    const r = await runCli(['validate', 'm.yaml'], { cwd: join(at, 'teams'), env: {} });
    expect(r.exitCode).toBe(2);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      `../sessionctl.yaml  error  ${message}  config/not-found`,
      "  hint: Replace it with the project file, or remove it: skipping it would run without the project's rules and policies (`--no-config` runs without any).",
    ]);
    const without = await runCli(['validate', 'm.yaml', '--no-config'], { cwd: join(at, 'teams'), env: {} });
    expect(without.exitCode).toBe(0);
  });

  it.each([
    ['missing', 'missing.json', 'cannot read the catalogue: no such file'],
    ['a folder', '.', 'cannot read the catalogue: EISDIR'],
    ['not JSON', 'not-json.json', 'not JSON: '],
    ['of the wrong shape', 'shape.json', 'catalog: "toolkits" must be an array'],
  ])('a --catalog file %s is an input error naming it (exit 2), before any manifest is read', async (_name, file, message) => {
    const dir = join(root, 'bad-catalog');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'not-json.json'), '{"toolkits": [');
    await writeFile(join(dir, 'shape.json'), '{"toolkits": 1, "tools": []}');
    await writeFile(join(dir, 'm.yaml'), 'name: x\nuser_id: u\ntoolkits: [gmail]\n');
    for (const args of [['--catalog', file], ['--config', 'with-catalog.yaml']]) {
      await writeFile(join(dir, 'with-catalog.yaml'), `catalog: ${JSON.stringify(file)}\n`);
      const r = await runCli(['validate', 'm.yaml', ...args], { cwd: dir, env: {} });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.startsWith(`error: ${file}: ${message}`), r.stderr).toBe(true);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
  });

  it('globs that would backtrack as regular expressions are accepted and match a hostile path at once (the test would time out)', { timeout: 5_000 }, async () => {
    const dir = join(root, 'hostile-glob');
    const deep = join(dir, ...Array.from({ length: 40 }, () => 'a'));
    await mkdir(deep, { recursive: true });
    await writeFile(join(dir, 'sessionctl.yaml'), 'ignore: ["*a*a*a*a*a*a*a*a*b", "**/**/**/**/**/**/x"]\n');
    await writeFile(join(deep, `${'a'.repeat(200)}.yaml`), 'name: x\nuser_id: u\ntoolkits: [gmail]\n');
    const r = await runCli(['validate', '.', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { files: string[] }).files).toEqual([`${'a/'.repeat(40)}${'a'.repeat(200)}.yaml`]);
  });

  it('a safe pattern against a hostile 1,000-character user id ends at once (the test would time out)', { timeout: 5_000 }, async () => {
    const dir = join(root, 'hostile-value');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'sessionctl.yaml'), policy('user_id_pattern: "^[a-z]+-[a-z]+-[a-z]+-[0-9]+$"'));
    await writeFile(join(dir, 'm.yaml'), `name: x\nuser_id: "${'a-'.repeat(500)}!"\n`);
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode).toBe(1);
    expect((JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics.map((d) => d.code)).toContain('policy/p');
  });

  it.each([
    // Each just under the 1 MiB limit.
    ['15,000 comments that suppress nothing', `name: x\nuser_id: u\n${'# sessionctl-ignore rule/empty-allowlist, rule/tag-conflict: r\n'.repeat(15_000)}`],
    ['30,000 comments inside a flow list, without reasons or real codes', `name: x\nuser_id: u\nk: [\n${'  a, # sessionctl-ignore rule/x\n'.repeat(30_000)}]\n`],
  ])('a manifest of %s: at most 101 findings about them, no hang', { timeout: 10_000 }, async (name, text) => {
    const dir = join(root, `many-comments-${name.length}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'm.yaml'), text);
    const r = await runCli(['validate', 'm.yaml', '--no-config', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    const report = JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[] };
    const about = report.diagnostics.filter((d) => d.code.startsWith('suppression/'));
    expect(about.length).toBe(101);
    expect(about.every((d) => d.file === 'm.yaml' && d.range !== null)).toBe(true);
  });
});
