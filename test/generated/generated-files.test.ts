import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generatedFiles, staleFiles } from '../../scripts/generate/index.js';

const root = new URL('../../', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, root), 'utf8');
const readGenerated = (rel: string): string | undefined => {
  try {
    return read(rel);
  } catch {
    return undefined;
  }
};

describe('generated files', { timeout: 60_000 }, () => {
  it('are what their committed sources generate (npm run generate)', () => {
    // Names first: the failure says which file and what to run before any long diff.
    expect(staleFiles(read, readGenerated).map((f) => f.path)).toEqual([]);
  });

  it('are all found stale when a source changes without regeneration', () => {
    const schema = JSON.parse(read('schemas/session-manifest.schema.json')) as { description: string };
    const edited = (rel: string): string =>
      rel === 'schemas/session-manifest.schema.json' ? JSON.stringify({ ...schema, description: `${schema.description} Edited.` }, null, 2) : read(rel);
    expect(staleFiles(edited, readGenerated).map((f) => f.path)).toEqual(['src/validate/generated/manifest-validator.ts', 'docs/manifest.md']);
  });

  it('a missing generated file is stale, not silently fine', () => {
    const missing = (rel: string): string | undefined => (rel === 'docs/rules.md' ? undefined : readGenerated(rel));
    expect(staleFiles(read, missing).map((f) => f.path)).toEqual(['docs/rules.md']);
  });

  it('`npm run generate -- --check` passes on this checkout', async () => {
    const { stderr } = await promisify(execFile)(process.execPath, ['scripts/generate.mjs', '--check'], { cwd: new URL('.', root) });
    expect(stderr).toBe('generate: every generated file is up to date\n');
  });

  it('the manifest validator needs no CommonJS require at run time', () => {
    expect(generatedFiles(read)['src/validate/generated/manifest-validator.ts']).not.toMatch(/\brequire\(/);
    expect(generatedFiles(read)['src/emulator/contract/validators.generated.ts']).not.toMatch(/\brequire\(/);
  });

  // The vendored copies are byte-for-byte the shared facts (../shared/contract, ../shared/data), whose
  // SHA-256 sums were taken when they were vendored; a changed copy fails here.
  it.each([
    ['contract/tool-router-v3.openapi.json', '055d2f3f828bc14ef74b2d53827083193b1f45872e935ed37c5d62969e4eaf51'],
    ['src/catalog/data/toolkits.json', '05fe3a3029b08e4af9b74935db2834fc3db03623f0050e8b9c8a5f71e6a0c9d1'],
    ['src/catalog/data/tools.json', '7958c84396505941108833fa1ec841394a804088a9f4659915fa616e3c6ccfd8'],
  ])('%s is the shared file, unchanged', (file, sha) => {
    expect(createHash('sha256').update(readFileSync(new URL(file, root))).digest('hex')).toBe(sha);
  });
});
