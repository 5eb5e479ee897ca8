/**
 * The fast path (`src/validate/fast-path/`) against the loader alone: every file of the bad-input
 * suite, every golden fixture, every example and 10,000 generated and mutated manifests give
 * byte-identical JSON reports (and exit codes, and standard error) with and without
 * `--no-fast-path`. Files are validated in folders of 1,000, so a difference in the rule across
 * files (duplicate names, for which fast-path files are located again) shows too. The test also
 * checks that it tests something: the fast path must take a good share of the files, and every
 * hazard that sends a file to the loader must occur in the inputs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHazard, type Hazard } from '../../src/validate/fast-path/hazards.js';
import { tryFastPath } from '../../src/validate/fast-path/try-fast-path.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { writeCases } from './bad-input-cases.js';
import { generateCorpus } from './validate-corpus.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const GENERATED = 10_000;
const BATCH = 1_000;
const env = { TEAM_USER_ID: 'team-lead', SUPPORT_USER_ID: 'support', LONG_VALUE: 'v'.repeat(100_000) };

interface JsonReport {
  diagnostics: Array<{ file?: string | null }>;
  summary: { errors: number; files: number };
}

let dir: string;
/** Every file the test validates, for the coverage checks at the end. */
const seen: string[] = [];

beforeAll(async () => {
  dir = tempDir('fast-path');
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The same command with and without the fast path, in-process, JSON report. */
async function bothWays(args: readonly string[], cwd: string, stdin?: string): Promise<{ fast: CliResult; loader: CliResult }> {
  const options = { cwd, env, ...(stdin !== undefined ? { stdin } : {}) };
  const fast = await runCli([...args, '--format', 'json'], options);
  const loader = await runCli([...args, '--format', 'json', '--no-fast-path'], options);
  return { fast, loader };
}

/** Byte-identical; on a difference, the message names the first file whose findings differ. */
function expectSame({ fast, loader }: { fast: CliResult; loader: CliResult }, label: string): JsonReport {
  expect(fast.exitCode, `${label}: exit code`).toBe(loader.exitCode);
  expect(fast.stderr, `${label}: standard error`).toBe(loader.stderr);
  if (fast.stdout !== loader.stdout) {
    const byFile = (text: string): Map<string, string> => {
      const out = new Map<string, string[]>();
      for (const d of (JSON.parse(text) as JsonReport).diagnostics) out.set(d.file ?? '', [...(out.get(d.file ?? '') ?? []), JSON.stringify(d)]);
      return new Map([...out].map(([f, ds]) => [f, ds.join('\n')]));
    };
    const a = byFile(fast.stdout);
    const b = byFile(loader.stdout);
    const file = [...new Set([...a.keys(), ...b.keys()])].sort().find((f) => a.get(f) !== b.get(f));
    expect.soft(a.get(file ?? ''), `${label}: first differing file ${file}`).toBe(b.get(file ?? ''));
  }
  expect(fast.stdout, `${label}: JSON report`).toBe(loader.stdout);
  return JSON.parse(fast.stdout) as JsonReport;
}

function yamlFilesBelow(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return yamlFilesBelow(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

describe('the fast path gives the same reports as the loader alone', () => {
  it('on every file of the bad-input suite', { timeout: 180_000 }, async () => {
    const cases = join(dir, 'bad-input');
    await mkdir(cases);
    await writeCases(cases);
    const report = expectSame(await bothWays(['validate', '.'], cases), 'bad-input suite');
    expect(report.summary.files).toBeGreaterThanOrEqual(200);
    seen.push(...yamlFilesBelow(cases));
  });

  it('on every golden fixture, with its own command line', { timeout: 60_000 }, async () => {
    const folders = readdirSync(join(root, 'test')).filter((name) => name.startsWith('golden'));
    for (const folder of folders) {
      for (const name of readdirSync(join(root, 'test', folder))) {
        const cwd = join(root, 'test', folder, name);
        if (!statSync(cwd).isDirectory()) continue;
        expectSame(await bothWays(['validate', '.'], cwd), `${folder}/${name}`);
        seen.push(...yamlFilesBelow(cwd));
        const spec = join(cwd, 'case.json');
        const golden = statSync(spec, { throwIfNoEntry: false }) === undefined ? undefined : (JSON.parse(readFileSync(spec, 'utf8')) as { args: string[]; env?: Record<string, string> });
        if (golden?.args[0] === 'validate') expectSame(await bothWays(golden.args, cwd), `${folder}/${name} ${golden.args.join(' ')}`);
      }
    }
  });

  it('on every example, also on standard input', async () => {
    expectSame(await bothWays(['validate', 'examples'], root), 'examples');
    for (const file of yamlFilesBelow(join(root, 'examples'))) {
      const text = readFileSync(file, 'utf8');
      expectSame(await bothWays(['validate', '-'], root, text), `${file} on standard input`);
      // The same manifest without its ${VAR}, which sends it to the loader.
      expectSame(await bothWays(['validate', '-'], root, text.replace(/\$\{([A-Z_]+)(:-[^}]*)?\}/g, 'fixed-$1')), `${file} without \${VAR}, on standard input`);
    }
    seen.push(...yamlFilesBelow(join(root, 'examples')));
  });

  describe(`on ${GENERATED.toLocaleString('en')} generated and mutated manifests`, () => {
    const corpus = generateCorpus(GENERATED, 15);
    for (let start = 0; start < GENERATED; start += BATCH) {
      it(`files ${start} to ${start + BATCH - 1}`, { timeout: 120_000 }, async () => {
        const folder = join(dir, `generated-${start}`);
        await mkdir(folder);
        for (const { file, content } of corpus.slice(start, start + BATCH)) await writeFile(join(folder, file), content);
        const report = expectSame(await bothWays(['validate', '.'], folder), `generated ${start}`);
        expect(report.summary.files).toBe(BATCH);
        seen.push(...yamlFilesBelow(folder));
      });
    }
  });

  it('tested both paths: the fast path took many files, and every hazard occurred', async () => {
    const hazards = new Set<Hazard>();
    let fast = 0;
    for (const file of seen) {
      const hazard = findHazard(readFileSync(file));
      if (hazard !== undefined) hazards.add(hazard);
      else if ((await tryFastPath(file, {})) !== undefined) fast++;
    }
    expect(seen.length).toBeGreaterThan(GENERATED);
    expect(fast, `${fast} of ${seen.length} files took the fast path`).toBeGreaterThan(seen.length / 4);
    const all: Hazard[] = [
      'too-large', 'bom', 'control', 'tab', 'carriage-return', 'backslash', 'interpolation', 'unicode-space', 'long-line', 'directive', 'document-marker',
      'anchor-alias-tag', 'explicit-key', 'explicit-value', 'empty-entry', 'trailing-space', 'comment-before-value', 'unseparated-comment', 'reserved',
    ];
    expect([...hazards].sort()).toEqual([...all].sort());
  });
});
