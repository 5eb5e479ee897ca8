import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { applyDiagnosticControls } from '../../../src/validate/controls.js';
import type { SeverityControls } from '../../../src/validate/severity.js';
import { dedent } from './helpers.js';

const dir = '/project';

function at(code: string, file: string, line: number, severity: Diagnostic['severity'] = 'error'): Diagnostic {
  return { code: code as Diagnostic['code'], severity, message: `${code} here`, file, range: { start: { line, col: 3 }, end: { line, col: 9 } } };
}

function shown(ds: readonly Diagnostic[]): string[] {
  return ds.map((d) => `${d.code}@${d.file!.slice(dir.length + 1)}:${d.range?.start.line}:${d.range?.start.col} ${d.severity}`);
}

describe('severities from sessionctl.yaml', () => {
  const findings = [
    at('rule/empty-allowlist', `${dir}/a.yaml`, 2, 'warning'),
    at('catalog/unknown-toolkit', `${dir}/a.yaml`, 3, 'warning'),
    at('catalog/unknown-tool', `${dir}/sandbox/b.yaml`, 4, 'warning'),
    at('rule/empty-allowlist', `${dir}/sandbox/deep/c.yaml`, 5, 'warning'),
    at('yaml/syntax', `${dir}/sandbox/d.yaml`, 1),
    at('rule/literal-api-key', '/elsewhere/e.yaml', 1),
  ];

  it('apply rules everywhere, then each matching override, a later one winning; an exact code beats its group', () => {
    const severities: SeverityControls = {
      dir,
      rules: { 'catalog/*': 'error', 'catalog/unknown-tool': 'info', 'rule/literal-api-key': 'warning' },
      overrides: [
        { files: ['sandbox/**'], rules: { 'rule/empty-allowlist': 'off', 'catalog/*': 'warning', 'yaml/syntax': 'off' } },
        { files: ['sandbox/deep'], rules: { 'rule/empty-allowlist': 'error' } },
      ],
    };
    expect(shown(applyDiagnosticControls(findings, { severities }).diagnostics.filter((d) => d.file!.startsWith(dir)))).toEqual([
      'rule/empty-allowlist@a.yaml:2:3 warning',
      'catalog/unknown-toolkit@a.yaml:3:3 error',
      'catalog/unknown-tool@sandbox/b.yaml:4:3 warning',
      // A locked code keeps its severity whatever the file says.
      'yaml/syntax@sandbox/d.yaml:1:3 error',
      'rule/empty-allowlist@sandbox/deep/c.yaml:5:3 error',
    ]);
    // A file outside the project's folder gets the global rules only.
    expect(applyDiagnosticControls(findings, { severities }).diagnostics.find((d) => d.file === '/elsewhere/e.yaml')?.severity).toBe('warning');
  });

  it('without settings, every finding stays as it is', () => {
    expect(applyDiagnosticControls(findings).diagnostics).toHaveLength(findings.length);
  });
});

describe('suppression comments', () => {
  const file = `${dir}/m.yaml`;
  const source = dedent(`
    # sessionctl-ignore-file catalog/unknown-tool: the catalogue lags the service for this toolkit
    name: a   # sessionctl-ignore rule/tag-conflict, policy/no-proxy: reviewed in PLAT-12
    # sessionctl-ignore rule/empty-allowlist
    toolkits:
      enable: []
    # sessionctl-ignore catalog/*: group
    tools: {}
    # sessionctl-ignore yaml/syntax, rule/nope: cannot
    # sessionctl-ignore rule/empty-allowlist: two lines above the finding

    x: 1
  `);
  const sources = new Map([[file, source]]);

  it('silence findings on their line or the next, or in the file, and list them with their reason', () => {
    const findings = [
      at('catalog/unknown-tool', file, 11, 'warning'),
      at('policy/no-proxy', file, 2),
      at('rule/empty-allowlist', file, 4, 'warning'),
      at('catalog/unknown-toolkit', file, 7, 'warning'),
      at('rule/empty-allowlist', file, 11, 'warning'),
      at('yaml/syntax', file, 9),
    ];
    const r = applyDiagnosticControls(findings, { sources, policyCodes: ['policy/no-proxy'] });
    expect(r.suppressed.map((d) => `${d.code}@${d.range?.start.line} by ${d.suppression.range.start.line}: ${d.suppression.justification}`)).toEqual([
      'policy/no-proxy@2 by 2: reviewed in PLAT-12',
      'rule/empty-allowlist@4 by 3: ',
      'catalog/unknown-toolkit@7 by 6: group',
      'catalog/unknown-tool@11 by 1: the catalogue lags the service for this toolkit',
    ]);
    expect(r.suppressed.every((d) => d.suppression.kind === 'inSource' && d.suppression.file === file)).toBe(true);
    expect(r.diagnostics.map((d) => `${d.code}@${d.range?.start.line}:${d.range?.start.col}`)).toEqual([
      'suppression/unused@2:31',
      'suppression/missing-reason@3:1',
      'suppression/unknown-code@8:21',
      'suppression/unknown-code@8:34',
      'yaml/syntax@9:3',
      'suppression/unused@9:21',
      'rule/empty-allowlist@11:3',
    ]);
    const byCode = (code: string) => r.diagnostics.filter((d) => d.code === code).map((d) => d.message);
    expect(byCode('suppression/unknown-code')).toEqual(['`yaml/syntax` cannot be suppressed', '`rule/nope` is not a diagnostic code']);
    expect(byCode('suppression/unused')).toEqual([
      '`rule/tag-conflict` is suppressed here, but no `rule/tag-conflict` finding is on line 2 or 3',
      '`rule/empty-allowlist` is suppressed here, but no `rule/empty-allowlist` finding is on line 9 or 10',
    ]);
  });

  it('are applied after severities: a code turned off leaves its comment unused, and comment findings take the project severity', () => {
    const r = applyDiagnosticControls([at('policy/no-proxy', file, 2)], {
      sources,
      policyCodes: ['policy/no-proxy'],
      severities: { dir, rules: { 'policy/no-proxy': 'off', 'suppression/missing-reason': 'error' }, overrides: [] },
    });
    expect(r.suppressed).toEqual([]);
    expect(r.diagnostics.filter((d) => d.code === 'suppression/missing-reason').map((d) => d.severity)).toEqual(['error']);
    expect(r.diagnostics.filter((d) => d.code === 'suppression/unused').map((d) => d.message)).toContain(
      '`policy/no-proxy` is suppressed here, but no `policy/no-proxy` finding is on line 2 or 3',
    );
  });

  it('a policy code no project declares is unknown', () => {
    const r = applyDiagnosticControls([], { sources });
    expect(r.diagnostics.filter((d) => d.code === 'suppression/unknown-code').map((d) => d.message)).toContain('`policy/no-proxy` is not a diagnostic code or a policy of sessionctl.yaml');
  });
});
