import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import { catalogue, codes, docsAnchor } from '../../src/diagnostics/codes.js';
import { json } from '../../src/report/json.js';
import { junit, xmlAttr, xmlText } from '../../src/report/junit.js';
import { markdown } from '../../src/report/markdown.js';
import { escapeCell, MARKDOWN_MAX_ROWS } from '../../src/report/markdown-text.js';
import { sarif, SARIF_SCHEMA } from '../../src/report/sarif.js';
import { rulesDocPath } from '../../src/report/tool.js';
import type { Report } from '../../src/report/types.js';
import { cleanReport, context, cwd, report } from './fixture.js';

const reportSchema = JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object;

describe('json', () => {
  const validate = new Ajv({ strict: true, allErrors: true }).compile(reportSchema);

  test.each([
    ['the fixture report', report],
    ['a clean report', cleanReport],
  ])('%s matches schemas/report.schema.json', (_name, r) => {
    const out: unknown = JSON.parse(json.render(r, context()));
    expect(validate(out), JSON.stringify(validate.errors)).toBe(true);
  });

  test.each([
    ['a missing reportVersion', (o: Record<string, unknown>) => delete o['reportVersion']],
    ['a 0-based line', (o: any) => (o.diagnostics[1].range.start.line = 0)],
    ['a Windows path', (o: any) => (o.diagnostics[1].file = 'manifests\\support.yaml')],
    ['an unknown severity', (o: any) => (o.diagnostics[1].severity = 'fatal')],
    ['a missing hint key', (o: any) => delete o.diagnostics[1].hint],
  ])('the schema rejects %s', (_name, spoil) => {
    const out = JSON.parse(json.render(report, context())) as Record<string, unknown>;
    spoil(out);
    expect(validate(out)).toBe(false);
  });

  test('the envelope carries the issue\'s diagnostic keys in order', () => {
    const out = JSON.parse(json.render(report, context()));
    expect(Object.keys(out)).toEqual(['reportVersion', 'tool', 'command', 'files', 'diagnostics', 'summary']);
    expect(Object.keys(out.diagnostics[0])).toEqual(['code', 'severity', 'message', 'file', 'range', 'pointer', 'hint', 'related']);
    expect(out.summary).toEqual({ errors: 4, warnings: 2, infos: 1, files: 3, manifests: 3 });
  });
});

describe('sarif', () => {
  // The parts of the SARIF 2.1.0 schema (OASIS) that consumers such as GitHub code scanning rely on.
  const shape = {
    type: 'object',
    required: ['$schema', 'version', 'runs'],
    properties: {
      version: { const: '2.1.0' },
      runs: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: {
          type: 'object',
          required: ['tool', 'results'],
          properties: {
            columnKind: { enum: ['utf16CodeUnits', 'unicodeCodePoints'] },
            tool: {
              type: 'object',
              required: ['driver'],
              properties: {
                driver: {
                  type: 'object',
                  required: ['name', 'version', 'rules'],
                  properties: {
                    rules: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['id', 'shortDescription', 'help'],
                        properties: {
                          shortDescription: { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1 } } },
                          help: { type: 'object', required: ['text'], properties: { text: { type: 'string', pattern: 'docs/rules\\.md#[a-z0-9-]+ ' } } },
                          defaultConfiguration: { type: 'object', properties: { level: { enum: ['none', 'note', 'warning', 'error'] } } },
                        },
                      },
                    },
                  },
                },
              },
            },
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['ruleId', 'level', 'message', 'locations'],
                properties: {
                  level: { enum: ['none', 'note', 'warning', 'error'] },
                  ruleIndex: { type: 'integer', minimum: 0 },
                  message: { type: 'object', required: ['text'] },
                  // Code scanning needs at least one location per result.
                  locations: { type: 'array', minItems: 1, items: { $ref: '#/definitions/location' } },
                  relatedLocations: { type: 'array', items: { $ref: '#/definitions/location' } },
                },
              },
            },
          },
        },
      },
    },
    definitions: {
      location: {
        type: 'object',
        properties: {
          physicalLocation: {
            type: 'object',
            required: ['artifactLocation'],
            properties: {
              // Relative, forward slashes, no raw characters a URI cannot hold.
              artifactLocation: { type: 'object', required: ['uri'], properties: { uri: { type: 'string', pattern: '^(?![a-z]+:|/)[A-Za-z0-9._~%!$&\'()*+,;=:@/-]+$' } } },
              region: {
                type: 'object',
                required: ['startLine', 'startColumn', 'endLine', 'endColumn'],
                properties: {
                  startLine: { type: 'integer', minimum: 1 },
                  startColumn: { type: 'integer', minimum: 1 },
                  endLine: { type: 'integer', minimum: 1 },
                  endColumn: { type: 'integer', minimum: 1 },
                },
              },
            },
          },
        },
      },
    },
  };
  const validate = new Ajv({ strict: false, allErrors: true }).compile(shape);

  test('the fixture report has the required SARIF shape', () => {
    const out = JSON.parse(sarif.render(report, context()));
    expect(validate(out), JSON.stringify(validate.errors)).toBe(true);
    expect(out.$schema).toBe(SARIF_SCHEMA);
  });

  test('with the default catalogue, rules[] is every code of codes.ts in order, each with its docs anchor', () => {
    const ctx = { ...context(), catalogue: undefined };
    const out = JSON.parse(sarif.render(report, ctx));
    expect(validate(out), JSON.stringify(validate.errors)).toBe(true);
    const rules = out.runs[0].tool.driver.rules as { id: string; help: { text: string }; shortDescription: { text: string } }[];
    expect(rules.map((r) => r.id)).toEqual(codes);
    for (const r of rules) {
      expect(r.help.text).toContain(`${rulesDocPath}#${docsAnchor(r.id as never)}`);
      expect(r.shortDescription.text).toBe(catalogue[r.id as keyof typeof catalogue].description);
    }
    // Each result points at its own rule.
    for (const res of out.runs[0].results) expect(rules[res.ruleIndex]?.id).toBe(res.ruleId);
  });

  test('a diagnostic without a file is a tool execution notification, not a result', () => {
    const run = JSON.parse(sarif.render(report, context())).runs[0];
    expect(run.results.map((r: { ruleId: string }) => r.ruleId)).not.toContain('input/not-found');
    expect(run.results).toHaveLength(report.diagnostics.length - 1);
    expect(run.invocations).toEqual([
      {
        executionSuccessful: false,
        toolExecutionNotifications: [
          { level: 'error', message: { text: 'no manifest matched "manifests/<team>/*_test.yaml"' }, descriptor: { id: 'input/not-found', index: 0 } },
        ],
      },
    ]);
    for (const r of run.results) expect(r.locations).toHaveLength(1);
  });

  test('a result without a range has a location without a region', () => {
    const run = JSON.parse(sarif.render(report, context())).runs[0];
    const empty = run.results.find((r: { ruleId: string }) => r.ruleId === 'yaml/empty');
    expect(empty.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'manifests/team.yaml' } });
  });

  test('a clean run has no invocations block', () => {
    expect(JSON.parse(sarif.render(cleanReport, context())).runs[0].invocations).toBeUndefined();
  });
});

