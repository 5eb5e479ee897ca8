import { describe, expect, it } from 'vitest';
import { catalogFromJson } from '../../../src/catalog/catalog.js';
import { catalogSlugs } from '../../../src/validate/catalog-slugs.js';
import { misplacedKey } from '../../../src/validate/rules/misplaced-key.js';
import { nameFromFile } from '../../../src/validate/rules/name-from-file.js';
import { toolWrongToolkit } from '../../../src/validate/rules/tool-wrong-toolkit.js';
import { unknownTool } from '../../../src/validate/rules/unknown-tool.js';
import { unknownToolkit } from '../../../src/validate/rules/unknown-toolkit.js';
import type { CatalogRule } from '../../../src/validate/rule.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { doc, docs } from './helpers.js';

/*
 * The rules issue 13 added, held to their whole output (message, hint, range, related) on the
 * shapes each one branches on, against a small catalogue written here: `alpha` and `beta` list
 * tools, `gamma` lists none, `composio` owns the meta tools' prefix, `gmail` has one tool.
 */

const at = (line: number, col: number, endLine: number, endCol: number) => ({ start: { line, col }, end: { line: endLine, col: endCol } });
const FILE = '/work/m.yaml';

const catalog = catalogFromJson({
  toolkits: [{ slug: 'alpha' }, { slug: 'beta' }, { slug: 'gamma' }, { slug: 'composio' }, { slug: 'gmail' }],
  tools: [
    { slug: 'ALPHA_PING', toolkit: 'alpha' },
    { slug: 'BETA_PING', toolkit: 'beta' },
    { slug: 'COMPOSIO_THING', toolkit: 'composio' },
    { slug: 'GMAIL_SEND', toolkit: 'gmail' },
  ],
});

const check = (rule: CatalogRule, d: ManifestDocument) => rule.check(d, catalog, catalogSlugs(d.data));
/** A catalogue finding: a warning of this file. */
const warning = (code: string, message: string, pointer: string, range: ReturnType<typeof at>, hint: string, replacement?: string) => ({
  code,
  severity: 'warning',
  message,
  file: FILE,
  pointer,
  range,
  hint,
  // A did-you-mean is also the quick fix that writes the suggestion in place of the slug.
  ...(replacement !== undefined ? { fix: { title: `Replace with \`${replacement}\``, edits: [{ range, text: replacement }] } } : {}),
});
const newer = (what: string) => `Check the slug; if the ${what} is newer than the bundled catalogue, pass a current one with \`--catalog FILE\`.`;

describe('catalog/unknown-toolkit', () => {
  it('list items at the value, section keys at the key; both lists of toolkits; keywords and implausible keys left to other checks', () => {
    const d = doc(`
      toolkits:
        enable: [alpah, beta]
        disable: [zzzzzzzz]
      tools:
        tags: [readOnlyHint]
      auth_configs: { constructor: ac_1, prototype: ac_2, betta: ac_3 }
    `);
    expect(check(unknownToolkit, d)).toEqual([
      warning('catalog/unknown-toolkit', 'toolkit `alpah` is not in the catalogue', '/toolkits/enable/0', at(2, 12, 2, 17), 'Did you mean `alpha`?', 'alpha'),
      warning('catalog/unknown-toolkit', 'toolkit `zzzzzzzz` is not in the catalogue', '/toolkits/disable/0', at(3, 13, 3, 21), newer('toolkit')),
      warning('catalog/unknown-toolkit', 'toolkit `betta` is not in the catalogue', '/auth_configs/betta', at(6, 53, 6, 58), 'Did you mean `beta`?', 'beta'),
    ]);
  });
});

