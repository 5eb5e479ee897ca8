import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

/**
 * What the README and docs/ point a reader at ships in the package (issue 30 item 6: the README
 * sent readers to examples/): every `examples/...` path they name is in `npm pack`'s file list.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = ['README.md', ...readdirSync(resolve(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the package', () => {
  test('holds every examples/ file and folder the README and docs name', { timeout: 60_000 }, async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    const files = ((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files).map((f) => f.path);
    const named = new Set(pages.flatMap((page) => [...readFileSync(resolve(root, page), 'utf8').matchAll(/\bexamples\/[\w./-]*/g)].map((m) => m[0].replace(/[.]$/, ''))));
    expect(named.size).toBeGreaterThan(2);
    const missing = [...named].filter((path) => !files.some((f) => f === path || f.startsWith(path.endsWith('/') ? path : `${path}/`)));
    expect(missing).toStrictEqual([]);
  });
});

describe('the Node version story', () => {
  test('the README and docs/install.md name the floor package.json declares, and install.md says why npm warns in a checkout', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
    const floor = /^>=(\d+)\.(\d+)\.0$/.exec(pkg.engines.node);
    expect(floor).not.toBeNull();
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const install = readFileSync(resolve(root, 'docs/install.md'), 'utf8');
    expect(readme).toContain(`Node ${floor![1]}.${floor![2]} or newer`);
    expect(install).toContain(`sessionctl needs Node ${floor![1]}.${floor![2]} or newer`);
    expect(install).toContain('EBADENGINE');
    // The dev dependencies install.md names as declaring Node 22 are the project's.
    for (const name of ['@composio/core', '@composio/client']) expect(pkg.devDependencies[name]).toBeDefined();
  });

  test('docs/install.md\'s allowScripts story holds: no install script in the package or what it installs; `prepare` for git; esbuild in a checkout', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string> };
    const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; hasInstallScript?: boolean; version?: string }> };
    const install = readFileSync(resolve(root, 'docs/install.md'), 'utf8');
    expect(Object.keys(pkg.scripts).filter((s) => ['preinstall', 'install', 'postinstall'].includes(s))).toStrictEqual([]);
    expect(install).toContain(`sessionctl@${pkg.version} (prepare: ${pkg.scripts['prepare']})`);
    const withScripts = Object.entries(lock.packages).filter(([path, p]) => path !== '' && p.hasInstallScript === true);
    // Only dev dependencies have install scripts, and install.md names each.
    expect(withScripts.filter(([, p]) => p.dev !== true)).toStrictEqual([]);
    for (const [path, p] of withScripts) expect(install).toContain(`${path.replace(/^.*node_modules\//, '')}@${p.version}`);
  });
});
