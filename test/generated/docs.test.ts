import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { catalogue, codes, docsAnchor } from '../../src/diagnostics/codes.js';
import { manifestMarkdown, type SchemaNode } from '../../scripts/generate/manifest-md.js';
import { policiesMarkdown } from '../../scripts/generate/policies-md.js';
import { rulesMarkdown } from '../../scripts/generate/rules-md.js';
import { policyKinds } from '../../src/validate/policies/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const schema = JSON.parse(readFileSync(path.join(root, 'schemas/session-manifest.schema.json'), 'utf8')) as SchemaNode;

describe('generated reference docs', () => {
  test('rules.md has one section per code under the anchor SARIF links to', () => {
    const md = rulesMarkdown();
    for (const code of codes) {
      expect(md).toContain(`<a id="${docsAnchor(code)}"></a>\n\n### \`${code}\`\n\nSeverity: **${catalogue[code].severity}**`);
    }
    const anchors = [...md.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]);
    expect(new Set(anchors).size).toBe(codes.length);
  });

  test('rules.md groups codes by stage in pipeline order', () => {
    const md = rulesMarkdown({
      'rule/b': { severity: 'warning', description: 'B.' },
      'input/a': { severity: 'error', description: 'A.' },
      'zzz/c': { severity: 'info', description: 'C.' },
    });
    const headings = [...md.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Reading files (`input/`)', 'Semantic rules (`rule/`)', 'zzz (`zzz/`)', 'Policies (`policy/`)']);
    expect(md).toContain('Severity: **error** (exit code 2).');
    expect(md).toContain('Severity: **warning** (exit code 1 only with `--strict`).');
    expect(md).toContain('Severity: **info** (does not change the exit code).');
  });

  test('policies.md documents every kind of condition with an example and the finding it gives', () => {
    const md = policiesMarkdown(readFileSync(path.join(root, 'docs/policies.md'), 'utf8'), JSON.parse(readFileSync(path.join(root, 'schemas/sessionctl-config.schema.json'), 'utf8')) as SchemaNode);
    for (const kind of policyKinds) {
      expect(md).toContain(`### \`${kind.name}\``);
      expect(md).toMatch(new RegExp(`### \`${kind.name}\`[\\s\\S]*?\`\`\`text\nmanifest\\.yaml:\\d+:\\d+  error  `));
    }
    expect(() => policiesMarkdown('# no markers\n', {} as SchemaNode)).toThrow(/generated:policy-keys/);
  });

  test('manifest.md documents every property of the schema, with type, requiredness and later-field marks', () => {
    const md = manifestMarkdown(schema);
    const walk = (node: SchemaNode | undefined, prefix: string): string[] =>
      Object.entries(node?.properties ?? {}).flatMap(([key, child]) => [`${prefix}${key}`, ...walk(child, `${prefix}${key}.`)]);
    for (const field of walk(schema, '')) expect(md, field).toContain(`${field.includes('.') ? '###' : '##'} \`${field}\``);
    expect(md).toMatch(/\| \[`user_id`\]\(#user_id\) \| string \| yes \|/);
    expect(md).toContain('### `tools.<toolkit>.enable`');
    expect(md).toContain('### `experimental.custom_tools[].input_schema`');
    expect(md).toMatch(/## `preload`\n\nType: object · optional · \*\*later v3 field\*\*\./);
  });

  test('manifest.md resolves $ref, defaults and enums from a small schema', () => {
    const md = manifestMarkdown({
      description: 'Top.',
      required: ['a'],
      properties: {
        a: { $ref: '#/definitions/level', description: 'The level. (later v3 field, not in the 13-endpoint spec)' },
        b: { type: 'integer', default: 3, minimum: 1, description: 'Count.' },
      },
      definitions: { level: { type: 'string', enum: ['low', 'high'] } },
    });
    expect(md).toContain('Type: string · required · **later v3 field**.\n\nThe level.\n\nConstraints: one of `low`, `high`.');
    expect(md).toContain('Type: integer · optional · default: `3`.\n\nCount.\n\nConstraints: minimum 1.');
  });
});