describe('junit', () => {
  test.each([
    ['markup', '<a href="x">&\'', '&lt;a href="x"&gt;&amp;\'', '&lt;a href=&quot;x&quot;&gt;&amp;&apos;'],
    ['line breaks in attributes', 'a\nb\tc', 'a\nb\tc', 'a&#10;b&#9;c'],
    ['characters XML cannot hold', 'a\u0000b\u001bc\ud800', 'a\uFFFDb\uFFFDc\uFFFD', 'a\uFFFDb\uFFFDc\uFFFD'],
    ['a surrogate pair survives', 'ok 😀', 'ok 😀', 'ok 😀'],
  ])('escapes %s', (_name, input, text, attr) => {
    expect(xmlText(input)).toBe(text);
    expect(xmlAttr(input)).toBe(attr);
  });

  test('only errors fail; counts add up', () => {
    const out = junit.render(report, context());
    expect(out.match(/<failure /g)).toHaveLength(report.summary.errors);
    expect(out).toContain('<testsuites name="sessionctl validate" tests="7" failures="4" errors="0">');
  });
});

describe('markdown', () => {
  test.each([
    ['a pipe', 'a | b', 'a \\| b'],
    ['a newline', 'a\nb', 'a<br>b'],
    ['html outside code', '<b>&', '&lt;b&gt;&amp;'],
    ['html inside code is left to the code span', '`<b>`', '`<b>`'],
    ['a pipe inside code', '`a|b`', '`a\\|b`'],
    ['emphasis characters', '*a* _b_ [c](d) ~e~', '\\*a\\* \\_b\\_ \\[c\\](d) \\~e\\~'],
    ['an unpaired backtick', 'it`s *x*', 'it\\`s \\*x\\*'],
  ])('escapes %s', (_name, input, out) => {
    expect(escapeCell(input)).toBe(out);
  });

  test('a file name with a pipe, a backtick and a line break stays in its cell', () => {
    const file = `${cwd}/a|b\`c\nd.yaml`;
    const r: Report = {
      command: 'validate',
      files: [file],
      diagnostics: [{ code: 'schema/type', severity: 'error', message: 'm', file }],
      summary: { errors: 1, warnings: 0, infos: 0, files: 1, manifests: 1 },
    };
    const row = markdown.render(r, context()).split('\n').find((l) => l.startsWith('| ❌'));
    expect(row).toBe('| ❌ error | `` a\\|b`c d.yaml `` | `schema/type` | m |');
  });

  test(`the findings table stops at ${MARKDOWN_MAX_ROWS} rows and says how many are left`, () => {
    const diagnostics = Array.from({ length: MARKDOWN_MAX_ROWS + 7 }, (_, i) => ({
      code: 'schema/type' as const,
      severity: 'error' as const,
      message: `problem ${i + 1}`,
      file: `${cwd}/m.yaml`,
      range: { start: { line: i + 1, col: 1 }, end: { line: i + 1, col: 2 } },
    }));
    const r: Report = { command: 'validate', files: [`${cwd}/m.yaml`], diagnostics, summary: { errors: diagnostics.length, warnings: 0, infos: 0, files: 1, manifests: 1 } };
    const out = markdown.render(r, context());
    expect(out.split('\n').filter((l) => l.startsWith('| ❌ error'))).toHaveLength(MARKDOWN_MAX_ROWS);
    expect(out).toContain(`| problem ${MARKDOWN_MAX_ROWS} |`);
    expect(out).not.toContain(`problem ${MARKDOWN_MAX_ROWS + 1} `);
    expect(out).toContain('_…and 7 more; the log lists every problem._');
  });
});
