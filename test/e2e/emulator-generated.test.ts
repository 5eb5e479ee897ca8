import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCatalogDataModule, renderOperationsModule, renderValidatorsModule } from '../../src/emulator/contract/generate.js';

const root = new URL('../../', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, root), 'utf8');
const regenerate = process.env['SESSIONCTL_REGENERATE'] === '1';

function check(rel: string, expected: string): void {
  if (regenerate) writeFileSync(new URL(rel, root), expected);
  expect(read(rel)).toBe(expected);
}

describe('generated emulator modules match their vendored sources', { timeout: 60_000 }, () => {
  it('operations.generated.ts is the converted contract', () => {
    const contract = JSON.parse(read('contract/tool-router-v3.openapi.json'));
    check('src/emulator/contract/operations.generated.ts', renderOperationsModule(contract, 'contract/tool-router-v3.openapi.json'));
  });

  it('validators.generated.ts is the contract request schemas compiled ahead of time', () => {
    const contract = JSON.parse(read('contract/tool-router-v3.openapi.json'));
    check('src/emulator/contract/validators.generated.ts', renderValidatorsModule(contract, 'contract/tool-router-v3.openapi.json'));
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

  // The vendored copies are byte-for-byte the shared facts (../shared/contract, ../shared/data), whose
  // SHA-256 sums were taken when they were vendored; a changed copy fails here.
  it.each([
    ['contract/tool-router-v3.openapi.json', '055d2f3f828bc14ef74b2d53827083193b1f45872e935ed37c5d62969e4eaf51'],
    ['src/emulator/data/toolkits.json', '05fe3a3029b08e4af9b74935db2834fc3db03623f0050e8b9c8a5f71e6a0c9d1'],
    ['src/emulator/data/tools.json', '7958c84396505941108833fa1ec841394a804088a9f4659915fa616e3c6ccfd8'],
  ])('%s is the shared file, unchanged', (file, sha) => {
    expect(createHash('sha256').update(readFileSync(new URL(file, root))).digest('hex')).toBe(sha);
  });
});
