import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateValidatorModule } from '../../../src/validate/generate-standalone.js';

const schemaPath = fileURLToPath(new URL('../../../schemas/session-manifest.schema.json', import.meta.url));
const generatedPath = fileURLToPath(new URL('../../../src/validate/generated/manifest-validator.ts', import.meta.url));

describe('standalone validator', () => {
  it('is exactly what the schema generates today (regenerate with SESSIONCTL_REGENERATE=1)', () => {
    const fresh = generateValidatorModule(readFileSync(schemaPath, 'utf8'));
    if (process.env['SESSIONCTL_REGENERATE'] === '1') writeFileSync(generatedPath, fresh);
    expect(readFileSync(generatedPath, 'utf8')).toBe(fresh);
    expect(fresh).not.toMatch(/\brequire\(/);
  });
});
