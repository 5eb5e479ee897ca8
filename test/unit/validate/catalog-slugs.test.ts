import { describe, expect, it } from 'vitest';
import { catalogFromJson } from '../../../src/catalog/catalog.js';
import { catalogSlugs, namesCatalogSlugs, slugPointer, suggest, toolkitByPrefix } from '../../../src/validate/catalog-slugs.js';
import { doc } from './helpers.js';

/*
 * The slugs the catalogue rules read, held to their exact output: which values and keys are
 * slugs, where each one sits, and what is left to the schema (non-strings, bad characters,
 * keywords, the project's own toolkits).
 */

describe('catalogSlugs', () => {
  it('toolkit slugs: both lists of toolkits, every toolkit-keyed section, keywords and implausible keys left out', () => {
    const d = doc(`
      toolkits:
        enable: [gmail, 5, {a: b}, gitub]
        disable: [slack]
      tools:
        tags: [readOnlyHint]
        enable: [GITHUB_X]
        github: [GITHUB_GET_A_REPOSITORY]
      auth_configs: { constructor: ac_1, prototype: ac_2, __proto__: ac_3, "bad slug": ac_4, notion: ac_5 }
      connected_accounts: { disable: ca_1, jira: ca_2 }
    `);
    const { toolkits } = catalogSlugs(d.data);
    expect(toolkits).toEqual([
      { slug: 'gmail', parent: '/toolkits/enable', index: 0 },
      { slug: 'gitub', parent: '/toolkits/enable', index: 3 },
      { slug: 'slack', parent: '/toolkits/disable', index: 0 },
      { slug: 'github', parent: '/tools' },
      { slug: 'notion', parent: '/auth_configs' },
      { slug: 'jira', parent: '/connected_accounts' },
    ]);
    expect(toolkits.map(slugPointer)).toEqual(['/toolkits/enable/0', '/toolkits/enable/3', '/toolkits/disable/0', '/tools/github', '/auth_configs/notion', '/connected_accounts/jira']);
  });

  it('the project\'s own toolkits are not catalogue slugs; custom_toolkits items of any shape do not throw', () => {
    const d = doc(`
      toolkits: [mine, theirs]
      experimental:
        custom_toolkits: [{ slug: mine }, just-a-string, 7, { slug: 8 }, ~]
    `);
    expect(catalogSlugs(d.data).toolkits).toEqual([{ slug: 'theirs', parent: '/toolkits', index: 1 }]);
  });

  it('tool slugs: bare lists, enable and disable, with their toolkit and place; other shapes skipped', () => {
    const d = doc(`
      tools:
        enable: [GITHUB_X]
        "bad toolkit": [BAD_X]
        gmail: [GMAIL_A, 5, "bad slug", GMAIL_B]
        github: { disable: [GITHUB_C], enable: [GITHUB_D] }
        slack: { enable: SLACK_A }
        notion: all
        jira: { tags: [readOnlyHint] }
    `);
    expect(catalogSlugs(d.data).tools).toEqual([
      { toolkit: 'gmail', slug: 'GMAIL_A', parent: '/tools/gmail', index: 0 },
      { toolkit: 'gmail', slug: 'GMAIL_B', parent: '/tools/gmail', index: 3 },
      { toolkit: 'github', slug: 'GITHUB_D', parent: '/tools/github/enable', index: 0 },
      { toolkit: 'github', slug: 'GITHUB_C', parent: '/tools/github/disable', index: 0 },
    ]);
  });

  it.each([
    ['null', '~\n'],
    ['a string', 'text\n'],
    ['a list', '- toolkits: [gmail]\n'],
  ])('a document that is %s names no slugs', (_name, yaml) => {
    const d = doc(yaml);
    expect(catalogSlugs(d.data)).toEqual({ toolkits: [], tools: [] });
    expect(namesCatalogSlugs(d.data)).toBe(false);
  });
});

describe('namesCatalogSlugs: the catalogue is loaded only for documents that name a toolkit or tool', () => {
  it.each([
    ['toolkits', 'toolkits: ~\n', true],
    ['preload', 'preload: {}\n', true],
    ['tools', 'tools: {}\n', true],
    ['auth_configs', 'auth_configs: {}\n', true],
    ['connected_accounts', 'connected_accounts: {}\n', true],
    ['none of them', 'name: a\nuser_id: u\ntags: [readOnlyHint]\nworkbench: { enable: false }\n', false],
  ])('%s', (_name, yaml, expected) => {
    expect(namesCatalogSlugs(doc(yaml).data)).toBe(expected);
  });
});

describe('toolkitByPrefix', () => {
  const catalog = catalogFromJson({ toolkits: [{ slug: 'gmail' }, { slug: 'google_drive' }, { slug: 'google' }], tools: [] });

  it.each([
    ['GMAIL_SEND_EMAIL', 'gmail'],
    ['GOOGLE_DRIVE_LIST_FILES', 'google_drive'],
    ['GOOGLE_SEARCH', 'google'],
    ['GMAIL', undefined],
    ['GMAILX_SEND', undefined],
    ['_GMAIL', undefined],
    ['NOPE_NOPE', undefined],
  ])('%s -> %s (the longest toolkit slug that ends at an underscore)', (tool, expected) => {
    expect(toolkitByPrefix(catalog, tool)).toBe(expected);
  });
});

describe('suggest', () => {
  const catalog = catalogFromJson({ toolkits: [], tools: [] });
  /** A candidate list that counts how often it is asked for. */
  function counted(list: readonly string[]): { candidates: () => readonly string[]; calls: () => number } {
    let n = 0;
    return {
      candidates: () => {
        n++;
        return list;
      },
      calls: () => n,
    };
  }

  it('remembers an answer per kind and input, found or not', () => {
    const c = counted(['gmail', 'github']);
    expect(suggest(catalog, 'suggest-test', 'gmial', c.candidates)).toBe('gmail');
    expect(suggest(catalog, 'suggest-test', 'gmial', c.candidates)).toBe('gmail');
    expect(suggest(catalog, 'suggest-test', 'zzzzzz', c.candidates)).toBeUndefined();
    expect(suggest(catalog, 'suggest-test', 'zzzzzz', c.candidates)).toBeUndefined();
    expect(c.calls()).toBe(2);
    // Another kind is another question.
    const other = counted(['gmiall']);
    expect(suggest(catalog, 'suggest-test-2', 'gmial', other.candidates)).toBe('gmiall');
    expect(other.calls()).toBe(1);
  });

  it('remembers per catalogue', () => {
    const c = counted(['gmail']);
    expect(suggest(catalog, 'suggest-per', 'gmial', c.candidates)).toBe('gmail');
    expect(suggest(catalogFromJson({ toolkits: [], tools: [] }), 'suggest-per', 'gmial', c.candidates)).toBe('gmail');
    expect(c.calls()).toBe(2);
  });

  it('remembers at most 10,000 answers', () => {
    const fill = counted([]);
    for (let i = 0; i < 10_000; i++) suggest(catalog, 'suggest-fill', `w${i}`, fill.candidates);
    expect(fill.calls()).toBe(10_000);
    // Full now: a new question is answered, and asked again next time.
    const late = counted(['late']);
    expect(suggest(catalog, 'suggest-fill', 'lates', late.candidates)).toBe('late');
    expect(suggest(catalog, 'suggest-fill', 'lates', late.candidates)).toBe('late');
    expect(late.calls()).toBe(2);
  });
});
