import { catalogue, docsAnchor, isInputCode, isLockedCode, isServiceCode, isStateCode, type Code, type CodeInfo } from '../../src/diagnostics/codes.js';

/** What each stage prefix means, in pipeline order. A prefix not listed here still gets a section. */
const stages: ReadonlyArray<{ prefix: string; title: string; about: string }> = [
  { prefix: 'input', title: 'Reading files', about: 'The file could not be read as text at all. These end the run with exit code 2.' },
  { prefix: 'yaml', title: 'YAML', about: 'The text is not a YAML document that sessionctl accepts. Manifests are read as YAML 1.2, with no custom tags.' },
  { prefix: 'env', title: 'Environment interpolation', about: '`${VAR}` and `${VAR:-default}` references, expanded before validation.' },
  { prefix: 'schema', title: 'Schema', about: 'The document does not match `schemas/session-manifest.schema.json` (see [the manifest reference](manifest.md)).' },
  { prefix: 'rule', title: 'Semantic rules', about: 'Rules beyond the schema, one file each under `src/validate/rules/`.' },
  {
    prefix: 'catalog',
    title: 'Catalogue',
    about:
      'Toolkit and tool slugs checked offline against the catalogue bundled with sessionctl (530 toolkits and their tools), or the file given with `--catalog FILE` (the format `sessionctl emulator --catalog` takes). Warnings by default, since the service\'s catalogue moves; `rules: {catalog/*: error}` in `sessionctl.yaml` makes them errors.',
  },
  {
    prefix: 'config',
    title: 'Project configuration',
    about: 'The project configuration, `sessionctl.yaml` (see [configuration.md](configuration.md)). An error here ends the run with exit code 2 before any manifest is trusted.',
  },
  {
    prefix: 'suppression',
    title: 'Suppressions',
    about: 'Inline `# sessionctl-ignore CODE: reason` comments. These can be turned down in `sessionctl.yaml`, but not suppressed by another comment.',
  },
  { prefix: 'plan', title: 'Plan', about: 'Planning what `apply` would do against the state file.' },
  { prefix: 'state', title: 'State', about: 'The state file that records applied sessions.' },
  { prefix: 'apply', title: 'Apply', about: 'Creating sessions and checking what the service returned.' },
  { prefix: 'drift', title: 'Drift', about: 'Differences between the declared manifest and the effective config of a live session.' },
  { prefix: 'api', title: 'Service', about: 'The service failed or refused a request.' },
];

function exitNote(code: Code, info: CodeInfo): string {
  if (isInputCode(code) && info.severity === 'error') return 'exit code 2';
  if (isStateCode(code) && info.severity === 'error') return 'exit code 5';
  if (isServiceCode(code) && info.severity === 'error') return 'exit code 3';
  if (info.severity === 'error') return 'exit code 1';
  if (info.severity === 'warning') return 'exit code 1 only with `--strict`';
  return 'does not change the exit code';
}

/**
 * `docs/rules.md`: one section per diagnostic code, under the anchor that each SARIF rule's help
 * names (`docsAnchor`), grouped by the stage that reports it. Generated from
 * the catalogue, so a new code cannot go undocumented (a test compares it with the committed file).
 */
export function rulesMarkdown(codes: Readonly<Record<string, CodeInfo>> = catalogue): string {
  const all = Object.keys(codes) as Code[];
  const prefixes = [...new Set(all.map(prefixOf))];
  const ordered = [
    ...stages.filter((s) => prefixes.includes(s.prefix)),
    ...prefixes.filter((p) => !stages.some((s) => s.prefix === p)).map((p) => ({ prefix: p, title: p, about: '' })),
  ];
  const out: string[] = [
    '# Diagnostic codes',
    '',
    '<!-- Generated from src/diagnostics/codes.ts by `npm run generate`; do not edit by hand. -->',
    '',
    'Every finding sessionctl reports carries one of these codes. Codes are stable: match on them in CI',
    'filters and SARIF baselines, never on message text. The severity below is the default; the exit',
    'code follows from it ([exit codes](commands.md#exit-codes)). Each SARIF rule\'s help text names its section here.',
    '',
    '| Code | Severity | Description |',
    '|---|---|---|',
    ...all.map((code) => `| [\`${code}\`](#${docsAnchor(code)}) | ${codes[code]!.severity} | ${tableCell(codes[code]!.description)} |`),
  ];
  for (const stage of ordered) {
    out.push('', `## ${stage.title} (\`${stage.prefix}/\`)`, '');
    if (stage.about !== '') out.push(stage.about, '');
    for (const code of all.filter((c) => prefixOf(c) === stage.prefix)) {
      const info = codes[code]!;
      out.push(`<a id="${docsAnchor(code)}"></a>`, '', `### \`${code}\``, '', `Severity: **${info.severity}** (${exitNote(code, info)}).`, '', info.description, '');
      if (isLockedCode(code)) out.push('Cannot be turned down in `sessionctl.yaml` or suppressed by a comment.', '');
    }
  }
  out.push(
    '',
    '## Policies (`policy/`)',
    '',
    'A project\'s own policies, declared in `sessionctl.yaml`, report under `policy/<id>` with the',
    'severity and message the policy sets. The policy language is in [policies.md](policies.md).',
  );
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

function prefixOf(code: string): string {
  return code.split('/')[0] ?? code;
}

function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
