import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LspClient } from '../../helpers/lsp-client.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Open buffers as an editor has them: unsaved text, files of the workspace that are not open,
 * the project file being edited, hostile pastes and bursts of edits. Driven over stdio against
 * the built server.
 */
const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/sessionctl.js');

function validateJson(cwd: string, args: string[]): Array<{ code: string; file?: string; range?: { start: { line: number; col: number } } }> {
  const r = spawnSync(process.execPath, [bin, 'validate', ...args, '--format', 'json', '--unset-variables', 'placeholder'], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  return (JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; file?: string; range?: { start: { line: number; col: number } } }> }).diagnostics;
}

const codesOf = (ds: ReadonlyArray<{ code?: string | number }>): string[] => ds.map((d) => String(d.code));

describe('lsp buffers', () => {
  it('checks the unsaved text, against the files of the workspace that are not open', { timeout: 30_000 }, async () => {
    const dir = tempDir('lsp-unsaved');
    writeFileSync(join(dir, 'a.yaml'), 'name: shared\nuser_id: u1\n');
    writeFileSync(join(dir, 'b.yaml'), 'name: other\nuser_id: u2\n');
    const client = await LspClient.start({ folders: [dir] });
    try {
      const uri = await client.open(join(dir, 'b.yaml'), 'name: other\nuser_id: u2\n');
      expect(await client.diagnostics(uri, 1)).toEqual([]);
      // Typed, not saved: b now takes a's name; a is not open, and is read from disk.
      const v2 = await client.change(uri, 'name: shared\nuser_id: u2\n');
      const dup = await client.diagnostics(uri, v2);
      expect(codesOf(dup)).toEqual(['rule/duplicate-name']);
      expect(dup[0]!.range).toEqual({ start: { line: 0, character: 6 }, end: { line: 0, character: 12 } });
      expect(dup[0]!.relatedInformation?.[0]?.location.uri).toBe(`file://${join(dir, 'a.yaml')}`);
      expect(dup[0]!.codeDescription?.href).toMatch(/\/docs\/rules\.md#rule-duplicate-name$/);
      // What validate says once that text is saved.
      writeFileSync(join(dir, 'b.yaml'), 'name: shared\nuser_id: u2\n');
      expect(validateJson(dir, ['.']).filter((d) => d.file === 'b.yaml').map((d) => d.code)).toEqual(['rule/duplicate-name']);
      const v3 = await client.change(uri, 'name: shared\nuser_id: u2\ntoolkits: [gmial]\n');
      expect(codesOf(await client.diagnostics(uri, v3))).toEqual(['rule/duplicate-name', 'catalog/unknown-toolkit']);
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });

  it("applies the project's unsaved sessionctl.yaml, and gives it its own config findings", { timeout: 30_000 }, async () => {
    const dir = tempDir('lsp-project');
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'sessionctl.yaml'), 'paths: [manifests]\n');
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'm.yaml'), 'user_id: u\ntoolkits: [gmial]\n');
    const client = await LspClient.start({ folders: [dir] });
    try {
      const m = await client.open(join(dir, 'manifests', 'm.yaml'), 'user_id: u\ntoolkits: [gmial]\n');
      const before = await client.diagnostics(m, 1);
      expect(before.map((d) => [d.code, d.severity])).toEqual([['catalog/unknown-toolkit', 2]]);
      const config = await client.open(join(dir, 'sessionctl.yaml'), 'paths: [manifests]\n');
      expect(await client.diagnostics(config, 1)).toEqual([]);
      // The project turns catalogue findings into errors: unsaved, it applies already.
      const v2 = await client.change(config, 'paths: [manifests]\nrules:\n  catalog/*: error\n');
      expect(await client.diagnostics(config, v2)).toEqual([]);
      await expect.poll(async () => (await client.diagnostics(m)).map((d) => [d.code, d.severity])).toEqual([['catalog/unknown-toolkit', 1]]);
      // A typo in the project file is its finding, located there.
      const v3 = await client.change(config, 'pahts: [manifests]\n');
      const found = await client.diagnostics(config, v3);
      expect(found.map((d) => [d.code, d.range.start])).toEqual([['config/unknown-key', { line: 0, character: 0 }]]);
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });

  it('an unset ${VAR} is a placeholder in the editor unless the project says error; validate follows the project too', { timeout: 30_000 }, async () => {
    const dir = tempDir('lsp-unset');
    mkdirSync(join(dir, '.git'));
    const manifest = 'user_id: ${LSP_TEST_UNSET_USER}\n';
    writeFileSync(join(dir, 'm.yaml'), manifest);
    const client = await LspClient.start({ folders: [dir] });
    try {
      const uri = await client.open(join(dir, 'm.yaml'), manifest);
      expect(codesOf(await client.diagnostics(uri, 1))).toEqual(['env/placeholder']);
      // The project file exists, empty; the setting is typed in, not saved.
      writeFileSync(join(dir, 'sessionctl.yaml'), '');
      const config = await client.open(join(dir, 'sessionctl.yaml'), 'unset_variables: error\n');
      expect(await client.diagnostics(config, 1)).toEqual([]);
      await expect.poll(async () => codesOf(await client.diagnostics(uri))).toEqual(['env/unset-variable']);
    } finally {
      expect(await client.stop()).toBe(0);
    }
    writeFileSync(join(dir, 'sessionctl.yaml'), 'unset_variables: placeholder\n');
    const r = spawnSync(process.execPath, [bin, 'validate', 'm.yaml', '--format', 'json'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['env/placeholder']);
    const flag = spawnSync(process.execPath, [bin, 'validate', 'm.yaml', '--format', 'json', '--unset-variables', 'error'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect((JSON.parse(flag.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['env/unset-variable']);
  });

  it('survives hostile buffers and keeps answering', { timeout: 60_000 }, async () => {
    const dir = tempDir('lsp-hostile');
    const client = await LspClient.start({ folders: [dir] });
    try {
      const uri = await client.open(join(dir, 'm.yaml'), 'user_id: u\n');
      expect(await client.diagnostics(uri, 1)).toEqual([]);
      const hostile: Array<[string, string]> = [
        ['a 5 MB paste', `user_id: u\ndescription: ${'x'.repeat(5 * 1024 * 1024)}\n`],
        ['NUL bytes', 'user_id: u\u0000\n'],
        ['deep nesting', `user_id: ${'['.repeat(5000)}`],
        ['an alias bomb', `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`],
        ['a tab indent', 'user_id: u\ntools:\n\tgithub: [X]\n'],
      ];
      for (const [what, text] of hostile) {
        const v = await client.change(uri, text);
        const found = await client.diagnostics(uri, v);
        expect(found.length, what).toBeGreaterThan(0);
      }
      // A lone surrogate is no finding (saved, it is U+FFFD), and no reason to stop.
      expect(await client.diagnostics(uri, await client.change(uri, 'user_id: "\ud800"\n'))).toEqual([]);
      // 10,000 edits as fast as the pipe takes them: the server checks the last one.
      let v = 0;
      for (let i = 0; i < 10_000; i++) v = await client.change(uri, `user_id: u${i}\ntoolkits: [${i % 2 === 0 ? 'gmail' : 'gmial'}]\n`);
      expect(codesOf(await client.diagnostics(uri, v))).toEqual(['catalog/unknown-toolkit']);
      const last = await client.change(uri, 'user_id: u\n');
      expect(await client.diagnostics(uri, last)).toEqual([]);
    } finally {
      expect(await client.stop()).toBe(0);
    }
    expect(client.stderr).toBe('');
  });
});