describe('suggestions come from the catalogue in use', () => {
  it('two catalogues in one process: each answers from its own slugs', () => {
    const d = doc('toolkits: [alpho]\n');
    const one = catalogFromJson({ toolkits: [{ slug: 'alpha' }], tools: [] });
    const other = catalogFromJson({ toolkits: [{ slug: 'alphb' }], tools: [{ slug: 'ALPHB_X', toolkit: 'alphb' }] });
    const hints = (c: typeof one) => unknownToolkit.check(d, c, catalogSlugs(d.data)).map((f) => f.hint);
    expect(hints(one)).toEqual(['Did you mean `alpha`?']);
    expect(hints(other)).toEqual(['Did you mean `alphb`?']);
    const t = doc('tools:\n  alphb: [ALPHB_Y]\n');
    const toolHints = (c: typeof one) => unknownTool.check(t, c, catalogSlugs(t.data)).map((f) => f.hint);
    expect(toolHints(other)).toEqual(['Did you mean `ALPHB_X`?']);
    const third = catalogFromJson({ toolkits: [{ slug: 'alphb' }], tools: [{ slug: 'ALPHB_Z', toolkit: 'alphb' }] });
    expect(toolHints(third)).toEqual(['Did you mean `ALPHB_Z`?']);
  });
});

describe('catalog/unknown-tool', () => {
  it('under tools and in preload; the hint is looked up among the tools of the toolkit the slug is under', () => {
    const d = doc(`
      tools:
        alpha: [ALPHA_PINK]
        beta: [ALPHA_PINK]
        gamma: [GAMMA_ANYTHING]
      preload:
        tools: [5, COMPOSIO_NOPE, ALPHA_PING, GMAILX_SEND, GMAIL, NOSUCH_TOOL, GAMMA_X, ALPHA_PONG]
    `);
    expect(check(unknownTool, d)).toEqual([
      warning('catalog/unknown-tool', '`ALPHA_PINK` is not a tool of `alpha` in the catalogue', '/tools/alpha/0', at(2, 11, 2, 21), 'Did you mean `ALPHA_PING`?', 'ALPHA_PING'),
      warning('catalog/unknown-tool', '`ALPHA_PINK` is not a tool of `beta` in the catalogue', '/tools/beta/0', at(3, 10, 3, 20), newer('tool')),
      warning('catalog/unknown-tool', '`ALPHA_PONG` is not a tool of `alpha` in the catalogue', '/preload/tools/7', at(6, 83, 6, 93), 'Did you mean `ALPHA_PING`?', 'ALPHA_PING'),
    ]);
  });
});

describe('catalog/unknown-tool in lower case', () => {
  it("another toolkit's tool written in lower case is named, upper case, with its toolkit; this toolkit's own gets the did-you-mean", () => {
    const d = doc(`
      tools:
        alpha: [gmail_send, Alpha_Ping, ALPHA_pink]
        beta: [beta_ping]
    `);
    expect(check(unknownTool, d)).toEqual([
      warning('catalog/unknown-tool', '`gmail_send` is not a tool of `alpha` in the catalogue', '/tools/alpha/0', at(2, 11, 2, 21), 'Tool slugs are upper case: `GMAIL_SEND` is a tool of `gmail`; list it under `tools.gmail`.'),
      warning('catalog/unknown-tool', '`Alpha_Ping` is not a tool of `alpha` in the catalogue', '/tools/alpha/1', at(2, 23, 2, 33), 'Did you mean `ALPHA_PING`?', 'ALPHA_PING'),
      warning('catalog/unknown-tool', '`ALPHA_pink` is not a tool of `alpha` in the catalogue', '/tools/alpha/2', at(2, 35, 2, 45), 'Did you mean `ALPHA_PING`?', 'ALPHA_PING'),
      warning('catalog/unknown-tool', '`beta_ping` is not a tool of `beta` in the catalogue', '/tools/beta/0', at(3, 10, 3, 19), 'Did you mean `BETA_PING`?', 'BETA_PING'),
    ]);
  });
});

describe('catalog/tool-wrong-toolkit', () => {
  it('names the owner, related to the toolkit the tool is under; a toolkit the catalogue does not know is unknown-toolkit\'s', () => {
    const d = doc(`
      tools:
        nosuch: [GMAIL_SEND]
        beta: { enable: [BETA_PING, ALPHA_PING] }
    `);
    expect(check(toolWrongToolkit, d)).toEqual([
      {
        code: 'catalog/tool-wrong-toolkit',
        severity: 'warning',
        message: '`ALPHA_PING` is a tool of `alpha`, not of `beta`',
        file: FILE,
        pointer: '/tools/beta/enable/1',
        range: at(3, 31, 3, 41),
        hint: 'Move it to `tools.alpha` (and make sure `alpha` is enabled in `toolkits`).',
        related: [{ message: 'the tools of `beta`', file: FILE, range: at(3, 3, 3, 7) }],
      },
    ]);
  });
});

