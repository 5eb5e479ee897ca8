import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * What importing the package's entry loads: the static import graph of dist/index.js (what Node
 * evaluates on `import 'sessionctl'`), without what is imported on first use (`import(...)`).
 * The emulator and the MCP SDK it serves with are for tests and the CLI, not for an application.
 */
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');

/** `import ... from '...'`, `export ... from '...'`, `import '...'`: static only, not `import(...)`. */
const STATIC = /^\s*(?:import|export)\s(?:[^'"();]*?\sfrom\s)?['"]([^'"]+)['"]/gm;

function staticGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(dist, f)), packages: [...packages] };
}

describe('importing the entry', () => {
  test('loads no emulator module and not the MCP SDK (dist, built by npm test before vitest)', () => {
    const { files, packages } = staticGraph(join(dist, 'index.js'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => f.startsWith('emulator/'))).toStrictEqual([]);
    expect(packages.filter((p) => p.startsWith('@modelcontextprotocol/'))).toStrictEqual([]);
  });

  test('the reader sees static imports and skips dynamic ones', () => {
    const text = "import { a } from './a.js';\nexport { b } from './b.js';\nimport './c.js';\nconst d = await import('./d.js');\n";
    expect([...text.matchAll(STATIC)].map((m) => m[1])).toStrictEqual(['./a.js', './b.js', './c.js']);
  });
});
