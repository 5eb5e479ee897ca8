import { describe, expect, test } from 'vitest';
import { prunable } from '../../../src/plan/prune.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { docs } from '../validate/helpers.js';

/*
 * Which recorded sessions `--prune` deletes: only those applied from a file inside the paths of
 * the run (the file, a folder above it, a glob that matches it), whose manifest name no document
 * of the run declares, that have a session, and that no item of the plan holds.
 */

const CWD = '/w';

function entry(name: string, file: string | undefined, extra: Partial<StateEntry> = {}): StateEntry {
  return {
    name,
    user_id: 'u',
    session_id: `trs_${name}`,
    mcp_url: '',
    tool_router_tools: [],
    config_version: 1,
    body_hash: 'h',
    body: null,
    applied_at: 't',
    ...(file !== undefined ? { file } : {}),
    ...extra,
  };
}

const kept = docs('name: kept\nuser_id: u\n', '/w/m/kept.yaml');
const pruned = (entries: StateEntry[], roots: string[], consumed: StateEntry[] = [], cwd = CWD): string[] => prunable(entries, kept, new Set(consumed), { roots, cwd }).map((e) => e.name);

describe('prunable: scope', () => {
  const entries = [entry('a', 'm/a.yaml'), entry('b', 'm/sub/b.yml'), entry('c', 'other/c.yaml'), entry('d', 'm2/d.yaml'), entry('e', '/abs/m/e.yaml'), entry('f', undefined)];

  test.each([
    ['the file itself, absolute', ['/w/m/a.yaml'], ['a']],
    ['the file itself, relative to the cwd', ['m/a.yaml'], ['a']],
    ['a folder: every file below it, at any depth', ['m'], ['a', 'b']],
    ['a folder with a trailing separator', ['/w/m/'], ['a', 'b']],
    ['the cwd', ['.'], ['a', 'b', 'c', 'd']],
    ['a folder whose name is a prefix of another', ['/w/m2'], ['d']],
    ['a file name that is a prefix', ['/w/m/a.yam'], []],
    ['two roots', ['m/sub', 'other'], ['b', 'c']],
    ['a glob over one folder', ['m/*.yaml'], ['a']],
    ['a glob over the tree', ['m/**/*.{yaml,yml}'], ['a', 'b']],
    ['a glob whose base is the cwd', ['*/c.yaml'], ['c']],
    ['an absolute glob', ['/w/m*/*.yaml'], ['a', 'd']],
    ['a glob that matches nothing recorded', ['m/*.json'], []],
    ['an absolute entry file, by its folder', ['/abs'], ['e']],
    ['the root of the file system', ['/'], ['a', 'b', 'c', 'd', 'e']],
    ['no roots at all', [], []],
  ])('%s', (_what, roots, names) => {
    expect(pruned(entries, roots)).toStrictEqual(names);
  });

  test('a glob never reaches above its base, even through a pattern that matches ".."', () => {
    expect(pruned([entry('up', 'b.yaml')], ['/w/m/.*/b.yaml'])).toStrictEqual([]);
    expect(pruned([entry('up', 'b.yaml')], ['/w/m/**'])).toStrictEqual([]);
  });

  test('entry files are resolved against the cwd given', () => {
    expect(pruned([entry('a', 'm/a.yaml')], ['/elsewhere/m'], [], '/elsewhere')).toStrictEqual(['a']);
    expect(pruned([entry('a', 'm/a.yaml')], ['/w/m'], [], '/elsewhere')).toStrictEqual([]);
  });
});

describe('prunable: a root that exists as written is a path, not a glob (as the loader reads it)', () => {
  const entries = [entry('lit', 'm/[ab].yaml'), entry('a', 'm/a.yaml'), entry('b', 'm/b.yaml'), entry('in', 'teams[x]/in.yaml'), entry('tx', 'teamsx/tx.yaml')];
  const existing = new Set(['/w/m/[ab].yaml', '/w/teams[x]']);
  const literal = (path: string): boolean => existing.has(path);

  test('a file named with glob characters: only its own entry, never the files its name would match as a glob', () => {
    expect(prunable(entries, kept, new Set(), { roots: ['m/[ab].yaml'], cwd: CWD, literal }).map((e) => e.name)).toStrictEqual(['lit']);
  });

  test('a folder named with glob characters: the files below it', () => {
    expect(prunable(entries, kept, new Set(), { roots: ['/w/teams[x]'], cwd: CWD, literal }).map((e) => e.name)).toStrictEqual(['in']);
  });

  test('a glob that names nothing as written is a glob', () => {
    expect(prunable(entries, kept, new Set(), { roots: ['m/[a].yaml', 'teams[xy]/*.yaml'], cwd: CWD, literal }).map((e) => e.name)).toStrictEqual(['a', 'tx']);
    expect(prunable(entries, kept, new Set(), { roots: ['teams?'], cwd: CWD, literal }).map((e) => e.name)).toStrictEqual([]);
    expect(prunable(entries, kept, new Set(), { roots: ['teams?/*'], cwd: CWD, literal }).map((e) => e.name)).toStrictEqual(['tx']);
  });
});

