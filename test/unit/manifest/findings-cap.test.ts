import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../src/index.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { runCli } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * A file keeps at most 100 of its loader findings (MAX_YAML_FINDINGS) and counts the rest. Errors
 * are kept before warnings: thousands of warnings early in a file must not hide the one error that
 * stops it. Each text puts the warnings first in the order findings are made: unknown directives
 * before the first document, then a valid document, then a document with the error.
 */
const directives = (n: number): string => '%FOO x\n'.repeat(n);
const twoDocuments = (warnings: number, last: string): string => `${directives(warnings)}---\nname: a\nuser_id: u\n---\nname: b\n${last}`;
const where = (d: Diagnostic): string => `${d.code} ${d.severity} ${d.range?.start.line}:${d.range?.start.col} ${d.message}`;
const unknownDirective = (line: number): string => `yaml/directive warning ${line}:1 \`%FOO x\` is not a directive YAML knows`;

describe('the findings cap keeps errors first', () => {
  it('20,000 warnings and one error: the error is kept at its line:col, the warnings counted', () => {
    const r = parseManifest(twoDocuments(20_000, 'user_id: "\\q"\n'), { file: 'm.yaml' });
    expect(r.diagnostics.map(where)).toEqual([
      ...Array.from({ length: 99 }, (_, i) => unknownDirective(i + 1)),
      'yaml/directive warning 100:1 19901 more problems in this file are not shown',
      'yaml/syntax error 20006:11 `\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE)',
    ]);
    expect(r.documents.map((d) => d.name)).toEqual(['a']);
  });

  it('an error after the first hundred findings made from the document itself (an unset ${VAR}) is kept', () => {
    const r = parseManifest(twoDocuments(150, 'user_id: ${USER_ID}\n'), { file: 'm.yaml' });
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map(where);
    expect(errors).toEqual(['env/unset-variable error 156:10 environment variable USER_ID is not set']);
    expect(r.diagnostics).toHaveLength(101);
  });

  it('more than a hundred errors: the first hundred errors are kept, and the count is an error', () => {
    const errors = Array.from({ length: 120 }, (_, i) => `k${i}: !x v`).join('\n');
    const r = parseManifest(`${directives(30)}---\n${errors}\n`, { file: 'm.yaml' });
    // parseManifest sorts by place: the count, at the first finding left out (the first directive), comes first.
    expect(r.diagnostics.map(where)).toEqual([
      'yaml/directive error 1:1 50 more problems in this file are not shown',
      ...Array.from({ length: 100 }, (_, i) => `yaml/unknown-tag error ${i + 32}:${`k${i}: `.length + 1} the tag \`!x\` is not one manifests use`),
    ]);
  });

  it('only warnings: the first hundred are kept in file order and the count is a warning', () => {
    const r = parseManifest(twoDocuments(150, 'user_id: u\n'), { file: 'm.yaml' });
    expect(r.diagnostics.map(where)).toEqual([...Array.from({ length: 100 }, (_, i) => unknownDirective(i + 1)), 'yaml/directive warning 101:1 50 more problems in this file are not shown']);
  });
});

describe('sessionctl validate on a file of many warnings and one error', () => {
  it('shows the error, exits 1, and counts the rest (github format, exact)', async () => {
    const dir = tempDir('findings-cap');
    writeFileSync(join(dir, 'm.yaml'), twoDocuments(20_000, 'user_id: "\\q"\n'));
    const r = await runCli(['validate', 'm.yaml', '--format', 'github'], { cwd: dir });
    const annotation = (line: number): string => `::warning file=m.yaml,line=${line},col=1,endLine=${line},endColumn=7,title=yaml/directive::\`%25FOO x\` is not a directive YAML knows%0A%0Ahint: remove the directive: manifests need none`;
    const logged = (line: number): string => `- m.yaml:${line}:1: warning: \`%FOO x\` is not a directive YAML knows [yaml/directive]`;
    expect(r.stdout.split('\n')).toEqual([
      "::error file=m.yaml,line=20006,col=11,endLine=20006,endColumn=12,title=yaml/syntax::`\\q` is not an escape sequence inside double quotes (yaml BAD_DQ_ESCAPE)%0A%0Ahint: write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character",
      ...Array.from({ length: 10 }, (_, i) => annotation(i + 1)),
      '::notice title=sessionctl::90 more problems (90 warnings) not shown as annotations: GitHub shows at most 10 of each kind per step. They are listed in the log below.',
      ...Array.from({ length: 89 }, (_, i) => logged(i + 11)),
      '- m.yaml:100:1: warning: 19901 more problems in this file are not shown [yaml/directive]',
      '',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(1);
  });

  it('exits 0 when the hundred-and-first finding and all after it are warnings', async () => {
    const dir = tempDir('findings-cap');
    writeFileSync(join(dir, 'm.yaml'), twoDocuments(20_000, 'user_id: u\n'));
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir });
    const report = JSON.parse(r.stdout) as { diagnostics: Array<{ severity: string; message: string }> };
    expect(report.diagnostics).toHaveLength(101);
    expect(report.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    expect(report.diagnostics[100]?.message).toBe('19900 more problems in this file are not shown');
    expect(r.exitCode).toBe(0);
  });
});
