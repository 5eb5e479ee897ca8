import { describe, expect, test } from 'vitest';
import type { Diagnostic, Severity } from '../../src/diagnostics/diagnostic.js';
import { sortDiagnostics, tally } from '../../src/diagnostics/diagnostic.js';
import { ANNOTATIONS_PER_KIND, escapeData, escapeProperty, github } from '../../src/report/github.js';
import type { Report } from '../../src/report/types.js';
import { context, cwd } from './fixture.js';

function many(counts: Record<Severity, number>): Report {
  const diagnostics: Diagnostic[] = [];
  for (const [severity, n] of Object.entries(counts) as [Severity, number][]) {
    for (let i = 1; i <= n; i++) {
      diagnostics.push({
        code: 'schema/type',
        severity,
        message: `${severity} ${i}`,
        file: `${cwd}/m.yaml`,
        range: { start: { line: i, col: 1 }, end: { line: i, col: 5 } },
      });
    }
  }
  const sorted = sortDiagnostics(diagnostics);
  return { command: 'validate', files: [`${cwd}/m.yaml`], diagnostics: sorted, summary: { ...tally(sorted), files: 1, manifests: 1 } };
}

const kinds = (out: string): string[] => out.trimEnd().split('\n').map((l) => /^::(\w+)/.exec(l)?.[1] ?? '?');

describe('escaping', () => {
  test.each([
    ['percent', '100%', '100%25', '100%25'],
    ['newline', 'a\nb', 'a%0Ab', 'a%0Ab'],
    ['carriage return', 'a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
    ['colon', 'a: b', 'a: b', 'a%3A b'],
    ['comma', 'a, b', 'a, b', 'a%2C b'],
    ['an escape sequence is not decoded twice', '%0A', '%250A', '%250A'],
    ['a forged command stays in the message', 'x\n::error::forged', 'x%0A::error::forged', 'x%0A%3A%3Aerror%3A%3Aforged'],
  ])('%s', (_name, input, data, property) => {
    expect(escapeData(input)).toBe(data);
    expect(escapeProperty(input)).toBe(property);
  });

  test('a file name with a comma and a colon is escaped in the file property', () => {
    const r: Report = {
      command: 'validate',
      files: [`${cwd}/a,b:c.yaml`],
      diagnostics: [{ code: 'schema/type', severity: 'error', message: 'm', file: `${cwd}/a,b:c.yaml`, range: { start: { line: 2, col: 3 }, end: { line: 2, col: 4 } } }],
      summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
    };
    expect(github.render(r, context())).toBe('::error file=a%2Cb%3Ac.yaml,line=2,col=3,endLine=2,endColumn=4,title=schema/type::m\n');
  });
});

describe('display budget', () => {
  test('within the budget every diagnostic is an annotation and no notice is added', () => {
    const out = github.render(many({ error: 10, warning: 10, info: 10 }), context());
    expect(kinds(out)).toEqual([...Array(10).fill('error'), ...Array(10).fill('warning'), ...Array(10).fill('notice')]);
    expect(out).not.toContain('not shown');
  });

  test('over the budget: the most severe first, 10 of each kind, then one notice counting the rest', () => {
    const out = github.render(many({ error: 12, warning: 11, info: 10 }), context());
    const lines = out.trimEnd().split('\n');
    // 10 errors, 10 warnings, 9 infos: the closing notice takes the tenth notice slot; the rest
    // follow as plain lines.
    expect(kinds(out)).toEqual([...Array(10).fill('error'), ...Array(10).fill('warning'), ...Array(10).fill('notice'), '?', '?', '?', '?']);
    expect(lines[0]).toBe('::error file=m.yaml,line=1,col=1,endLine=1,endColumn=5,title=schema/type::error 1');
    expect(lines[9]).toContain('::error 10');
    expect(lines[10]).toContain('::warning 1');
    expect(lines[28]).toContain('::info 9');
    expect(lines[29]).toBe(
      '::notice title=sessionctl::4 more problems (2 errors, 1 warning, 1 info) not shown as annotations: ' +
        `GitHub shows at most ${ANNOTATIONS_PER_KIND} of each kind per step. They are listed in the log below.`,
    );
    expect(lines.slice(30)).toEqual([
      '- m.yaml:11:1: error: error 11 [schema/type]',
      '- m.yaml:12:1: error: error 12 [schema/type]',
      '- m.yaml:11:1: warning: warning 11 [schema/type]',
      '- m.yaml:10:1: info: info 10 [schema/type]',
    ]);
  });

  test('warnings after many errors still get their own budget', () => {
    const out = github.render(many({ error: 30, warning: 2, info: 0 }), context());
    expect(kinds(out)).toEqual([...Array(10).fill('error'), 'warning', 'warning', 'notice', ...Array(20).fill('?')]);
    expect(out).toContain('::20 more problems (20 errors) not shown');
  });

  test('a left-out problem is one plain line that cannot be read as a workflow command', () => {
    const r = many({ error: 11, warning: 0, info: 0 });
    r.diagnostics[10] = { ...r.diagnostics[10]!, message: 'bad\n::error::forged\u001b[31m' };
    const last = github.render(r, context()).trimEnd().split('\n').at(-1);
    expect(last).toBe('- m.yaml:11:1: error: bad ::error::forged?[31m [schema/type]');
  });

  test('a file name with a line break cannot start a line of its own', () => {
    const r = many({ error: 11, warning: 0, info: 0 });
    r.diagnostics[10] = { ...r.diagnostics[10]!, file: `${cwd}/x\n::error::y.yaml` };
    const out = github.render(r, context());
    expect(out.trimEnd().split('\n').at(-1)).toBe('- x ::error::y.yaml:11:1: error: error 11 [schema/type]');
    r.diagnostics[0] = { ...r.diagnostics[0]!, file: `${cwd}/x\n::error::y.yaml` };
    expect(github.render(r, context()).split('\n')[0]).toBe('::error file=x%0A%3A%3Aerror%3A%3Ay.yaml,line=1,col=1,endLine=1,endColumn=5,title=schema/type::error 1');
  });

  test('an empty report prints nothing', () => {
    expect(github.render(many({ error: 0, warning: 0, info: 0 }), context())).toBe('');
  });
});
