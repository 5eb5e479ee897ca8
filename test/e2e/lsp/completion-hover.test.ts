import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionItem, Hover } from 'vscode-languageserver/node';
import { LspClient } from '../../helpers/lsp-client.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Completion and hover through the protocol, against the built server and the bundled catalogue. */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const tools = (JSON.parse(readFileSync(join(root, 'src/catalog/data/tools.json'), 'utf8')) as { tools: Array<{ slug: string; toolkit: string }> }).tools;
const schema = JSON.parse(readFileSync(join(root, 'schemas/session-manifest.schema.json'), 'utf8')) as { properties: Record<string, { description: string }> };

let client: LspClient;
let dir: string;
let n = 0;

beforeAll(async () => {
  dir = tempDir('lsp-complete');
  client = await LspClient.start({ folders: [dir] });
});
afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

/** Opens a new file with `text` where `|` marks the cursor; its uri and the cursor's position. */
async function openAt(text: string): Promise<{ uri: string; line: number; character: number }> {
  const at = text.indexOf('|');
  const clean = text.slice(0, at) + text.slice(at + 1);
  const before = clean.slice(0, at).split('\n');
  const file = join(dir, `m${n++}.yaml`);
  writeFileSync(file, clean);
  const uri = await client.open(file, clean);
  return { uri, line: before.length - 1, character: before.at(-1)!.length };
}

async function complete(text: string): Promise<CompletionItem[]> {
  const { uri, line, character } = await openAt(text);
  return client.at<CompletionItem[]>('textDocument/completion', uri, line, character);
}

async function hoverAt(text: string): Promise<string | undefined> {
  const { uri, line, character } = await openAt(text);
  const h = await client.at<Hover | null>('textDocument/hover', uri, line, character);
  return h === null ? undefined : (h.contents as { value: string }).value;
}

const labels = (items: CompletionItem[]): string[] => items.map((i) => i.label);

