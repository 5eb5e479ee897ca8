import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkFast, checkFastOrBytes } from '../../../src/validate/fast-path.js';
import { parseFast } from '../../../src/validate/fast-yaml.js';
import { validatePaths, type ValidateRun } from '../../../src/validate/run.js';
// @ts-expect-error -- a plain JS module shared with the benchmark
import { generate } from '../../../bench/validate/generate.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Inputs at the edges of the fast reader's subset: each must read as yaml reads it, or not at all. */
const snippets: string[] = [
  'a: b\n',
  'a: 1\nb: 0\nc: 007\nd: 1.5\ne: -1\nf: +1\ng: .5\nh: 1e3\ni: 0x1F\nj: 0o17\n',
  'a: true\nb: True\nc: FALSE\nd: null\ne: ~\nf:\ng: Null\n',
  'a: yes\nb: no\nc: on\nd: off\ne: y\nf: n\ng: notion\n',
  'a: "quoted # not a comment"\nb: \'single\'\nc: "it\'s"\nd: \'it\'\'s\'\n',
  'a: plain # comment\nb: a#b\nc: "x" # c\n# full line\n  # indented comment\n',
  'a: https://example.com/x?y=1\nb: Europe/Paris\nc: a, b\nd: a[1]\n',
  'a: [x, y, "z"]\nb: []\nc: [x,]\nd: [a: b]\ne: [x #c]\nf: [ x , y ]\n',
  'a:\n  - x\n  - y\nb:\n- z\nc:\n  d:\n    e: f\n',
  'a:\n  - k: v\n',
  'a: b\n  c: d\n',
  'a: multi\n  line\n',
  'a: b\na: c\n',
  '"q": 1\n',
  'a: &x 1\nb: *x\n',
  'a: !!str 1\n',
  'a: |\n  block\n',
  'a: {b: c}\n',
  '---\na: b\n',
  'a: b\n---\nc: d\n',
  '- a\n- b\n',
  'scalar\n',
  '',
  '# only a comment\n',
  'a: ${X}\n',
  'a:\tb\n',
  'a: b\r\n',
  'a: "x\\ny"\n',
  'a: b:c\nd: e: f\n',
  'a : b\n',
  'a:b\n',
  'ä: b\nb: ünïcödé ✓\n',
  'a: - b\n',
  'a: 123456789012345678901\n',
  'a: 1_000\nb: 1:20\nc: 2001-12-14\n',
  'key-with-dash: v\n_under: w\n',
  '__proto__: x\nconstructor: y\n',
  `${'k'.repeat(1100)}: 1\n`,
  'a:\n  b: 1\n c: 2\n',
  'a:\n    b: 1\n  c: 2\n',
  'a: b\u00a0\nc: d \u00a0 \n',
  'a: [x\u00a0, \u00a0y]\nb:\n  - \u00a0z\n',
  `a: b\n# ${'x'.repeat(70_000)}\nc: d\n`,
];

describe('fast YAML reader', () => {
  it.each(snippets.map((s, i) => [i, s] as const))('snippet %i reads as yaml does, or not at all', (_, text) => {
    const fast = parseFast(text);
    if (fast === undefined) return;
    expect(fast.data).toEqual(parse(text, { schema: 'core', version: '1.2', merge: false, uniqueKeys: true }));
  });

  it('actually reads the common shapes (so the test above is not vacuous)', () => {
    const read = snippets.filter((s) => parseFast(s) !== undefined).length;
    expect(read).toBeGreaterThanOrEqual(6);
    expect(parseFast('a: true\nb: ~\nc: 12\nd: Europe/Paris # tz\n')?.data).toEqual({ a: true, b: null, c: 12, d: 'Europe/Paris' });
    expect(parseFast('a: b\nc:\n  - d\n  - "e"\nf: [g, h]\n')?.data).toEqual({ a: 'b', c: ['d', 'e'], f: ['g', 'h'] });
  });
});

function comparable(run: ValidateRun): unknown {
  const withFindings = new Set(run.report.diagnostics.map((d) => d.file));
  return { report: run.report, sources: [...run.sources].filter(([f]) => withFindings.has(f)).sort(), secrets: run.secrets };
}

async function both(paths: string[], cwd: string, env: Record<string, string> = {}): Promise<[unknown, unknown]> {
  const fast = await validatePaths(paths, { cwd, env, fast: true });
  const plain = await validatePaths(paths, { cwd, env, fast: false });
  return [comparable(fast), comparable(plain)];
}

