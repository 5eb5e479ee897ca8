import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validatePaths, type ValidatePathsOptions, type ValidateRun } from '../../../src/validate/run.js';
// @ts-expect-error -- a plain JS module shared with the benchmark
import { generate } from '../../../bench/validate/generate.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * Bulk validation checks one file at a time (on worker threads for big runs) and keeps only
 * findings and name records. These tests hold it to the reference: every file loaded first with
 * `loadManifests` and validated in memory (`perFile: false`). Worker threads exist only in the
 * build (`dist/validate/worker.js`, which `npm test` builds first), so the threaded run imports
 * the built module.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const built = join(root, 'dist/validate/run.js');

type Validate = typeof validatePaths;

async function builtValidate(): Promise<Validate> {
  if (!existsSync(join(root, 'dist/validate/worker.js'))) throw new Error('dist/validate/worker.js is missing: run `npm run build`');
  return ((await import(built)) as { validatePaths: Validate }).validatePaths;
}

function comparable(run: ValidateRun): unknown {
  const sensitive = run.sensitive.map((v) => JSON.stringify(v)).sort();
  return { report: run.report, sources: [...run.sources].sort(), secrets: run.secrets, sensitive };
}

/** The three runs of the same paths: per file on this thread, per file on this thread and two workers, in memory. */
async function threeWays(paths: string[], cwd: string, extra: Partial<ValidatePathsOptions> = {}): Promise<{ perFile: unknown; threaded: unknown; inMemory: unknown; run: ValidateRun }> {
  const options = { cwd, env: {}, ...extra };
  const run = await validatePaths(paths, { ...options, jobs: 1 });
  const threaded = await (await builtValidate())(paths, { ...options, jobs: 3 });
  const inMemory = await validatePaths(paths, { ...options, perFile: false });
  return { perFile: comparable(run), threaded: comparable(threaded), inMemory: comparable(inMemory), run };
}

