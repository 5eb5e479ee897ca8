import { describe, expect, test } from 'vitest';
import { expectedConfig } from '../../../src/config/expected.js';
import { requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { verifyMcpTools, verifySession } from '../../../src/config/verify.js';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import type { CreateSessionRequest } from '../../../src/wire/request.js';
import { doc } from '../validate/helpers.js';

/*
 * verifySession, the one place that decides whether a session drifted, held to its status, its
 * findings and its diff; and verifyMcpTools, the same for the tools listed over MCP. The session is
 * the emulator's answer for the same manifest (written independently from the same facts), then
 * edited the way a service drifts.
 */

const YAML = `
  name: a
  user_id: alice
  toolkits:
    enable: [gmail, slack]
  workbench:
    enable: false
  `;

function served(yaml: string) {
  const d = doc(yaml);
  const manifest = d.data as ManifestData;
  const config = effectiveConfig(requestBody(manifest) as unknown as CreateSessionRequest);
  const session = { session_id: 'trs_x', config: JSON.parse(JSON.stringify(config)) as Record<string, any>, tool_router_tools: metaToolsFor(config) };
  return { d, expected: expectedConfig(manifest), session };
}

describe('verifySession', () => {
  test('the session as declared: in sync, defaults as differences only, no findings, no diff', () => {
    const { d, expected, session } = served(YAML);
    const v = verifySession(d, expected, session);
    expect(v.status).toBe('in-sync');
    expect(v.differences.length).toBeGreaterThan(0);
    expect(v.differences.every((x) => x.kind === 'defaulted')).toBe(true);
    expect([v.diagnostics, v.diff]).toStrictEqual([[], '']);
    expect(verifySession(d, expected, session, { strict: true }).status).toBe('in-sync');
  });

  test('a declared value changed: drifted, the finding at its key, and a diff labelled with the manifest and the session', () => {
    const { d, expected, session } = served(YAML);
    session.config['workbench'].enable = true;
    const v = verifySession(d, expected, session);
    expect(v.status).toBe('drifted');
    expect(v.diagnostics.map((x) => [x.code, x.severity, x.message, x.range?.start])).toStrictEqual([['drift/changed', 'error', 'a: config.workbench.enable is true at the service, declared false', { line: 6, col: 3 }]]);
    expect(v.diff.startsWith('--- a (declared)\n+++ trs_x (effective)\n')).toBe(true);
    expect(v.diff).toContain('-      "enable": false,\n+      "enable": true,\n');
  });

  test('a declared value the service dropped: drifted', () => {
    const { d, expected, session } = served(YAML);
    delete session.config['toolkits'];
    const v = verifySession(d, expected, session);
    expect([v.status, v.diagnostics.map((x) => x.code)]).toStrictEqual(['drifted', ['drift/dropped']]);
    expect(v.diff).not.toBe('');
  });

  test('something added that the manifest does not declare: in sync with a warning and a diff; drifted only with strict', () => {
    const { d, expected, session } = served(YAML);
    session.config['tags'] = { enabled: ['readOnlyHint'] };
    const lax = verifySession(d, expected, session);
    expect([lax.status, lax.diagnostics.map((x) => [x.code, x.severity])]).toStrictEqual(['in-sync', [['drift/added', 'warning']]]);
    expect(lax.diff.startsWith('--- a (declared)\n')).toBe(true);
    const strict = verifySession(d, expected, session, { strict: true });
    expect(strict.status).toBe('drifted');
    expect(strict.diff).toBe(lax.diff);
    expect(verifySession(d, expected, session, { strict: false }).status).toBe('in-sync');
  });

  test('differences are every classified item, the defaulted ones included', () => {
    const { d, expected, session } = served(YAML);
    session.config['workbench'].enable = true;
    const v = verifySession(d, expected, session);
    expect(v.differences.filter((x) => x.kind !== 'defaulted').map((x) => [x.kind, x.path])).toStrictEqual([
      ['changed', '/config/workbench/enable'],
    ]);
    expect(v.differences.filter((x) => x.kind === 'defaulted').length).toBeGreaterThan(0);
  });
});

describe('verifyMcpTools', () => {
  test('the tools expected: nothing to say', () => {
    const { d, expected } = served(YAML);
    expect(verifyMcpTools(d, expected, expected.toolRouterTools)).toStrictEqual({ differences: [], diagnostics: [], drifted: false });
  });

  test('a tool the manifest decides, missing or extra over MCP: drifted, the finding says "over MCP", only tool differences count', () => {
    const { d, expected } = served(YAML);
    const extra = verifyMcpTools(d, expected, [...expected.toolRouterTools, 'COMPOSIO_REMOTE_WORKBENCH']);
    expect(extra.drifted).toBe(true);
    expect(extra.differences.map((x) => [x.kind, x.path, x.member])).toStrictEqual([['changed', '/tool_router_tools', 'COMPOSIO_REMOTE_WORKBENCH']]);
    expect(extra.diagnostics.map((x) => [x.code, x.message, x.range?.start])).toStrictEqual([['drift/changed', 'a: over MCP the session exposes meta tool COMPOSIO_REMOTE_WORKBENCH', { line: 6, col: 3 }]]);
    const on = served('name: a\nuser_id: u\nworkbench:\n  enable: true\n');
    const missing = verifyMcpTools(on.d, on.expected, on.expected.toolRouterTools.filter((t) => t !== 'COMPOSIO_REMOTE_BASH_TOOL'));
    expect(missing.drifted).toBe(true);
    expect(missing.diagnostics.map((x) => [x.code, x.message])).toStrictEqual([['drift/changed', 'a: over MCP the session does not expose meta tool COMPOSIO_REMOTE_BASH_TOOL']]);
  });

  test('a tool that follows a default is an added warning, not drift', () => {
    const { d, expected } = served('name: a\nuser_id: u\nmanage_connections:\n  enable_wait_for_connections: false\n');
    const r = verifyMcpTools(d, expected, expected.toolRouterTools.filter((t) => t !== 'COMPOSIO_SEARCH_TOOLS'));
    expect(r.differences.map((x) => x.kind)).toStrictEqual(['added']);
    expect([r.drifted, r.diagnostics.map((x) => [x.severity, x.message])]).toStrictEqual([false, [['warning', 'a: over MCP the session does not expose meta tool COMPOSIO_SEARCH_TOOLS (not declared; documented default differs)']]]);
  });

  test('only the session prefix of a message changes', () => {
    const { d, expected } = served('name: the session\nuser_id: u\nworkbench: { enable: false }\n');
    const r = verifyMcpTools(d, expected, [...expected.toolRouterTools, 'COMPOSIO_REMOTE_WORKBENCH']);
    expect(r.diagnostics.map((x) => x.message)).toStrictEqual(['the session: over MCP the session exposes meta tool COMPOSIO_REMOTE_WORKBENCH']);
  });
});
