import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { catalogFor } from '../../../src/validate/project-checks.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('catalogFor: a catalogue file, loaded once per process', () => {
  test('a file that failed to load is read again on the next call (it may have been fixed), a loaded one is kept', async () => {
    const file = join(tempDir('catalog-file'), 'catalog.json');
    await expect(catalogFor(file)).rejects.toMatchObject({ code: 'ENOENT' });
    writeFileSync(file, '{"toolkits": [');
    await expect(catalogFor(file)).rejects.toThrow(/^not JSON: /);
    writeFileSync(file, JSON.stringify({ toolkits: [{ slug: 'acme' }], tools: [] }));
    const loaded = await catalogFor(file);
    expect(loaded.toolkit('acme')?.slug).toBe('acme');
    rmSync(file);
    expect(await catalogFor(file)).toBe(loaded);
  });
});