describe('prunable: what is never pruned', () => {
  test('an entry whose manifest is still declared (for any user)', () => {
    expect(pruned([entry('kept', 'm/kept.yaml', { user_id: 'other' }), entry('kept', 'm/old.yaml')], ['m'])).toStrictEqual([]);
  });

  test('an entry a plan item holds (a replace of another user)', () => {
    const held = entry('x', 'm/x.yaml');
    expect(pruned([held, entry('y', 'm/y.yaml')], ['m'], [held])).toStrictEqual(['y']);
  });

  test('an entry with only a create intent (no session to delete)', () => {
    expect(pruned([entry('x', 'm/x.yaml', { session_id: '', pending_create: { since: 't', body_hash: 'h', status: 'unknown' } })], ['m'])).toStrictEqual([]);
  });

  test('an entry that does not say which file it came from (standard input, an import)', () => {
    expect(pruned([entry('x', undefined)], ['.', '/'])).toStrictEqual([]);
  });

  test('the entries keep their order and identity', () => {
    const list = [entry('z', 'm/z.yaml'), entry('y', 'm/y.yaml')];
    const out = prunable(list, kept, new Set(), { roots: ['m'], cwd: CWD });
    expect(out).toStrictEqual(list);
    expect(out[0]).toBe(list[0]);
  });
});

describe('prunable: files the project ignores are never pruned', () => {
  const entries = [entry('a', 'm/a.yaml'), entry('draft', 'm/drafts/d.yaml'), entry('other', 'm/drafts-not/o.yaml')];
  const ignored = (path: string): boolean => path.startsWith('/w/m/drafts/');

  test('an ignored file keeps its session; the others in scope are pruned as without it', () => {
    expect(prunable(entries, kept, new Set(), { roots: ['m'], cwd: CWD, ignored }).map((e) => e.name)).toStrictEqual(['a', 'other']);
    expect(prunable(entries, kept, new Set(), { roots: ['m'], cwd: CWD }).map((e) => e.name)).toStrictEqual(['a', 'draft', 'other']);
  });

  test('asked with the absolute path of the recorded file', () => {
    const asked: string[] = [];
    prunable([entry('draft', 'm/drafts/d.yaml')], kept, new Set(), { roots: ['m'], cwd: CWD, ignored: (p) => (asked.push(p), false) });
    expect(asked).toStrictEqual(['/w/m/drafts/d.yaml']);
  });
});

describe('a pruned entry whose session an entry that stays also records', () => {
  test('is not deleted, with a warning naming both; one whose other entries all go is deleted once', async () => {
    const { buildPlan } = await import('../../../src/plan/plan.js');
    const entries = [
      entry('kept', 'm/kept.yaml', { session_id: 'trs_shared' }),
      entry('b', 'm/b.yaml', { session_id: 'trs_shared' }),
      entry('c', 'm/c.yaml', { session_id: 'trs_twice' }),
      entry('d', 'm/d.yaml', { session_id: 'trs_twice' }),
    ];
    const state = { get: (name: string, user: string) => entries.find((e) => e.name === name && e.user_id === user), list: () => entries, hashAtLoad: 'h' };
    const plan = buildPlan(kept, state, { prune: { roots: ['m'], cwd: CWD } });
    expect(plan.deletions.map((d) => [d.name, d.session_id, d.also.map((e) => e.name)])).toStrictEqual([['c', 'trs_twice', ['d']]]);
    expect(plan.diagnostics.map((d) => [d.code, d.severity, d.message, d.hint])).toStrictEqual([
      [
        'plan/shared-session',
        'warning',
        'b (user "u"): its manifest is gone, but its session trs_shared is also recorded for kept, which stays; it is not deleted',
        '`sessionctl state rm b` forgets the entry and leaves the session to kept',
      ],
    ]);
    const counted = buildPlan(kept, state, { countPrunable: { roots: ['m'], cwd: CWD } });
    expect([counted.prunable, counted.diagnostics]).toStrictEqual([1, []]);
  });
});
