import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

/**
 * Holds the layering that ARCHITECTURE.md declares: the order of the layers is read from its
 * `layers` block (the one place it is written), and every relative import under src/ is checked
 * against it.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

interface Layers {
  order: string[];
  /** Layers that may import only the named ones (besides themselves). */
  apart: Map<string, Set<string>>;
}

export function parseLayers(markdown: string): Layers {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (block === undefined) throw new Error('ARCHITECTURE.md has no ```layers block');
  const order: string[] = [];
  const apart = new Map<string, Set<string>>();
  for (const line of block.split('\n')) {
    const m = /^(\S+)\s+(.*)$/.exec(line.trim());
    if (m === null) continue;
    order.push(m[1]!);
    const only = /\(apart: imports only ([^)]*)\)/.exec(m[2]!);
    if (only !== null) apart.set(m[1]!, new Set(only[1]!.split(',').map((s) => s.trim())));
  }
  return { order, apart };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(name) && !name.endsWith('.d.json.ts') ? [p] : [];
  });
}

/** Relative imports of a file: static, re-exports and dynamic `import()`, type-only included. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const patterns = [/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]/g, /(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g, /\bimport\(\s*['"](\.[^'"]+)['"]/g];
  for (const re of patterns) for (const m of text.matchAll(re)) specs.push(m[1]!);
  return specs;
}

function resolveImport(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  return base.endsWith('.json') ? base : base.replace(/\.js$/, '.ts');
}

/** A file's layer: its folder under src/, or the file's own name at the root. */
function layerOf(file: string): string {
  const rel = path.relative(src, file).split(path.sep);
  return rel.length === 1 ? rel[0]! : rel[0]!;
}

