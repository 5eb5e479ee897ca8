/**
 * The bad-input suite for policy patterns that match one text in two ways (issue 29, item 5):
 * each `sessionctl.yaml` below is refused when it loads, exit 2, `config/unsafe-pattern` at the
 * pattern's line, and the manifest is never matched against it (the run would take minutes:
 * `^a*b?a*b?a*b?a*$` took 36 s on a 1,000-character user id).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { STACK_LINE } from './bad-input-cases.js';

const patterns: Array<[string, 'user_id_pattern' | 'auth_config_pattern', string]> = [
  ['the issue: optional separators between stars', 'user_id_pattern', '^a*b?a*b?a*b?a*$'],
  ['more optional separators', 'user_id_pattern', '^a*b?a*b?a*b?a*b?a*b?a*b?a*b?a*$'],
  ['optional dashes between letters', 'user_id_pattern', '^[a-z]*-?[a-z]*-?[a-z]*-?[a-z]*$'],
  ['optional space between words', 'auth_config_pattern', '^\\w+\\s?\\w+\\s?\\w+$'],
  ['a fixed part that slides', 'auth_config_pattern', '^a*[ab]b*[bc]c*[cd]d*$'],
  ['alternatives of the same text', 'user_id_pattern', `^${'(x|x)'.repeat(20)}$`],
  ['counted repetitions around an optional part', 'user_id_pattern', '^a{0,100}b?a{0,100}$'],
];

let root: string;
beforeAll(async () => {
  root = tempDir('bad-patterns');
  await mkdir(join(root, '.git'));
  for (const [i, [, kind, pattern]] of patterns.entries()) {
    const dir = join(root, `case-${i}`);
    await mkdir(dir);
    await writeFile(join(dir, 'sessionctl.yaml'), `policies:\n  - id: p\n    message: m\n    ${kind}: ${JSON.stringify(pattern)}\n`);
    await writeFile(join(dir, 'm.yaml'), `name: ok\nuser_id: ${'a'.repeat(1000)}c\nauth_configs: { gmail: ${'ab'.repeat(500)}! }\n`);
  }
});

describe('a pattern that matches one text in two ways: refused at load, exit 2', () => {
  it.each(patterns.map(([name, kind, pattern], i) => [name, kind, pattern, i] as const))('%s', async (_name, kind, _pattern, i) => {
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: join(root, `case-${i}`), env: {} });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    const report = JSON.parse(r.stdout) as { files: string[]; diagnostics: Array<{ code: string; file: string; message: string; range: { start: { line: number; col: number } } }> };
    expect(report.files).toEqual(['sessionctl.yaml']);
    const found = report.diagnostics.filter((d) => d.code === 'config/unsafe-pattern');
    expect(found.map((d) => [d.file, d.range.start.line, d.range.start.col])).toEqual([['sessionctl.yaml', 4, 7 + kind.length]]);
    expect(found[0]!.message).toContain('in more than one way');
    expect(found[0]!.message).toContain(`policies[0].${kind}`);
  });
});
