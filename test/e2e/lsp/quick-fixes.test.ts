import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LspClient } from '../../helpers/lsp-client.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Each quick fix, applied, makes its finding go away: checked by `validate` on the edited file,
 * not by the server. The server is the built one, over stdio.
 */
const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/sessionctl.js');

interface Found {
  code: string;
  file: string;
  range: { start: { line: number; col: number } };
}

function validate(cwd: string, file: string): Found[] {
  const r = spawnSync(process.execPath, [bin, 'validate', file, '--format', 'json'], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  return (JSON.parse(r.stdout) as { diagnostics: Found[] }).diagnostics;
}

let client: LspClient;
let dir: string;
let n = 0;

beforeAll(async () => {
  dir = tempDir('lsp-fixes');
  mkdirSync(join(dir, '.git'));
  client = await LspClient.start({ folders: [dir] });
});
afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

/** Opens `text` as a new file, finds the finding of `code`, and returns the actions offered for it. */
async function actionsFor(text: string, code: string, name = `m${n++}.yaml`): Promise<{ file: string; actions: CodeAction[]; finding: Diagnostic }> {
  const sub = join(dir, `case${n++}`);
  mkdirSync(sub);
  const file = join(sub, name);
  writeFileSync(file, text);
  const uri = await client.open(file, text);
  const found = await client.diagnostics(uri, 1);
  const finding = found.find((d) => d.code === code);
  expect(finding, `no ${code} among ${JSON.stringify(found.map((d) => d.code))}`).toBeDefined();
  const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: finding!.range, context: { diagnostics: [finding] } });
  return { file, actions, finding: finding! };
}

/** Applies an action's edit to the file on disk; the new text. */
function apply(file: string, text: string, action: CodeAction): string {
  const edits = Object.values(action.edit?.changes ?? {})[0] ?? [];
  const next = TextDocument.applyEdits(TextDocument.create('file:///x', 'yaml', 1, text), edits);
  writeFileSync(file, next);
  return next;
}

describe('lsp quick fixes', () => {
  it.each([
    ['a misspelt toolkit', 'user_id: u\ntoolkits: [gmial]\n', 'catalog/unknown-toolkit', 'Replace with `gmail`', 'toolkits: [gmail]'],
    ['a quoted misspelt toolkit', 'user_id: u\ntoolkits: ["gmial"]\n', 'catalog/unknown-toolkit', 'Replace with `gmail`', 'toolkits: ["gmail"]'],
    ['a misspelt toolkit key', 'user_id: u\ntools:\n  gihtub: [GITHUB_DELETE_A_REPOSITORY]\n', 'catalog/unknown-toolkit', 'Replace with `github`', '  github: [GITHUB_DELETE_A_REPOSITORY]'],
    ['a misspelt tool', 'user_id: u\ntools:\n  github: [GITHUB_DELETE_A_REPOSITRY]\n', 'catalog/unknown-tool', 'Replace with `GITHUB_DELETE_A_REPOSITORY`', '  github: [GITHUB_DELETE_A_REPOSITORY]'],
    ['a misspelt key', 'user_id: u\ntoolkts: [gmail]\n', 'schema/unknown-key', 'Replace with `toolkits`', 'toolkits: [gmail]'],
    ['a misspelt value', 'user_id: u\nworkbench:\n  sandbox_size: lage\n', 'schema/enum', 'Replace with `large`', '  sandbox_size: large'],
    ['a YAML 1.1 hazard', 'user_id: no\n', 'yaml/yaml11-scalar', 'Quote it: "no"', 'user_id: "no"'],
  ])('%s', { timeout: 30_000 }, async (_what, text, code, title, line) => {
    const { file, actions } = await actionsFor(text, code);
    const fix = actions.find((a) => a.title === title);
    expect(fix, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    expect(fix!.isPreferred).toBe(true);
    const next = apply(file, text, fix!);
    expect(next.split('\n')).toContain(line);
    expect(validate(dir, file).map((d) => d.code)).not.toContain(code);
  });

  it("fixes a misspelt key of the project's sessionctl.yaml", { timeout: 30_000 }, async () => {
    const { file, actions } = await actionsFor('pahts: [.]\n', 'config/unknown-key', 'sessionctl.yaml');
    const fix = actions.find((a) => a.title === 'Replace with `paths`')!;
    expect(apply(file, 'pahts: [.]\n', fix)).toBe('paths: [.]\n');
    // No suppression for the project file's findings: a comment cannot silence them.
    expect(actions.map((a) => a.title)).toEqual(['Replace with `paths`']);
  });

  it.each([
    ['at the top', 'user_id: u\ntoolkits: [zzzzzzzz]\n', 'catalog/unknown-toolkit', ''],
    ['in a nested list', 'user_id: u\ntools:\n  github:\n    - GITHUB_NO_SUCH_THING_AT_ALL\n', 'catalog/unknown-tool', '    '],
  ])('suppresses with a placeholder reason, %s', { timeout: 30_000 }, async (_what, text, code, indent) => {
    const { file, actions, finding } = await actionsFor(text, code);
    const suppress = actions.find((a) => a.title === `Suppress ${code} here, with a reason`)!;
    const next = apply(file, text, suppress);
    // On the line above the finding, at its indentation.
    expect(next.split('\n')[finding.range.start.line]).toBe(`${indent}# sessionctl-ignore ${code}: say why this is fine here`);
    expect(validate(dir, file)).toEqual([]);
  });
});
