import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// Only the package's public entry, as an application imports it (package.json "exports" -> dist).
import { checkSession, createClient, expectedConfig, InputError, openState, parseManifest, requestBody, SessionctlError, startEmulator, StateError, ApiError, type RunningEmulator } from 'sessionctl';

const MANIFEST = `name: support
user_id: \${USER_ID}
toolkits: [gmail, slack]
workbench:
  enable: false
`;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator.close());

describe('the public programmatic API', () => {
  test('parse a committed manifest for one end user, create the session, and check it', async () => {
    const { documents, diagnostics } = parseManifest(MANIFEST, { env: { USER_ID: 'alice' }, file: 'support.yaml' });
    expect(diagnostics).toEqual([]);
    const doc = documents[0]!;
    const body = requestBody(doc);
    expect(body).toEqual({ user_id: 'alice', toolkits: { enable: ['gmail', 'slack'] }, workbench: { enable: false } });
    expect(expectedConfig(doc).toolRouterTools).not.toContain('COMPOSIO_REMOTE_WORKBENCH');

    const client = createClient({ baseUrl: emulator.url, apiKey: 'app-key-123456' });
    try {
      const session = await client.createSession(body);
      expect(session.session_id).toMatch(/^trs_/);
      expect(checkSession(doc, session)).toMatchObject({ status: 'in-sync', diagnostics: [], diff: '' });

      const other = await client.createSession({ ...body, workbench: { enable: true } });
      const check = checkSession(doc, other);
      expect(check.status).toBe('drifted');
      expect(check.diagnostics.map((d) => [d.code, d.range?.start.line, d.pointer])).toContainEqual(['drift/changed', 5, '/workbench/enable']);
      expect(check.diff).toContain('+      "enable": true,');

      await expect(client.getSession('trs_missing000')).rejects.toBeInstanceOf(ApiError);
    } finally {
      await client.close();
    }
  });

  test('findings come back as located diagnostics, not exceptions', () => {
    const { diagnostics } = parseManifest('name: x\ntoolkits: { enable: [a], disable: [b] }\n', { env: {} });
    expect(diagnostics.map((d) => [d.code, d.range?.start.line])).toContainEqual(['schema/required', 1]);
  });

  test('what the library throws is an exported class: instanceof works', async () => {
    const missing = await openState('/nonexistent/sessionctl-public-api/state.json').then(
      () => undefined,
      (e: unknown) => e,
    );
    // A state that is not there is an input error (a mistyped location); one that cannot be read or reached is a StateError.
    expect(missing).toBeInstanceOf(InputError);
    expect(missing).toBeInstanceOf(SessionctlError);
    expect(missing).not.toBeInstanceOf(StateError);
    expect(new StateError('x', 'f')).toBeInstanceOf(InputError);
  });
});
