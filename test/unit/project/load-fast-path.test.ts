/**
 * A clean `sessionctl.yaml` is read by the manifests' fast path (js-yaml, no positions); any file
 * with a hazard or a finding by the manifest loader. The two must give the same `ProjectLoad`:
 * the same settings, findings, sources and secrets. Checked on the project files the repository
 * ships (the starter, the golden cases, the benchmark's) and on those files with lines inserted
 * that are clean, hazardous (tabs, anchors, `${VAR}`, trailing spaces, a second document) or wrong
 * (secrets, unknown codes, bad severities, unsafe patterns). The test also checks that it tests
 * something: both paths must be taken often.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JS module shared with the benchmark
import { generateProject } from '../../../bench/validate/generate.js';
import { loadProjectConfig, type ProjectLoad } from '../../../src/project/load.js';
import { starterProjectConfig } from '../../../src/project/starter.js';
import { readFastData, readFastText } from '../../../src/validate/fast-path/try-fast-path.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { fc, runs } from '../../property/fast-check.js';

const root = new URL('../../../', import.meta.url);
const env = { X: 'from-env', STATE_URL: 'postgres://db.example.com/sessions' };
let dir: string;
let bases: string[];

beforeAll(() => {
  dir = tempDir('config-fast-path');
  mkdirSync(join(dir, '.git'));
  const bench = tempDir('config-fast-path-bench');
  generateProject(bench, 0);
  bases = [
    starterProjectConfig('https://example.com/sessionctl-config.schema.json'),
    readFileSync(new URL('test/golden/policies/sessionctl.yaml', root), 'utf8'),
    readFileSync(new URL('test/golden/catalog/sessionctl.yaml', root), 'utf8'),
    readFileSync(new URL('test/golden/config-found-upwards/sessionctl.yaml', root), 'utf8'),
    readFileSync(join(bench, 'sessionctl.yaml'), 'utf8'),
    'paths: [manifests/]\n',
  ];
});

/** How `text` loads, by the default route and by the loader alone, and whether the fast path could read it. */
async function bothWays(text: string): Promise<{ fast: ProjectLoad; loader: ProjectLoad; readable: boolean }> {
  const file = join(dir, 'sessionctl.yaml');
  writeFileSync(file, text);
  const fast = await loadProjectConfig({ cwd: dir, env });
  const loader = await loadProjectConfig({ cwd: dir, env, fastPath: false });
  const fastText = readFastText(file, 256 * 1024);
  const readable = fastText !== undefined && (await readFastData(fastText)) !== undefined;
  return { fast, loader, readable };
}

describe('sessionctl.yaml by the fast path and by the loader', () => {
  it('the repository’s own project files: read by the fast path, the same as by the loader', async () => {
    for (const text of bases) {
      const { fast, loader, readable } = await bothWays(text);
      expect(fast, text).toEqual(loader);
      expect(loader.diagnostics, text).toEqual([]);
      expect(readable, text).toBe(true);
    }
  });

  it('a file with a finding is read by the loader: positions and the masked secret as before', async () => {
    const text = 'base_url: https://u:hunter2-secret@api.example.com\nrules:\n  rule/empty-allowlist: loud\n';
    const { fast, loader, readable } = await bothWays(text);
    expect(readable).toBe(true);
    expect(fast).toEqual(loader);
    expect(fast.config).toBeUndefined();
    expect(fast.diagnostics.map((d) => [d.code, d.range?.start.line, d.range?.start.col])).toEqual([
      ['config/secret', 1, 11],
      ['config/invalid-value', 3, 25],
    ]);
    expect(fast.secrets).toEqual(['hunter2-secret']);
    expect(fast.sources.get(join(dir, 'sessionctl.yaml'))).not.toContain('hunter2-secret');
  });

  it('any project file with lines inserted: the same either way', async () => {
    // Inserted at the start of a line, at the top level or inside a policy list.
    const lines = [
      '# a comment',
      '  # an indented comment',
      'paths: [manifests/, "teams/**/*.yaml"]',
      'paths:\n  - manifests/',
      'api_version: 3.1',
      'api_version: 3.10',
      'api_version: "3"',
      'base_url: https://eu.backend.example.com',
      'base_url: https://api.example.com/?api_key=sk-live-abcdef0123456789',
      'state: ${STATE_URL}',
      'state: postgres://app:pw-1234@db.example.com/s',
      'state: state/sessions.json',
      'formats: [human, sarif=out.sarif]',
      'env_files: [.env.ci]',
      'ignore: ["drafts/**"]',
      'ignore: [*.yaml]',
      'catalog: catalog.json',
      'sensitive: [SUPPORT_USER_ID]',
      'rules: {catalog/*: error, rule/empty-allowlist: off}',
      'rules:\n  rule/nope: off',
      'rules:\n  rule/empty-allowlist: loud',
      'overrides: [{files: ["sandbox/**"], rules: {catalog/*: info}}]',
      'policies: []',
      'policies:\n  - {id: ids, message: m, user_id_pattern: "^u-[0-9]+$"}',
      "policies:\n  - {id: ids, message: m, user_id_pattern: '^u-\\d+$'}",
      'policies:\n  - {id: bad, message: m, user_id_pattern: "^(a+)+$"}',
      'policies:\n  - {id: two, message: m, max_toolkits: 1, denied_toolkits: [x]}',
      '  - {id: extra, message: m, max_toolkits: 2}',
      'colour: blue',
      'paths: [a]\npaths: [b]',
      '\tpaths: [a]',
      'paths: [a] ',
      'anchor: &a [x]',
      '---',
      '%YAML 1.1',
      'base_url: !!str https://x.example.com',
      '? paths\n: [a]',
      'name: café',
      'name: "a\u00a0b"',
      'x: ${X}',
      '',
    ];
    let fastRead = 0;
    let loaderRead = 0;
    const inserted = fc.tuple(
      fc.integer({ min: 0, max: bases.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...lines)), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(inserted, async ([base, inserts]) => {
        const at = bases[base]!.split('\n');
        for (const [where, line] of inserts) at.splice(where % (at.length + 1), 0, line);
        const text = at.join('\n');
        const { fast, loader, readable } = await bothWays(text);
        expect(fast, text).toEqual(loader);
        if (readable && fast.diagnostics.length === 0) fastRead++;
        else loaderRead++;
      }),
      runs(),
    );
    // Both routes are taken often enough to be compared.
    expect(fastRead).toBeGreaterThan(100);
    expect(loaderRead).toBeGreaterThan(100);
  }, 120_000);
});
