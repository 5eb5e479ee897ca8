import { describe, expect, it } from 'vitest';
import { builtInCatalog, catalogFromJson } from '../../../src/catalog/catalog.js';
import { sortDiagnostics } from '../../../src/diagnostics/diagnostic.js';
import { validateDocument } from '../../../src/validate/index.js';
import { toolWrongToolkit } from '../../../src/validate/rules/tool-wrong-toolkit.js';
import { unknownTool } from '../../../src/validate/rules/unknown-tool.js';
import { unknownToolkit } from '../../../src/validate/rules/unknown-toolkit.js';
import { catalogSlugs } from '../../../src/validate/catalog-slugs.js';
import { completion } from '../../../src/validate/did-you-mean.js';
import type { CatalogRule } from '../../../src/validate/rule.js';
import type { Catalog } from '../../../src/catalog/catalog.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { doc, where } from './helpers.js';

const check = (rule: CatalogRule, d: ManifestDocument, catalog: Catalog) => rule.check(d, catalog, catalogSlugs(d.data));

describe('catalogue checks (bundled catalogue)', () => {
  it('unknown toolkit slugs, wherever a manifest names one, with did-you-mean', async () => {
    const catalog = await builtInCatalog();
    const d = doc(`
      toolkits: [github, gitub, GitHub]
      tools:
        slakc: [SLACK_SEND_MESSAGE]
      auth_configs: { gmial: ac_1 }
      connected_accounts: { nosuchtoolkitatall: ca_1 }
      experimental:
        custom_toolkits: [{ slug: mine, name: Mine, tools: [] }]
    `);
    const found = check(unknownToolkit, d, catalog);
    expect(where(found)).toEqual(['catalog/unknown-toolkit@1:20', 'catalog/unknown-toolkit@1:27', 'catalog/unknown-toolkit@3:3', 'catalog/unknown-toolkit@4:17', 'catalog/unknown-toolkit@5:23']);
    expect(found.map((f) => f.hint)).toEqual([
      'Did you mean `github`?',
      'Did you mean `github`?',
      'Did you mean `slack`?',
      'Did you mean `gmail`?',
      'Check the slug; if the toolkit is newer than the bundled catalogue, pass a current one with `--catalog FILE`.',
    ]);
    expect(found.every((f) => f.severity === 'warning')).toBe(true);
  });

  it('a tool under a toolkit it does not belong to names the right toolkit', async () => {
    const found = check(toolWrongToolkit, doc('tools:\n  github:\n    enable: [GITHUB_GET_A_REPOSITORY, GMAIL_SEND_EMAIL]\n'), await builtInCatalog());
    expect(where(found)).toEqual(['catalog/tool-wrong-toolkit@3:39']);
    expect(found[0]?.message).toBe('`GMAIL_SEND_EMAIL` is a tool of `gmail`, not of `github`');
    expect(found[0]?.hint).toContain('`tools.gmail`');
  });

  it('unknown tool slugs of toolkits the catalogue lists tools for, under tools and in preload', async () => {
    const found = check(
      unknownTool,
      doc(`
        tools:
          github: { disable: [GITHUB_DELETE_A_REPOSITRY] }
          _21risk: [_21RISK_ANYTHING]
        preload:
          tools: [GITHUB_GET_A_REPOSITORY, GITHUB_NOPE_NOPE, COMPOSIO_SEARCH_TOOLS, SALESFORCE_CREATE_LEAD]
      `),
      await builtInCatalog(),
    );
    // _21risk and salesforce have no tool list in the catalogue: their tools are unknown, not wrong.
    expect(where(found)).toEqual(['catalog/unknown-tool@2:23', 'catalog/unknown-tool@5:36']);
    expect(found[0]?.hint).toBe('Did you mean `GITHUB_DELETE_A_REPOSITORY`?');
  });

  it('a --catalog file replaces the bundled one', () => {
    const catalog = catalogFromJson({ toolkits: [{ slug: 'acme' }], tools: [{ slug: 'ACME_PING', toolkit: 'acme' }] });
    const d = doc('toolkits: [acme, github]\ntools:\n  acme: [ACME_PING, ACME_PONG]\n');
    expect(where([...check(unknownToolkit, d, catalog), ...check(unknownTool, d, catalog)])).toEqual(['catalog/unknown-toolkit@1:18', 'catalog/unknown-tool@3:21']);
  });
});