/** Generated files (in a `generated/` folder or named `*.generated.ts`) are exempt from the size limits. */
function isGenerated(file: string): boolean {
  return file.split(path.sep).includes('generated') || file.endsWith('.generated.ts');
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * Every function, arrow, method, accessor and constructor of a file longer than `max` lines,
 * counted from the line it starts on to the line it ends on, as `line name (N lines)`.
 */
export function longFunctions(fileName: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : node.name !== undefined ? node.name.getText(source) : ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : '(anonymous)';
      if (end - start + 1 > max) found.push(`${start + 1} ${name} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const layers = parseLayers(readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8'));
const files = sourceFiles(src);
const graph = new Map(files.map((f) => [f, importsOf(readFileSync(f, 'utf8')).map((s) => resolveImport(f, s))]));
const rel = (f: string): string => path.relative(root, f);

describe('architecture (ARCHITECTURE.md)', () => {
  test('the layers block lists each layer once', () => {
    expect(layers.order.length).toBeGreaterThan(10);
    expect(new Set(layers.order).size).toBe(layers.order.length);
  });

  test('every folder and root file of src/ is a declared layer', () => {
    const present = readdirSync(src).filter((n) => !n.startsWith('.'));
    expect(present.filter((n) => !layers.order.includes(n)).sort()).toEqual([]);
    expect(layers.order.filter((n) => !present.includes(n)).sort()).toEqual([]);
  });

  test('every relative import resolves to a file of src/', () => {
    const broken = [...graph].flatMap(([f, targets]) => targets.filter((t) => !t.startsWith(src + path.sep) || !graph.has(t) && !t.endsWith('.json')).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(broken).toEqual([]);
  });

  test('no import runs up the layer order', () => {
    const rank = new Map(layers.order.map((name, i) => [name, i]));
    const upwards = [...graph].flatMap(([f, targets]) =>
      targets.filter((t) => rank.get(layerOf(t))! < rank.get(layerOf(f))!).map((t) => `${rel(f)} (${layerOf(f)}) -> ${rel(t)} (${layerOf(t)})`),
    );
    expect(upwards).toEqual([]);
  });

  test('layers that stand apart import only what they may', () => {
    const stray = [...graph].flatMap(([f, targets]) => {
      const allowed = layers.apart.get(layerOf(f));
      if (allowed === undefined) return [];
      return targets.filter((t) => layerOf(t) !== layerOf(f) && !allowed.has(layerOf(t))).map((t) => `${rel(f)} -> ${rel(t)}`);
    });
    expect(layers.apart.size).toBeGreaterThan(0);
    expect(stray).toEqual([]);
  });

  test('no cycle between files', () => {
    // Tarjan's strongly connected components over the file graph.
    let index = 0;
    const stack: string[] = [];
    const onStack = new Set<string>();
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index);
      index++;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(rel(w));
        } while (w !== v);
        if (scc.length > 1) cycles.push(scc.sort());
      }
    };
    for (const f of graph.keys()) if (!idx.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  test('only cli/ touches process or imports commander', () => {
    const offenders = files
      .filter((f) => layerOf(f) !== 'cli')
      .filter((f) => {
        const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
        return /\bprocess\.(env|argv|exit|stdout|stderr|stdin|cwd|kill|pid|on)\b|from 'commander'/.test(code);
      })
      .map(rel);
    expect(offenders).toEqual([]);
  });

  test('index.ts only re-exports', () => {
    const code = readFileSync(path.join(src, 'index.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    const statements = code.split(';').map((s) => s.trim()).filter((s) => s !== '');
    expect(statements.filter((s) => !/^export (type )?\{[^}]*\} from '[^']+'$/s.test(s))).toEqual([]);
  });

  test('no source file over 300 lines outside generated files', () => {
    const long = files.filter((f) => !isGenerated(f)).flatMap((f) => {
      const lines = lineCount(readFileSync(f, 'utf8'));
      return lines > 300 ? [`${rel(f)}: ${lines} lines`] : [];
    });
    expect(long).toEqual([]);
  });

  test('no function over 80 lines outside generated files', () => {
    const long = files.filter((f) => !isGenerated(f)).flatMap((f) => longFunctions(f, readFileSync(f, 'utf8'), 80).map((l) => `${rel(f)}:${l}`));
    expect(long).toEqual([]);
  });
});

describe('the readers these tests rely on', () => {
  test.each([
    ["import { a } from './a.js';", ['./a.js']],
    ["import type { A } from '../x/a.js';", ['../x/a.js']],
    ["export { a, type B } from './b.js';", ['./b.js']],
    ["export * from './c.js';", ['./c.js']],
    ["const m = await import('../d.js');", ['../d.js']],
    ["import './side-effect.js';", ['./side-effect.js']],
    ["import {\n  a,\n  b,\n} from './multi.js';", ['./multi.js']],
    ["import { x } from 'node:fs';", []],
  ])('%s', (text, expected) => {
    expect(importsOf(text).sort()).toEqual([...expected].sort());
  });

  test('measures functions, arrows, methods and constructors from their first line to their last', () => {
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  x(${i});`).join('\n');
    const text = [
      `function long() {\n${body(81)}\n}`,
      `function fits() {\n${body(80)}\n}`,
      `const arrow = () => {\n${body(81)}\n};`,
      `class C {\n  method() {\n${body(81)}\n  }\n  constructor() {\n${body(81)}\n  }\n}`,
      `call(function () {\n${body(81)}\n});`,
      'declare function bodiless(): void;',
    ].join('\n');
    expect(longFunctions('x.ts', text, 80)).toEqual(['1 long (81 lines)', '162 arrow (81 lines)', '244 method (81 lines)', '325 constructor (81 lines)', '407 (anonymous) (81 lines)']);
  });

  test('reads the order and the apart rule from a layers block', () => {
    const l = parseLayers('x\n```layers\ncli  top\nemu  stands (apart: imports only a, b)\nutil  bottom\n```\n');
    expect(l.order).toEqual(['cli', 'emu', 'util']);
    expect([...l.apart.get('emu')!]).toEqual(['a', 'b']);
  });
});
