import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codes } from '../../src/diagnostics/codes.js';
import { version } from '../../src/version.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * Golden scenarios: each folder holds manifests and a `case.json` (the command line without
 * `--format`, and the exit code). Every case is rendered in every format and compared with the
 * `expected.*` files next to it; update them with `npm run test:update -- test/golden` and read the diff (`npm test`
 * never writes one: a missing golden fails).
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const formats = [
  ['human', 'expected.human.txt'],
  ['json', 'expected.json'],
  ['github', 'expected.github.txt'],
  ['sarif', 'expected.sarif.json'],
  ['junit', 'expected.junit.xml'],
  ['markdown', 'expected.markdown.md'],
] as const;

interface GoldenCase {
  args: string[];
  exit: number;
  env?: Record<string, string>;
  /** The folder to run in, relative to the case's folder (a project file is then found above it). */
  cwd?: string;
}

const cases = readdirSync(here)
  .filter((name) => statSync(join(here, name)).isDirectory())
  .sort();

function normalise(text: string, cwd: string): string {
  return text.split(cwd).join('.').split(version).join('<version>');
}

interface SarifLog {
  runs: Array<{ tool: { driver: { rules: Array<{ id: string }> | string } }; results: Array<{ ruleId: string; ruleIndex?: number | string }> }>;
}

/**
 * SARIF carries the whole code catalogue in `tool.driver.rules`, which grows as stages add codes.
 * Check here that every result's `ruleIndex` names its own rule, then keep only the rules the
 * results use, so a golden file changes only when this case's output does.
 */
function stableSarif(text: string): string {
  const log = JSON.parse(text) as SarifLog;
  for (const run of log.runs) {
    const rules = run.tool.driver.rules as Array<{ id: string }>;
    for (const result of run.results) {
      expect(rules[result.ruleIndex as number]?.id).toBe(result.ruleId);
      result.ruleIndex = '<index>';
    }
    const used = new Set(run.results.map((r) => r.ruleId));
    run.tool.driver.rules = rules.filter((r) => used.has(r.id));
  }
  return `${JSON.stringify(log, null, 2)}\n`;
}

describe('golden', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it('covers every rule and every schema error the manifest schema can produce', () => {
    const seen = new Set<string>();
    for (const name of cases) {
      const report = JSON.parse(readFileSync(join(here, name, 'expected.json'), 'utf8')) as { diagnostics: Array<{ code: string }> };
      for (const d of report.diagnostics) seen.add(d.code);
    }
    // `schema/variant` comes only from oneOf/anyOf/not, which this schema does not use where
    // cleanup keeps them (unit-tested in test/unit/validate/cleanup.test.ts with its own schema).
    const groups = ['rule/', 'schema/', 'catalog/', 'suppression/'];
    const wanted = codes.filter((c) => groups.some((g) => c.startsWith(g)) && c !== 'schema/variant');
    expect(wanted.filter((c) => !seen.has(c))).toEqual([]);
    expect(seen.has('yaml/yaml11-scalar')).toBe(true);
    // The project file's own findings, with at least the codes a person meets first.
    expect(['config/unknown-key', 'config/invalid-value', 'config/unknown-code', 'config/locked-code', 'config/policy-condition', 'config/unsafe-pattern', 'config/secret'].filter((c) => !seen.has(c))).toEqual([]);
  });

  it('covers at least eight kinds of policy, each with a finding', () => {
    const kinds = new Set<string>();
    for (const name of cases) {
      const report = JSON.parse(readFileSync(join(here, name, 'expected.json'), 'utf8')) as { diagnostics: Array<{ code: string }> };
      for (const d of report.diagnostics) if (d.code.startsWith('policy/')) kinds.add(d.code);
    }
    expect(kinds.size).toBeGreaterThanOrEqual(8);
  });

  describe.each(cases)('%s', (name) => {
    const dir = join(here, name);
    const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as GoldenCase;

    it.each(formats)('%s', async (format, file) => {
      const cwd = spec.cwd === undefined ? dir : join(dir, spec.cwd);
      // The case folder is the repository's workspace: annotations and SARIF name files from it, as in CI.
      const r = await runCli([...spec.args, '--format', format], { cwd, env: { GITHUB_WORKSPACE: dir, ...spec.env } });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(spec.exit);
      const out = normalise(r.stdout, cwd);
      await expect(format === 'sarif' ? stableSarif(out) : out).toMatchFileSnapshot(join(dir, file));
    });
  });
});
