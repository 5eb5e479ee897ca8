import type { CodeInfo } from '../../src/diagnostics/codes.js';
import { sortDiagnostics, tally, type Diagnostic } from '../../src/diagnostics/diagnostic.js';
import type { Report, ReportContext } from '../../src/report/types.js';

/**
 * The one Report every format is tested with: several files, every severity, related places,
 * hints, `<stdin>`, a diagnostic without a file and one without a range, a multi-line range, and
 * a message with the characters GitHub and the table formats must escape.
 */
export const cwd = '/repo';

const support = '/repo/manifests/support.yaml';
const team = '/repo/manifests/team.yaml';

export const sources = new Map<string, string>([
  [
    support,
    [
      'name: support-agent',
      'user_id: ${SUPPORT_USER}',
      'toolkits:',
      '  enable: [github, slack]',
      '  disable: [gmail]',
      'manage_connections:',
      '  enable: true',
      'workbench:',
      '  enable: on',
      '',
    ].join('\n'),
  ],
  [team, ['---', 'name: analyst', 'toolkits:', '  - github', 'tools:', '  github:', '    tags: [readOnlyHint]', ''].join('\n')],
  ['<stdin>', ['name: from-stdin', 'usr_id: alice', ''].join('\n')],
]);

const diagnostics: Diagnostic[] = [
  {
    code: 'rule/allowlist-with-denylist',
    severity: 'error',
    message: '`toolkits` sets both `enable` and `disable`',
    file: support,
    pointer: '/toolkits/disable',
    range: { start: { line: 5, col: 3 }, end: { line: 5, col: 10 } },
    hint: 'keep `enable` (an allowlist) or `disable` (a denylist), not both',
    related: [{ message: 'the allowlist is here', file: support, range: { start: { line: 4, col: 3 }, end: { line: 4, col: 9 } } }],
  },
  {
    code: 'yaml/yaml11-scalar',
    severity: 'warning',
    message: 'plain `on` is a boolean (true|false) to YAML 1.1 parsers: 100% of them,\nbut a string here',
    file: support,
    pointer: '/workbench/enable',
    range: { start: { line: 9, col: 11 }, end: { line: 9, col: 13 } },
    hint: 'write true, or quote it: "on"',
  },
  {
    code: 'input/not-found',
    severity: 'error',
    message: 'no manifest matched "manifests/<team>/*_test.yaml"',
  },
  {
    code: 'schema/required',
    severity: 'error',
    message: 'a manifest needs `user_id`',
    file: team,
    pointer: '',
    range: { start: { line: 2, col: 1 }, end: { line: 8, col: 1 } },
  },
  {
    code: 'yaml/directive',
    severity: 'info',
    message: 'the document starts with an explicit `---`',
    file: team,
    range: { start: { line: 1, col: 1 }, end: { line: 1, col: 4 } },
  },
  {
    code: 'yaml/empty',
    severity: 'warning',
    message: 'the file ends with an empty document',
    file: team,
  },
  {
    code: 'schema/unknown-key',
    severity: 'error',
    message: 'unknown key `usr_id`',
    file: '<stdin>',
    pointer: '/usr_id',
    range: { start: { line: 2, col: 1 }, end: { line: 2, col: 7 } },
    hint: 'did you mean `user_id`?',
  },
];

export const report: Report = {
  command: 'validate',
  files: [support, team, '<stdin>'],
  diagnostics: sortDiagnostics(diagnostics),
  summary: { ...tally(diagnostics), files: 3, manifests: 3 },
};

/** A fixed catalogue, so that the expected SARIF does not change when codes are added. */
export const catalogue: Record<string, CodeInfo> = {
  'input/not-found': { severity: 'error', description: 'A path given on the command line does not exist or matched no manifest.' },
  'rule/allowlist-with-denylist': { severity: 'error', description: '`toolkits` sets both `enable` and `disable`; the service accepts only one.' },
  'schema/required': { severity: 'error', description: 'A required key is missing.' },
};

export function context(color = false): ReportContext {
  return { cwd, color, toolVersion: '1.2.3', sources, catalogue };
}

/** The report with diagnostics only and nothing found: what a clean run renders. */
export const cleanReport: Report = {
  command: 'validate',
  files: [support, team],
  diagnostics: [],
  summary: { errors: 0, warnings: 0, infos: 0, files: 2, manifests: 5 },
};
