import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProjectConfig } from '../../../src/project/load.js';
import { tempDir } from '../../helpers/temp-dir.js';

const root = new URL('../../../', import.meta.url);
const dir = tempDir('readme');
mkdirSync(join(dir, '.git'));

/** Every ```yaml block of a document that starts with `# sessionctl.yaml`: a project file as the docs show it. */
function projectFiles(doc: string): string[] {
  const text = readFileSync(new URL(doc, root), 'utf8');
  return [...text.matchAll(/```yaml\n(# sessionctl\.yaml\n[\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('the project files the docs show', () => {
  it.each([['docs/configuration.md'], ['docs/policies.md']])('in %s validate clean', async (doc) => {
    const files = projectFiles(doc);
    expect(files.length).toBeGreaterThan(0);
    for (const text of files) {
      writeFileSync(join(dir, 'sessionctl.yaml'), text);
      const r = await loadProjectConfig({ cwd: dir, env: {} });
      expect(r.diagnostics, text).toEqual([]);
    }
  });
});
