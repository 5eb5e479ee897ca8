import { describe, expect, test } from 'vitest';
import { renderHuman, summaryLine } from '../../src/report/human.js';
import { safeText } from '../../src/report/text.js';
import { createStyle } from '../../src/report/ansi.js';
import type { HumanSection } from '../../src/report/sections/index.js';
import type { Report } from '../../src/report/types.js';
import { context, cwd, report } from './fixture.js';

const ESC = '\u001b';

const small: Report = {
  command: 'validate',
  files: [`${cwd}/a.yaml`],
  diagnostics: [
    { code: 'schema/type', severity: 'error', message: 'must be a string', file: `${cwd}/a.yaml`, range: { start: { line: 1, col: 10 }, end: { line: 1, col: 12 } } },
  ],
  summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
};
const smallCtx = { ...context(), sources: new Map([[`${cwd}/a.yaml`, 'user_id: 42\n']]) };

describe('colour', () => {
  test('off: no escape sequence anywhere', () => {
    expect(renderHuman(report, context(false))).not.toContain(ESC);
  });

  test('on: exact output with ANSI styles', () => {
    expect(renderHuman(small, { ...smallCtx, color: true })).toBe(
      [
        `${ESC}[1ma.yaml:1:10${ESC}[22m  ${ESC}[31merror${ESC}[39m  must be a string  ${ESC}[2mschema/type${ESC}[22m`,
        `  ${ESC}[31m>${ESC}[39m ${ESC}[2m1 |${ESC}[22m user_id: 42`,
        `    ${ESC}[2m  |${ESC}[22m          ${ESC}[31m^^${ESC}[39m`,
        '',
        `${ESC}[1m${ESC}[31m✖ 1 problem (1 error) in 1 file${ESC}[39m${ESC}[22m`,
        '',
      ].join('\n'),
    );
  });

  test('on and off differ only by escape sequences', () => {
    const plain = renderHuman(report, context(false));
    // eslint-disable-next-line no-control-regex
    expect(renderHuman(report, context(true)).replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });
});

describe('summary line', () => {
  const base = { command: 'validate', files: [], diagnostics: [] };
  test.each([
    ['nothing at all', { errors: 0, warnings: 0, infos: 0, files: 0, manifests: 0 }, '✔ No problems'],
    ['one clean manifest', { errors: 0, warnings: 0, infos: 0, files: 1, manifests: 1 }, '✔ No problems in 1 manifest (1 file)'],
    ['files without manifests', { errors: 0, warnings: 0, infos: 0, files: 2, manifests: 0 }, '✔ No problems in 2 files'],
  ])('%s', (_name, summary, line) => {
    expect(summaryLine({ ...base, summary }, createStyle(false))).toBe(line);
  });

  test('warnings only', () => {
    const r: Report = { ...small, diagnostics: [{ ...small.diagnostics[0]!, severity: 'warning' }] };
    expect(summaryLine(r, createStyle(false))).toBe('⚠ 1 problem (1 warning) in 1 file');
  });

  test('info only is no problem: it is counted, not called a problem', () => {
    const info = { ...small.diagnostics[0]!, severity: 'info' as const };
    const r: Report = { ...small, diagnostics: [info, info, info, info], summary: { ...small.summary, errors: 0, infos: 4 } };
    expect(summaryLine(r, createStyle(false))).toBe('✔ No problems (4 info) in 1 manifest (1 file)');
  });

  test('info next to problems is counted after them', () => {
    const r: Report = { ...small, diagnostics: [{ ...small.diagnostics[0]!, severity: 'warning' }, { ...small.diagnostics[0]!, severity: 'info' }] };
    expect(summaryLine(r, createStyle(false))).toBe('⚠ 1 problem (1 warning) and 1 info in 1 file');
  });
});

describe('safety', () => {
  test('control characters in a message are escaped, not sent to the terminal', () => {
    expect(safeText('key \u001b[2Jx\u0007')).toBe('key \\u001b[2Jx\\u0007');
    const r: Report = { ...small, diagnostics: [{ ...small.diagnostics[0]!, message: 'unknown key `a\u001b]0;pwned\u0007`' }] };
    expect(renderHuman(r, smallCtx)).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });
});

describe('file names', () => {
  test('control characters and line breaks in a file name are escaped', () => {
    const file = `${cwd}/evil\u001b[2J\n::error::x.yaml`;
    const r: Report = { ...small, files: [file], diagnostics: [{ ...small.diagnostics[0]!, file, related: [{ message: 'also', file }] }] };
    const out = renderHuman(r, { ...smallCtx, sources: new Map() });
    expect(out.split('\n')[0]).toBe('evil\\u001b[2J\\u000a::error::x.yaml:1:10  error  must be a string  schema/type');
    expect(out).toContain('  related: evil\\u001b[2J\\u000a::error::x.yaml  also');
  });
});

describe('sections', () => {
  test('a command section is printed after the diagnostics and before the summary line', () => {
    const section: HumanSection = (r, _ctx, style) => style.bold(`Plan for ${r.command}: 1 to create`);
    const empty: HumanSection = () => '';
    expect(renderHuman(small, smallCtx, [section, empty])).toBe(
      [
        'a.yaml:1:10  error  must be a string  schema/type',
        '  > 1 | user_id: 42',
        '      |          ^^',
        '',
        'Plan for validate: 1 to create',
        '',
        '✖ 1 problem (1 error) in 1 file',
        '',
      ].join('\n'),
    );
  });
});
