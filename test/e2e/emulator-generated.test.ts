import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCatalogDataModule, renderOperationsModule } from '../../src/emulator/contract/generate.js';

const root = new URL('../../', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, root), 'utf8');
const regenerate = process.env['SESSIONCTL_REGENERATE'] === '1';

function check(rel: string, expected: string): void {
  if (regenerate) writeFileSync(new URL(rel, root), expected);
  expect(read(rel)).toBe(expected);
}

describe('generated emulator modules match their vendored sources', () => {
  it('operations.generated.ts is the converted contract', () => {
    const contract = JSON.parse(read('contract/tool-router-v3.openapi.json'));
    check('src/emulator/contract/operations.generated.ts', renderOperationsModule(contract, 'contract/tool-router-v3.openapi.json'));
  });

  it('catalog-data.generated.ts is the vendored catalogue data', () => {
    const toolkits = JSON.parse(read('src/emulator/data/toolkits.json'));
    const tools = JSON.parse(read('src/emulator/data/tools.json'));
    check(
      'src/emulator/data/catalog-data.generated.ts',
      renderCatalogDataModule(toolkits, tools, 'src/emulator/data/toolkits.json, src/emulator/data/tools.json'),
    );
    expect(toolkits.toolkits).toHaveLength(530);
    expect(tools.tools).toHaveLength(885);
  });

  // The vendored copies are byte-for-byte the shared facts; when the shared tree is present, prove it.
  it.runIf(existsSync('/work/shared/contract/tool-router-v3.openapi.json'))('vendored copies equal /work/shared', () => {
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    const pairs: Array<[string, string]> = [
      ['contract/tool-router-v3.openapi.json', '/work/shared/contract/tool-router-v3.openapi.json'],
      ['src/emulator/data/toolkits.json', '/work/shared/data/toolkits.json'],
      ['src/emulator/data/tools.json', '/work/shared/data/tools.json'],
    ];
    for (const [ours, theirs] of pairs) expect(sha(readFileSync(new URL(ours, root)))).toBe(sha(readFileSync(theirs)));
  });
});