describe('lsp completion', () => {
  it.each([
    ['a block list', 'user_id: u\ntools:\n  github:\n    - GITHUB_|\n'],
    ['a flow list', 'user_id: u\ntools:\n  github: [GITHUB_|]\n'],
    ['enable under the toolkit', 'user_id: u\ntools:\n  github:\n    enable: [|]\n'],
    ['a list item at the key column', 'user_id: u\ntools:\n  github:\n  - |\n'],
  ])('offers only the toolkit\'s tools under tools.<toolkit>: %s', async (_what, text) => {
    const items = await complete(text);
    const expected = tools.filter((t) => t.toolkit === 'github').map((t) => t.slug);
    expect(labels(items).sort()).toEqual([...expected].sort());
    const del = items.find((i) => i.label === 'GITHUB_DELETE_A_REPOSITORY')!;
    expect(del.detail).toMatch(/^Delete a repository · .*destructiveHint/);
  });

  it('documents a tool or toolkit when the editor resolves the item, not in the list', async () => {
    const items = await complete('user_id: u\ntools:\n  github: [GITHUB_|]\n');
    const del = items.find((i) => i.label === 'GITHUB_DELETE_A_REPOSITORY')!;
    expect(del.documentation).toBeUndefined();
    const resolved = await client.connection.sendRequest<CompletionItem>('completionItem/resolve', del);
    expect(resolved.documentation).toEqual({ kind: 'markdown', value: expect.stringMatching(/^\*\*Delete a repository\*\* `GITHUB_DELETE_A_REPOSITORY`\n\nToolkit: `github` · Tags: .*`destructiveHint`/) });
    const kits = await complete('user_id: u\ntoolkits: [gmai|]\n');
    const gmail = await client.connection.sendRequest<CompletionItem>('completionItem/resolve', kits.find((i) => i.label === 'gmail')!);
    expect(gmail.documentation).toEqual({ kind: 'markdown', value: expect.stringMatching(/^\*\*Gmail\*\* `gmail`\n\nAuth: /) });
  });

  it("offers another toolkit's own tools under its key", async () => {
    const items = await complete('user_id: u\ntools:\n  googledrive: [|]\n');
    expect(items.length).toBe(tools.filter((t) => t.toolkit === 'googledrive').length);
    expect(items.every((i) => i.label.startsWith('GOOGLEDRIVE_'))).toBe(true);
  });

  it('offers toolkit slugs in the allowlist and as keys of tools', async () => {
    const listed = labels(await complete('user_id: u\ntoolkits: [gmail, |]\n'));
    expect(listed).toContain('github');
    expect(listed).toContain('slack');
    const enable = labels(await complete('user_id: u\ntoolkits:\n  enable:\n    - gi|\n'));
    expect(enable).toContain('github');
    const keys = await complete('user_id: u\ntools:\n  gi|\n');
    expect(keys.find((i) => i.label === 'github')?.textEdit).toMatchObject({ newText: 'github:', range: { start: { line: 2, character: 2 }, end: { line: 2, character: 4 } } });
  });

  it('offers the keys of the mapping with their schema docs', async () => {
    const top = await complete('user_id: u\n|\n');
    expect(labels(top)).toEqual(Object.keys(schema.properties));
    expect(top.find((i) => i.label === 'toolkits')?.documentation).toEqual({ kind: 'markdown', value: schema.properties['toolkits']!.description });
    expect(labels(await complete('user_id: u\nworkbench:\n  |\n'))).toEqual(['enable', 'enable_proxy_execution', 'auto_offload_threshold', 'sandbox_size', 'enable_tool_execution']);
    expect(labels(await complete('user_id: u\ntools:\n  github:\n    |\n'))).toEqual(expect.arrayContaining(['enable', 'disable', 'tags']));
  });

  it('offers tags and other allowed values', async () => {
    expect(labels(await complete('user_id: u\ntags: [|]\n'))).toEqual(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
    expect(labels(await complete('user_id: u\ntools:\n  github:\n    tags: [|]\n'))).toEqual(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
    expect(labels(await complete('user_id: u\nworkbench:\n  sandbox_size: |\n'))).toEqual(['standard', 'medium', 'large', 'xlarge']);
  });

  it('offers nothing in a comment', async () => {
    expect(await complete('user_id: u\n# tools: [|]\n')).toEqual([]);
  });
});

describe('lsp hover', () => {
  it('describes a tool with its tags', async () => {
    const text = await hoverAt('user_id: u\ntools:\n  github: [GITHUB_DELETE_A_REPO|SITORY]\n');
    expect(text).toContain('**Delete a repository** `GITHUB_DELETE_A_REPOSITORY`');
    expect(text).toMatch(/Toolkit: `github` · Tags: .*`destructiveHint`/);
  });

  it('describes a toolkit, as a key and in a list', async () => {
    expect(await hoverAt('user_id: u\ntools:\n  git|hub: [GITHUB_DELETE_A_REPOSITORY]\n')).toMatch(/^\*\*GitHub\*\* `github`/);
    expect(await hoverAt('user_id: u\ntoolkits: [sla|ck]\n')).toMatch(/`slack`/);
  });

  it('describes a key from the schema', async () => {
    expect(await hoverAt('user_|id: u\n')).toBe(`**user_id**\n\n${schema.properties['user_id']!.description}`);
    expect(await hoverAt('user_id: u\nworkbench:\n  sandbox_si|ze: large\n')).toMatch(/^\*\*workbench\.sandbox_size\*\*\n\nWorkbench sandbox size/);
  });

  it('has nothing to say about a plain value', async () => {
    expect(await hoverAt('user_id: som|eone\n')).toBeUndefined();
  });
});

describe('lsp requests that fail', () => {
  it('answer with an error, and the server goes on', async () => {
    await expect(client.connection.sendRequest('textDocument/hover', {})).rejects.toThrow();
    await expect(client.connection.sendRequest('textDocument/completion', { textDocument: { uri: 'file:///nowhere.yaml' }, position: { line: -5, character: 1e9 } })).resolves.toEqual([]);
    expect(await hoverAt('user_id: u\ntoolkits: [sla|ck]\n')).toMatch(/`slack`/);
  });
});
