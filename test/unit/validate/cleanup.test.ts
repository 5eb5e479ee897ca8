import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../scripts/generate/manifest-validator.js';
import { cleanErrors, locateFinding, type AjvError } from '../../../src/validate/cleanup.js';
import { validate as generated } from '../../../src/validate/generated/manifest-validator.js';
import { codeInfo } from '../../../src/diagnostics/codes.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { doc, where } from './helpers.js';

const validate = generated as unknown as { (data: unknown): boolean; errors?: AjvError[] | null };

function schemaFindings(d: ManifestDocument) {
  if (validate(d.data)) return [];
  return cleanErrors([...(validate.errors ?? [])], d).map((f) => locateFinding(f, d, codeInfo(f.code).severity));
}

const cases: Array<{ name: string; yaml: string; expected: string[]; hint?: RegExp }> = [
  { name: 'unknown key at the key, with a did-you-mean', yaml: 'user_id: u\nworkbench:\n  enabel: true\n', expected: ['schema/unknown-key@3:3'], hint: /`enable`/ },
  { name: 'unknown top-level key', yaml: 'user_id: u\ntoolkit: [gmail]\n', expected: ['schema/unknown-key@2:1'], hint: /`toolkits`/ },
  { name: 'missing user_id at the document', yaml: 'name: a\n', expected: ['schema/required@1:1'] },
  { name: 'missing key in a list item', yaml: 'user_id: u\nexperimental:\n  custom_tools:\n    - slug: T\n      name: T\n      description: d\n', expected: ['schema/required@4:7'] },
  { name: 'wrong type at the value', yaml: 'user_id: u\nworkbench:\n  enable: "no"\n', expected: ['schema/type@3:11'], hint: /quotes/ },
  { name: 'number where a string is expected: quote it', yaml: 'user_id: 0755\n', expected: ['schema/type@1:10'], hint: /Quote it: "0755"/ },
  { name: 'shorthand-capable value of the wrong type', yaml: 'user_id: u\ntoolkits: gmail\n', expected: ['schema/type@2:11'], hint: /\[gmail\]/ },
  { name: 'enum lists the allowed values', yaml: 'user_id: u\ntags: [readonlyHint]\n', expected: ['schema/enum@2:8'], hint: /readOnlyHint/ },
  { name: 'pattern', yaml: 'name: Support Agent\nuser_id: u\n', expected: ['schema/pattern@1:7'] },
  { name: 'format', yaml: 'user_id: u\nmanage_connections:\n  callback_url: not a url\n', expected: ['schema/format@3:17'] },
  { name: 'limit: range', yaml: 'user_id: u\nmulti_account: { max_accounts_per_toolkit: 11 }\n', expected: ['schema/limit@2:44'] },
  { name: 'limit: empty string', yaml: 'user_id: ""\n', expected: ['schema/limit@1:10'] },
  { name: 'limit: empty toolkits mapping', yaml: 'user_id: u\ntoolkits: {}\n', expected: ['schema/limit@2:11'] },
  { name: 'duplicate item at the second one', yaml: 'user_id: u\ntoolkits: [gmail, slack, gmail]\n', expected: ['schema/duplicate-item@2:26'] },
  { name: 'forbidden key', yaml: 'user_id: u\nauth_configs:\n  __proto__: ac_1\n', expected: ['schema/forbidden-key@3:3'] },
  { name: 'key that is not a toolkit slug', yaml: 'user_id: u\nauth_configs:\n  "gmail box": ac_1\n', expected: ['schema/pattern@3:3'] },
  { name: 'enable and disable together are left to the rule', yaml: 'user_id: u\ntoolkits: { enable: [a], disable: [b] }\n', expected: [] },
  { name: 'two tools variants are left to the rule', yaml: 'user_id: u\ntools:\n  gmail: { enable: [A], tags: [readOnlyHint] }\n', expected: [] },
  {
    name: 'several problems: one finding each',
    yaml: 'user_id: u\nworkbench:\n  enable: 1\n  sandbox_size: huge\n  proxy: true\n',
    expected: ['schema/type@3:11', 'schema/enum@4:17', 'schema/unknown-key@5:3'],
  },
];

describe('ajv error cleanup', () => {
  it.each(cases)('$name', ({ yaml, expected, hint }) => {
    const found = schemaFindings(doc(yaml));
    expect(where(found).sort()).toEqual([...expected].sort());
    if (hint !== undefined) expect(found.map((d) => d.hint ?? '').join('\n')).toMatch(hint);
  });

  it('reduces a oneOf to the branch whose type fits', () => {
    const { validate: v } = compileSchema({
      type: 'object',
      properties: {
        x: {
          oneOf: [
            { type: 'string' },
            { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false },
          ],
        },
      },
    });
    const data = { x: { a: 'no' } };
    v(data);
    const findings = cleanErrors(v.errors as AjvError[], { data });
    expect(findings.map((f) => `${f.code}@${f.target.pointer}`)).toEqual(['schema/type@/x/a']);
  });

  it('keeps one variant finding when no branch fits', () => {
    const { validate: v } = compileSchema({ type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } });
    const data = { x: [] };
    v(data);
    const findings = cleanErrors(v.errors as AjvError[], { data });
    expect(findings.map((f) => `${f.code}@${f.target.pointer}`)).toEqual(['schema/variant@/x']);
  });

  it('never puts the value of a wrong field into a message', () => {
    const found = schemaFindings(doc('user_id: u\nworkbench:\n  enable: "my secret value"\n'));
    expect(JSON.stringify(found)).not.toContain('my secret value');
  });
});