describe('rule/misplaced-key', () => {
  it('each keyword under each toolkit-keyed section, at the key', () => {
    const d = doc(`
      tools:
        tags: [readOnlyHint]
        github: [GITHUB_X]
      auth_configs: { disable: ac_1 }
      connected_accounts: { enable: ca_1 }
    `);
    expect(misplacedKey.check(d)).toEqual([
      {
        code: 'rule/misplaced-key',
        severity: 'error',
        message: '`tools.tags` is read as a toolkit named `tags`',
        file: FILE,
        pointer: '/tools/tags',
        range: at(2, 3, 2, 7),
        hint: 'For a tag filter over every toolkit, use the top-level `tags`; for one toolkit, `tools.<toolkit>.tags`.',
      },
      {
        code: 'rule/misplaced-key',
        severity: 'error',
        message: '`auth_configs.disable` is read as a toolkit named `disable`',
        file: FILE,
        pointer: '/auth_configs/disable',
        range: at(4, 17, 4, 24),
        hint: '`auth_configs` maps a toolkit slug to an id (`gmail: ac_...`); to choose toolkits, write `toolkits: {disable: [...]}`.',
      },
      {
        code: 'rule/misplaced-key',
        severity: 'error',
        message: '`connected_accounts.enable` is read as a toolkit named `enable`',
        file: FILE,
        pointer: '/connected_accounts/enable',
        range: at(5, 23, 5, 29),
        hint: '`connected_accounts` maps a toolkit slug to an id (`gmail: ca_...`); to choose toolkits, write `toolkits: {enable: [...]}`.',
      },
    ]);
  });
});

describe('rule/name-from-file', () => {
  const hint = 'Declare `name:` (lowercase letters, digits and hyphens, at most 63 characters), or rename the file.';
  const message = (stem: string) => `the manifest has no \`name:\`, and its file name gives ${JSON.stringify(stem)}, which is not a valid manifest name`;

  it('the whole finding: at the start of the document, an empty range', () => {
    // (The helper drops the first newline: the document's first line is line 2.)
    expect(nameFromFile.check(doc('\n\nuser_id: u\n', '/work/Bad.yaml'))).toEqual([
      { code: 'rule/name-from-file', severity: 'error', message: message('Bad'), file: '/work/Bad.yaml', pointer: '', range: at(2, 1, 2, 1), hint },
    ]);
  });

  it('63 characters is a valid name, 64 is not', () => {
    expect(nameFromFile.check(doc('user_id: u\n', `/work/${'a'.repeat(63)}.yaml`))).toEqual([]);
    expect(nameFromFile.check(doc('user_id: u\n', `/work/${'a'.repeat(64)}.yaml`)).map((d) => d.message)).toEqual([message('a'.repeat(64))]);
  });

  it('the first document is the file stem as it is, even one ending in #N', () => {
    expect(nameFromFile.check(doc('user_id: u\n', '/work/team#12.yaml')).map((d) => d.message)).toEqual([message('team#12')]);
  });

  it('later documents drop only their own #N: the tenth is stem#10, a stem with #5 in it stays', () => {
    const ten = docs(Array.from({ length: 10 }, (_, i) => `user_id: u${i}\n`).join('---\n'), '/work/team.yaml');
    expect(ten[9]!.name).toBe('team#10');
    expect(ten.flatMap((d) => nameFromFile.check(d))).toEqual([]);
    const two = docs('user_id: a\n---\nuser_id: b\n', '/work/x#5.yaml');
    expect(two.flatMap((d) => nameFromFile.check(d)).map((d) => d.message)).toEqual([message('x#5'), message('x#5')]);
  });
});
