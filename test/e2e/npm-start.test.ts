import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

// `npm start` is the first thing the README asks of a newcomer: it must run the whole loop on the
// examples, offline, and leave the checkout as it found it.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under a folder with its size and modification time: what a run could have changed. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((f) => {
      const s = statSync(join(dir, f));
      return `${f} ${s.size} ${s.mtimeMs}`;
    });
}

test('npm start validates, plans, applies and diffs every example against the in-process emulator, and writes nothing in the checkout', { timeout: 120_000 }, async () => {
  const before = snapshot(join(root, 'examples'));
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env: { ...process.env, NO_COLOR: '1', COMPOSIO_API_KEY: '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (c) => resolve({ code: c, out }));
  });
  const folder = /State and emulator data: (\S+) \(a new folder each run\)/.exec(out)?.[1];
  if (folder !== undefined && existsSync(folder)) rmSync(folder, { recursive: true, force: true });
  expect(code, out).toBe(0);
  expect(out.match(/^== \d\/4 {2}sessionctl \w+/gm)).toEqual(['== 1/4  sessionctl validate', '== 2/4  sessionctl plan', '== 3/4  sessionctl apply', '== 4/4  sessionctl diff']);
  const created = /^(\d+) created, 0 unchanged, 0 drifted, 0 failed$/m.exec(out)?.[1];
  expect(Number(created)).toBeGreaterThan(0);
  expect(out).toMatch(new RegExp(`^${created} of ${created} in sync$`, 'm'));
  expect(out).toMatch(/^✔ No problems in \d+ manifests/m);
  expect(folder?.startsWith(root)).toBe(false);
  expect(snapshot(join(root, 'examples'))).toEqual(before);
});
