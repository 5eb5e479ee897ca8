/**
 * Inputs inside the documented limits (1 MiB, 250,000 YAML tokens) that used to take quadratic
 * time: a flow list of 82,000 toolkits (ajv's uniqueItems with allErrors, 19-36 s), 30,000
 * unknown keys (a scan of the map per finding, 45 s) and 30,000 wrong entries of one map (ajv's
 * error list copied per entry). Each now validates in about a second (bench/hostile, timings in
 * bench/RESULTS.md); here only the findings are asserted, within the default test timeout.
 */
import { describe, expect, it } from 'vitest';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { validateDocument } from '../../../src/validate/index.js';
import { where } from './helpers.js';

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i));

function check(text: string): ReturnType<typeof validateDocument> {
  const parsed = parseManifestText(text, '/m/large.yaml', {});
  expect(parsed.diagnostics).toEqual([]);
  return validateDocument(parsed.documents[0]!);
}

describe('large inputs inside the limits', () => {
  it('a flow list of 82,000 distinct toolkits: one schema/limit at the list', () => {
    const found = check(`user_id: u\ntoolkits: [${range(82_000, (i) => `t${i}`).join(',')}]\n`);
    expect(where(found)).toEqual(['schema/limit@2:11']);
    expect(found[0]!.message).toBe('`toolkits` must have at most 1000 items');
  });

  it('a list of 82,000 equal tools: the limit, and the repeated item among the first ones', () => {
    const found = check(`user_id: u\ntools:\n  gmail:\n    enable: [${range(82_000, () => 'X').join(',')}]\n`);
    expect(found.map((d) => [d.code, d.pointer])).toEqual([
      ['schema/limit', '/tools/gmail/enable'],
      ['schema/duplicate-item', '/tools/gmail/enable/1000'],
    ]);
  });

  it('30,000 unknown keys: each one located at its own line', () => {
    const found = check(`user_id: u\n${range(30_000, (i) => `k${i}: 1`).join('\n')}\n`);
    expect(found).toHaveLength(30_000);
    expect(new Set(found.map((d) => d.code))).toEqual(new Set(['schema/unknown-key']));
    const lines = found.map((d) => d.range!.start.line).sort((a, b) => a - b);
    expect([lines[0], lines[29_999]]).toEqual([2, 30_001]);
  });

  it('30,000 wrong entries of one map: one schema/type each, at its value', () => {
    const found = check(`user_id: u\ntools:\n${range(30_000, (i) => `  t${i}: 1`).join('\n')}\n`);
    const types = found.filter((d) => d.code === 'schema/type');
    expect(types).toHaveLength(30_000);
    expect(where(types.filter((d) => d.pointer === '/tools/t29999'))).toEqual(['schema/type@30002:11']);
  });
});