describe('fast path', () => {
  it('gives exactly the plain path\'s results on the examples and every golden case', async () => {
    const [fast, plain] = await both(['examples'], root);
    expect(fast).toEqual(plain);
    const golden = join(root, 'test/golden');
    for (const name of readdirSync(golden).filter((n) => !n.includes('.'))) {
      const [f, p] = await both(['.'], join(golden, name));
      expect(f, name).toEqual(p);
    }
  });

  it('gives exactly the plain path\'s results on generated bench manifests, most of them fast', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctl-fast-'));
    generate(dir, 300);
    const [fast, plain] = await both([dir], dir);
    expect(fast).toEqual(plain);
    const files = readdirSync(dir).map((f) => join(dir, f));
    const fastOnes = files.filter((f) => checkFast(f) !== undefined);
    expect(fastOnes.length).toBeGreaterThan(250);
    expect((plain as { report: { diagnostics: unknown[] } }).report.diagnostics.length).toBe(6);
  });

  it('gives the same results for tricky files: duplicates across fast and slow files, secrets, YAML 1.1, env', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctl-fast-'));
    mkdirSync(join(dir, 'sub'));
    const files: Record<string, string> = {
      'a.yaml': 'name: same\nuser_id: u\n',
      'b.yaml': 'name: same\nuser_id: u\ntoolkits: [gmail]\n',
      'c.yaml': 'user_id: u\n',
      'sub/c.yaml': 'user_id: v\n',
      'd.yaml': 'user_id: on\n',
      'e.yaml': 'user_id: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n',
      'f.yaml': 'user_id: ${USER_X}\n',
      'g.yaml': 'user_id: u\ntoolkits: [notion, youtube]\ntools:\n  notion: [NOTION_SEARCH]\n',
      'h.yml': 'user_id: u\nworkbench:\n  enable: false\n  enable_proxy_execution: true\n',
      'i.yaml': 'user_id: 12\n',
      'j.yaml': '',
      'k.yaml': 'user_id: u\nname: k\n---\nuser_id: u\nname: k\n',
      'l.yaml': `user_id: u\n# ${'x'.repeat(70_000)}\ntoolkits: [gmail]\n`,
      'm.yaml': `user_id: u\n# ${'x'.repeat(70_000)}\ntoolkits: gmail\n`,
      'n.yaml': 'user_id: no\nname: n\n',
      'o.yaml': '# leading comment\n\nname: Bad_Name\nuser_id: u\ntoolkits: [gmail, slack, gmail]\ntags: [readonlyHint,  openWorldHint]\n',
      'p.yaml': 'user_id: u\nworkbench:\n  enable: "false"\n  enabel: true\n  sandbox_size: huge # comment\n',
      'q.yaml': 'name: q\ntoolkits:\n  - gmail\n  - "x y"\nauth_configs:\n  gmail: "ac_1"\n  slack: 12\n',
      'r.yaml': 'user_id: u\nexperimental:\n  link_url_overwrite: \'https://x.example.com/ghp_abcdefghijklmnopqrstuvwxyz0123456789\'\n',
      's.yaml': 'user_id: u\nworkbench:\n  enable: false\n  enable_proxy_execution: true\ntoolkits: []\n',
      't.yaml': 'user_id: u\ntools:\n  github:\n    enable: [A]\n    disable: [B]\ntoolkits:\n  disable: [github]\n',
      'u.yaml': 'user_id: ü ✓ 1\nname: ünï\n',
      'v.yaml': 'user_id: u\nmulti_account:\n  max_accounts_per_toolkit: 11\n  enable:\n',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const [fast, plain] = await both(['.'], dir, { USER_X: 'x' });
    expect(fast).toEqual(plain);
    // Most of the files with findings were located by the fast reader, not the full loader.
    const located = Object.keys(files).filter((name) => {
      const r = checkFastOrBytes(join(dir, name));
      return r !== undefined && 'located' in r;
    });
    expect(located.sort()).toEqual(['d.yaml', 'e.yaml', 'h.yml', 'i.yaml', 'n.yaml', 'o.yaml', 'p.yaml', 'r.yaml', 't.yaml', 'u.yaml']);
    const copy = mkdtempSync(join(tmpdir(), 'sessionctl-fast-'));
    cpSync(join(root, 'examples'), copy, { recursive: true });
    const [f2, p2] = await both([copy, join(copy, 'team.yaml'), dir], root, {});
    expect(f2).toEqual(p2);
  });
});