describe('keywords where a toolkit belongs', () => {
  it('tools.enable is a misplaced key with the likely intent, not "add enable to the allowlist"', () => {
    const found = validateDocument(doc('name: a\nuser_id: u\ntoolkits: [github]\ntools:\n  enable: [GITHUB_GET_A_REPOSITORY]\n'));
    expect(where(found)).toEqual(['rule/misplaced-key@5:3']);
    expect(found[0]?.hint).toBe('To choose tools, list them under their toolkit: `tools: {github: {enable: [...]}}`; to choose toolkits, `toolkits: {enable: [...]}`.');
  });

  it.each([
    ['toolkits under tools', 'name: a\nuser_id: u\ntools:\n  disable: [slack]\n', ['rule/misplaced-key@4:3'], 'To choose toolkits, write `toolkits: {disable: [...]}`'],
    ['a lost indentation under a toolkit', 'name: a\nuser_id: u\ntools:\n  github:\n  enable: [GITHUB_GET_A_REPOSITORY]\n', ['schema/type@4:3', 'rule/misplaced-key@5:3'], 'indent `enable` under `github`'],
    ['a lost indentation at the top', 'name: a\nuser_id: u\ntoolkits:\nenable: [github]\n', ['schema/type@3:1', 'schema/unknown-key@4:1'], 'indent `enable` under `toolkits`'],
    ['a toolkit under toolkits', 'name: a\nuser_id: u\ntoolkits:\n  github: {enable: [X]}\n', ['schema/unknown-key@4:3'], 'use `tools.github`'],
    ['a slip of enable under toolkits is no toolkit', 'name: a\nuser_id: u\ntoolkits:\n  enabled: [github]\n', ['schema/unknown-key@4:3'], 'Did you mean `enable`?'],
    ['a slip of disable under toolkits, any case', 'name: a\nuser_id: u\ntoolkits:\n  Disabel: [github]\n', ['schema/unknown-key@4:3'], 'Did you mean `disable`?'],
    ['a key cut short', 'name: a\nuser_id: u\nworkbench:\n  enable_proxy: false\n', ['schema/unknown-key@4:3'], 'Did you mean `enable_proxy_execution`?'],
    ['a tag as a key', 'name: a\nuser_id: u\ntags:\n  readOnlyHint: true\n', ['schema/unknown-key@4:3'], '`tags: {enable: [readOnlyHint]}`'],
    ['a section as a switch', 'name: a\nuser_id: u\nworkbench: false\n', ['schema/type@3:12'], 'Write `workbench: {enable: false}`'],
    ['auth_configs.enable', 'name: a\nuser_id: u\nauth_configs:\n  enable: [gmail]\n', ['rule/misplaced-key@4:3'], '`auth_configs` maps a toolkit slug to an id'],
  ])('%s', (_name, yaml, expected, hint) => {
    const found = sortDiagnostics(validateDocument(doc(yaml)));
    expect(where(found)).toEqual(expected);
    expect(found.map((f) => f.hint ?? '').join('\n')).toContain(hint);
  });
});

describe('completion: a key cut short', () => {
  it.each([
    ['enable_proxy', ['enable', 'enable_proxy_execution'], 'enable_proxy_execution'],
    ['ENABLE_PROX', ['enable', 'enable_proxy_execution'], 'enable_proxy_execution'],
    ['enable', ['enable_wait_for_connections', 'enable_connection_removal'], undefined],
    ['ena', ['enable_proxy_execution'], undefined],
    ['enab', ['enable_proxy_execution'], 'enable_proxy_execution'],
    ['enable', ['enable'], undefined],
    ['proxy', ['enable_proxy_execution'], undefined],
  ])('%s among %j is %s', (input, candidates, expected) => {
    expect(completion(input, candidates)).toBe(expected);
  });
});
