import { describe, expect, it } from 'vitest';
import { validateDocuments } from '../../../src/validate/index.js';
import { doc, docs, where } from './helpers.js';

describe('validateDocuments', () => {
  it('warns about YAML 1.1 readings only where a string is expected', () => {
    const found = validateDocuments([
      doc(`
        user_id: on
        auth_configs: { gmail: ac_1 }
        experimental:
          assistive_prompt_config: { user_timezone: "no" }
          custom_tools:
            - slug: y
              name: "off"
              description: 0755x
              input_schema: { type: object, properties: { a: { default: yes } } }
      `),
    ]);
    expect(where(found)).toEqual(['yaml/yaml11-scalar@1:10', 'yaml/yaml11-scalar@6:13']);
    expect(found[0]!.message).toContain('boolean true');
    expect(found[0]!.hint).toBe('Quote it: "on".');
  });

  it('tells to quote a plain scalar that became a number where a string is expected', () => {
    const [d] = validateDocuments([doc('user_id: 1.10\n')]);
    expect(d).toMatchObject({ code: 'schema/type', range: { start: { line: 1, col: 10 } } });
    expect(d!.hint).toContain('"1.10"');
  });

  it('runs schema, rules and the cross-document rule, sorted by position', () => {
    const found = validateDocuments([
      ...docs(`
        name: a
        user_id: u
        toolkits: { enable: [gmail], disable: [slack] }
        workbench: { enable: false, enable_proxy_execution: true, size: 1 }
        ---
        name: a
        user_id: u
      `),
    ]);
    expect(where(found)).toEqual([
      'rule/allowlist-with-denylist@3:30',
      'rule/proxy-without-workbench@4:29',
      'schema/unknown-key@4:59',
      'rule/duplicate-name@6:7',
    ]);
  });

  it('is clean for a valid manifest', () => {
    expect(validateDocuments([doc('user_id: u\ntoolkits: [gmail]\ntools: { gmail: [GMAIL_SEND_EMAIL] }\n')])).toEqual([]);
  });
});
