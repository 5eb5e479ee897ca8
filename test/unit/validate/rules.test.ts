import { describe, expect, it } from 'vitest';
import { allowlistWithDenylist } from '../../../src/validate/rules/allowlist-with-denylist.js';
import { duplicateName } from '../../../src/validate/rules/duplicate-name.js';
import { emptyAllowlist } from '../../../src/validate/rules/empty-allowlist.js';
import { classifySecret, entropy, literalApiKey, maskSecret } from '../../../src/validate/rules/literal-api-key.js';
import { proxyWithoutWorkbench } from '../../../src/validate/rules/proxy-without-workbench.js';
import { tagConflict } from '../../../src/validate/rules/tag-conflict.js';
import { toolkitNotEnabled } from '../../../src/validate/rules/toolkit-not-enabled.js';
import { toolsVariant } from '../../../src/validate/rules/tools-variant.js';
import { waitWithoutManageConnections } from '../../../src/validate/rules/wait-without-manage-connections.js';
import type { DocumentRule } from '../../../src/validate/rule.js';
import { doc, docs, where } from './helpers.js';

const cases: Array<{ name: string; rule: DocumentRule; yaml: string; expected: string[] }> = [
  {
    name: 'allowlist with denylist: one finding at the later key',
    rule: allowlistWithDenylist,
    yaml: `
      user_id: u
      toolkits:
        enable: [gmail]
        disable: [slack]
    `,
    expected: ['rule/allowlist-with-denylist@4:3'],
  },
  { name: 'allowlist alone is fine', rule: allowlistWithDenylist, yaml: 'user_id: u\ntoolkits: { enable: [gmail] }\n', expected: [] },
  {
    name: 'tools: two variants at once',
    rule: toolsVariant,
    yaml: `
      user_id: u
      tools:
        github: { enable: [GITHUB_GET_A_REPOSITORY], disable: [GITHUB_DELETE_A_REPOSITORY] }
        slack: [SLACK_SEND_MESSAGE]
        gmail: {}
    `,
    expected: ['rule/tools-variant@3:48', 'rule/tools-variant@5:3'],
  },
  { name: 'tools: one variant each is fine', rule: toolsVariant, yaml: 'user_id: u\ntools:\n  github: { tags: [readOnlyHint] }\n', expected: [] },
  {
    name: 'toolkit outside the allowlist',
    rule: toolkitNotEnabled,
    yaml: `
      user_id: u
      toolkits: [gmail]
      tools:
        github: [GITHUB_GET_A_REPOSITORY]
      auth_configs: { gmail: ac_1, slack: ac_2 }
      connected_accounts:
        notion: ca_1
    `,
    expected: ['rule/toolkit-not-enabled@4:3', 'rule/toolkit-not-enabled@5:30', 'rule/toolkit-not-enabled@7:3'],
  },
  {
    name: 'toolkit removed by the denylist',
    rule: toolkitNotEnabled,
    yaml: `
      user_id: u
      toolkits: { disable: [slack] }
      tools:
        slack: { disable: [SLACK_ADD_EMOJI] }
        gmail: [GMAIL_SEND_EMAIL]
    `,
    expected: ['rule/toolkit-not-enabled@4:3'],
  },
  {
    name: 'tag both enabled and disabled, globally and per toolkit',
    rule: tagConflict,
    yaml: `
      user_id: u
      tags: { enable: [readOnlyHint, openWorldHint], disable: [openWorldHint] }
      tools:
        github:
          tags:
            enable: [destructiveHint]
            disable: [idempotentHint, destructiveHint]
    `,
    expected: ['rule/tag-conflict@2:58', 'rule/tag-conflict@7:33'],
  },
  {
    name: 'proxy execution with the workbench off',
    rule: proxyWithoutWorkbench,
    yaml: 'user_id: u\nworkbench:\n  enable: false\n  enable_proxy_execution: true\n',
    expected: ['rule/proxy-without-workbench@4:3'],
  },
  { name: 'proxy execution off with the workbench off is fine', rule: proxyWithoutWorkbench, yaml: 'user_id: u\nworkbench: { enable: false, enable_proxy_execution: false }\n', expected: [] },
  {
    name: 'wait for connections with connection management off',
    rule: waitWithoutManageConnections,
    yaml: 'user_id: u\nmanage_connections: { enable: false, enable_wait_for_connections: true }\n',
    expected: ['rule/wait-without-manage-connections@2:38'],
  },
  { name: 'empty allowlist (object form)', rule: emptyAllowlist, yaml: 'user_id: u\ntoolkits:\n  enable: []\n', expected: ['rule/empty-allowlist@3:11'] },
  { name: 'empty allowlist (shorthand)', rule: emptyAllowlist, yaml: 'user_id: u\ntoolkits: []\n', expected: ['rule/empty-allowlist@2:11'] },
  { name: 'empty denylist is fine', rule: emptyAllowlist, yaml: 'user_id: u\ntoolkits: { disable: [] }\n', expected: [] },
  {
    name: 'literal keys: known prefixes and a random value under a secret-like name',
    rule: literalApiKey,
    yaml: `
      user_id: ghp_abcdefghijklmnopqrstuvwxyz0123456789
      experimental:
        custom_tools:
          - slug: T
            name: T
            description: "calls with sk_live_4eC39HqLyjWDarjtT1zdp7dc"
            input_schema:
              type: object
              properties: {}
              api_token: Zx81kQ0pLm27vBn4Rt6yWq9s
    `,
    expected: ['rule/literal-api-key@1:10', 'rule/literal-api-key@6:20', 'rule/literal-api-key@10:20'],
  },
  {
    name: 'literal keys: prose and ids are not secrets',
    rule: literalApiKey,
    yaml: `
      user_id: user_1234567890
      auth_configs: { gmail: ac_1a2b3c4d5e6f }
      experimental:
        assistive_prompt_config: { user_timezone: Europe/Paris }
    `,
    expected: [],
  },
];

