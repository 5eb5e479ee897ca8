import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeLens } from 'vscode-languageserver/node';
import { LspClient } from '../../helpers/lsp-client.js';
import { applyWorld, type ApplyWorld } from '../apply-helpers.js';

/**
 * The code lens of what is deployed, read from a file state that a real apply on the emulator
 * wrote; the server (built, over stdio) never talks to the service.
 */
const SUPPORT = 'name: support\nuser_id: alice\ntoolkits: [gmail]\n';
const AGENT = 'name: helpdesk\nuser_id: <end-user>\ntoolkits: [gmail, github]\n';

let world: ApplyWorld;

beforeAll(async () => {
  world = await applyWorld({ 'm/support.yaml': SUPPORT, 'm/helpdesk.yaml': AGENT });
  const r = await world.run(['apply', 'm']);
  expect(r.exitCode, r.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await world.close();
});

async function lenses(client: LspClient, file: string, text: string): Promise<CodeLens[]> {
  const uri = await client.open(join(world.dir, file), text);
  return client.connection.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
}

describe('lsp code lens of what is deployed', () => {
  it('shows the recorded session, and a per-user manifest\'s publication', { timeout: 30_000 }, async () => {
    const state = JSON.parse(readFileSync(join(world.dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: Array<{ name: string; session_id: string; config_version: number | null; applied_at: string }> };
    const support = state.sessions.find((s) => s.name === 'support')!;
    const client = await LspClient.start({ folders: [world.dir], initializationOptions: { deployedLens: true } });
    try {
      const found = await lenses(client, 'm/support.yaml', SUPPORT);
      const version = support.config_version === null ? '' : ` · config v${support.config_version}`;
      expect(found).toEqual([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, command: { title: `sessionctl: deployed ${support.session_id}${version} · applied ${support.applied_at}`, command: '' } }]);
      expect((await lenses(client, 'm/helpdesk.yaml', AGENT)).map((l) => l.command?.title)).toEqual(['sessionctl: published v1 · 0 sessions']);
      // An unsaved rename is a manifest the state does not know.
      expect((await lenses(client, 'm/new.yaml', SUPPORT.replace('support', 'renamed'))).map((l) => l.command?.title)).toEqual([
        `sessionctl: renamed has no session recorded in ${join(world.dir, '.sessionctl', 'state.json')}`,
      ]);
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });

  it('is off unless asked for', { timeout: 30_000 }, async () => {
    const client = await LspClient.start({ folders: [world.dir] });
    try {
      expect(await lenses(client, 'm/support.yaml', SUPPORT)).toEqual([]);
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });
});