describe('per-file validation', () => {
  it('gives exactly the in-memory results on the examples and every golden case, with and without workers', async () => {
    const examples = await threeWays(['examples'], root);
    expect(examples.perFile).toEqual(examples.inMemory);
    expect(examples.threaded).toEqual(examples.inMemory);
    expect(examples.run.report.summary.files).toBeGreaterThanOrEqual(5);
    const golden = join(root, 'test/golden');
    for (const name of readdirSync(golden).filter((n) => !n.includes('.'))) {
      const r = await threeWays(['.'], join(golden, name));
      expect(r.perFile, name).toEqual(r.inMemory);
      expect(r.threaded, name).toEqual(r.inMemory);
    }
  });

  // Worker threads over hundreds of files, three ways: up to 20 s on a machine loaded far beyond
  // a CPU hog (docs/testing.md).
  it('gives exactly the in-memory results on generated bench manifests', { timeout: 40_000 }, async () => {
    const dir = tempDir('perfile');
    // Two batches of 250 (src/validate/parallel.ts): each of the two workers takes one.
    generate(dir, 300);
    const r = await threeWays([dir], dir);
    expect(r.perFile).toEqual(r.inMemory);
    expect(r.threaded).toEqual(r.inMemory);
    expect(r.run.report.summary).toMatchObject({ files: 300, manifests: 300, errors: 6 });
    // Only the files with findings keep their text.
    const withFindings = new Set(r.run.report.diagnostics.map((d) => d.file));
    expect([...r.run.sources.keys()].sort()).toEqual([...withFindings].sort());
    expect([...r.run.sources.keys()]).toHaveLength(6);
  });

  it('gives the same results for tricky files: duplicates, secrets, YAML 1.1, env, multi-document, large, links', { timeout: 40_000 }, async () => {
    const dir = tempDir('perfile');
    mkdirSync(join(dir, 'sub'));
    mkdirSync(join(dir, 'node_modules'));
    mkdirSync(join(dir, '.hidden'));
    const files: Record<string, string> = {
      'a.yaml': 'name: same\nuser_id: u\n',
      'b.yaml': 'name: same\nuser_id: u\ntoolkits: [gmail]\n',
      'c.yaml': 'user_id: u\n',
      'sub/c.yaml': 'user_id: v\n',
      'd.yaml': 'user_id: on\n',
      'e.yaml': 'user_id: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n',
      'f.yaml': 'user_id: ${USER_X}\nname: ${UNSET_NAME}\n',
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
      'r.yaml': "user_id: u\nexperimental:\n  link_url_overwrite: 'https://x.example.com/ghp_abcdefghijklmnopqrstuvwxyz0123456789'\n",
      's.yaml': 'user_id: u\nworkbench:\n  enable: false\n  enable_proxy_execution: true\ntoolkits: []\n',
      't.yaml': 'user_id: u\ntools:\n  github:\n    enable: [A]\n    disable: [B]\ntoolkits:\n  disable: [github]\n',
      'u.yaml': 'user_id: ü ✓ 1\nname: ünï\n',
      'v.yaml': 'user_id: u\nmulti_account:\n  max_accounts_per_toolkit: 11\n  enable:\n',
      'w.yaml': 'user_id: u\nuser_id: v\n',
      'x.yaml': 'user_id: [unclosed\n',
      'y.yaml': `a: [${'1,'.repeat(300_000)}1]\n`,
      'za.yaml': 'user_id: u\nworkbench: { sandbox_size: "${SIZE_TOKEN}" }\n',
      'node_modules/skip.yaml': 'user_id: 1\n',
      '.hidden/skip.yaml': 'user_id: 1\n',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'z.yaml'), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    symlinkSync(join(dir, 'sub'), join(dir, 'linked'));
    symlinkSync(dir, join(dir, 'sub', 'loop'));
    const r = await threeWays(['.'], dir, { env: { USER_X: 'x', SIZE_TOKEN: 'big-secret-sandbox-size' }, maxFileBytes: 2 * 1024 * 1024 });
    expect(r.perFile).toEqual(r.inMemory);
    expect(r.threaded).toEqual(r.inMemory);
    const codes = new Set(r.run.report.diagnostics.map((d) => d.code));
    for (const code of ['rule/duplicate-name', 'rule/literal-api-key', 'yaml/duplicate-key', 'env/unset-variable', 'input/too-large', 'input/utf16', 'yaml/syntax']) {
      expect([...codes], code).toContain(code);
    }
    // A secret never reaches the sources kept for code frames.
    expect([...r.run.sources.values()].join('\n')).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    // A sensitive value, quoted by a finding, is named by its variable; the run hands it back, masked everywhere.
    expect(JSON.stringify(r.run.report)).not.toContain('big-secret-sandbox-size');
    expect(JSON.stringify(r.run.report)).toContain('(sensitive: SIZE_TOKEN)');
    expect(r.run.sensitive).toEqual([{ value: 'big-secret-sandbox-size', labels: ['SIZE_TOKEN'] }]);
    expect(r.run.report.files.some((f) => f.includes('node_modules') || f.includes('.hidden'))).toBe(false);
    // The linked folder is the same real folder as sub/: listed once; the link loop ends.
    expect(r.run.report.files.filter((f) => f.endsWith('/c.yaml'))).toHaveLength(2);

    // Several paths (a folder, a file in it again, a glob, a missing path) and standard input.
    const copy = tempDir('perfile');
    cpSync(join(root, 'examples'), copy, { recursive: true });
    const stdin = async (): Promise<Buffer> => Buffer.from('name: same\nuser_id: u\n');
    const mixed = await threeWays([copy, join(copy, 'team.yaml'), `${dir}/sub/*.yaml`, join(dir, 'missing'), dir, '-'], root, {
      env: { USER_X: 'x' },
      readStdin: stdin,
      maxFileBytes: 2 * 1024 * 1024,
    });
    expect(mixed.perFile).toEqual(mixed.inMemory);
    expect(mixed.threaded).toEqual(mixed.inMemory);
    expect(mixed.run.report.diagnostics.map((d) => d.code)).toContain('input/not-found');
    // Standard input, clean but for its name, still has its text for the code frame.
    expect(mixed.run.report.diagnostics.filter((d) => d.file === '<stdin>').map((d) => d.code)).toEqual(['rule/duplicate-name']);
    expect(mixed.run.sources.get('<stdin>')).toBe('name: same\nuser_id: u\n');
  });
});