describe('semantic rules', () => {
  it.each(cases)('$name', ({ rule, yaml, expected }) => {
    const found = rule.check(doc(yaml));
    expect(where(found)).toEqual(expected);
    for (const d of found) {
      expect(d.code).toBe(rule.code);
      expect(d.hint).toBeTruthy();
    }
  });

  it('names both keys of an allowlist with a denylist, in one finding with the other as related', () => {
    const [d] = allowlistWithDenylist.check(doc('user_id: u\ntoolkits:\n  disable: [a]\n  enable: [b]\n'));
    expect(d!.message).toContain('`enable`');
    expect(d!.message).toContain('`disable`');
    expect(d!.range!.start).toEqual({ line: 4, col: 3 });
    expect(d!.related![0]!.range!.start).toEqual({ line: 3, col: 3 });
  });

  it('never reports a ${VAR} reference as a literal key, even when the value is a key', () => {
    const d = doc('user_id: ${TOKEN}\n', '/work/m.yaml', { TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' });
    expect(literalApiKey.check(d)).toEqual([]);
  });

  it('shows a literal key masked, never in full', () => {
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const [d] = literalApiKey.check(doc(`user_id: ${secret}\n`));
    expect(d!.message).toContain('****6789');
    expect(JSON.stringify(d)).not.toContain(secret);
    expect(maskSecret(secret)).toBe('****6789');
  });

  it('scores random strings above prose', () => {
    expect(entropy('Zx81kQ0pLm27vBn4Rt6yWq9s')).toBeGreaterThan(4);
    expect(entropy('aaaaaaaaaaaaaaaaaaaaaaaa')).toBe(0);
    expect(classifySecret('this-is-my-long-password-phrase', 'password')).toBeDefined();
    expect(classifySecret('https://example.com/callback', 'callback_url')).toBeUndefined();
  });

  it('finds duplicate names across files, with the first as related', () => {
    const a = docs('name: team\nuser_id: u\n---\nname: other\nuser_id: u\n', '/work/a.yaml');
    const b = docs('user_id: u\n---\nname: team\nuser_id: v\n', '/work/b.yaml');
    const c = docs('user_id: u\n', '/work/x/b.yaml');
    const found = duplicateName.checkAll([...a, ...b, ...c]);
    expect(found.map((d) => `${d.file}:${d.range!.start.line}:${d.range!.start.col}`)).toEqual(['/work/b.yaml:3:7', '/work/x/b.yaml:1:1']);
    expect(found[0]!.related![0]).toMatchObject({ file: '/work/a.yaml', range: { start: { line: 1, col: 7 } } });
    expect(found[1]!.related![0]).toMatchObject({ file: '/work/b.yaml', range: { start: { line: 1, col: 1 } } });
  });
});
