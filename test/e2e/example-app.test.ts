/**
 * examples/ensure-app runs as the README tells an application team to run it: the pipeline
 * publishes the per-user manifest with `sessionctl apply`, the application (`node server.mjs`, the
 * built package by its own name) answers each user's MCP URL through ensure. Against an emulator
 * process, on a state file and on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { removeAllTempDirs, tempDir } from '../helpers/temp-dir.js';
import { emulatorProcess, sessionctl } from './state-processes.js';

const app = fileURLToPath(new URL('../../examples/ensure-app/', import.meta.url));
const KEY = 'example-app-key';

afterAll(() => removeAllTempDirs());

const states = [
  { name: 'a state file', make: () => ({ url: `${tempDir('example-app')}/state.json`, cleanup: async () => undefined }), skip: false },
  {
    name: 'PostgreSQL',
    make: () => {
      const schema = uniqueSchema('app');
      return { url: stateUrl(db!, schema), cleanup: () => dropSchema(db!, schema) };
    },
    skip: db === null,
  },
];

/** `node server.mjs`: its URL once it listens. */
async function startApp(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['server.mjs'], { cwd: app, env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`server.mjs exited with ${code}: ${err}`)));
  });
  return { url, child };
}

describe.each(states)('examples/ensure-app on $name', ({ make, skip }) => {
  let emulator: { url: string; stop(): Promise<void> };
  let state: { url: string; cleanup(): Promise<void> };
  let running: ChildProcess | undefined;
  const env = () => ({ ...(db?.env ?? {}), SESSIONCTL_STATE: state.url, COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url});

  beforeEach(async (ctx) => {
    if (skip) return ctx.skip();
    emulator = await emulatorProcess();
    state = make();
  });
  afterEach(async () => {
    if (skip) return;
    running?.kill('SIGTERM');
    running = undefined;
    await emulator.stop();
    await state.cleanup();
  });

  test('the pipeline publishes, then each user gets one session however many requests ask at once', { timeout: 60_000 }, async () => {
    const published = await sessionctl(['apply', 'manifests/'], { cwd: app, env: env() }).done;
    expect([published.code, published.stdout.split('\n')[0]]).toStrictEqual([0, 'Published: 1 published, 0 unchanged']);
    const { url, child } = await startApp(env());
    running = child;

    const ask = async (user: string) => {
      const res = await fetch(`${url}/users/${encodeURIComponent(user)}/mcp`);
      return { status: res.status, body: (await res.json()) as { user_id: string; mcp_url: string; session_id: string; created: boolean } };
    };
    const answers = await Promise.all(['alice', 'bob@example.com', 'carol'].flatMap((u) => Array.from({ length: 10 }, () => ask(u))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const byUser = new Map<string, Set<string>>();
    for (const a of answers) byUser.set(a.body.user_id, (byUser.get(a.body.user_id) ?? new Set()).add(a.body.session_id));
    expect([...byUser].map(([u, s]) => [u, s.size]).sort()).toStrictEqual([['alice', 1], ['bob@example.com', 1], ['carol', 1]]);
    expect(answers.filter((a) => a.body.created)).toHaveLength(3);

    const counts = await emulatorAdmin(emulator.url, 'GET', '/counts');
    expect([counts.sessions, counts.users, counts.users_with_several]).toStrictEqual([3, 3, 0]);
    const alice = answers.find((a) => a.body.user_id === 'alice')!.body;
    const live = await emulatorAdmin(emulator.url, 'GET', `/sessions/${alice.session_id}`);
    expect([live.config.user_id, live.config.manage_connections.callback_url, alice.mcp_url.endsWith(`/${alice.session_id}/mcp`)]).toStrictEqual([
      'alice',
      'https://support.example.com/connected',
      true,
    ]);
    // A recorded user is answered from the state: no request reaches the service.
    const before = (await emulatorAdmin(emulator.url, 'GET', '/stats')).total.received;
    expect((await ask('alice')).body.created).toBe(false);
    expect((await emulatorAdmin(emulator.url, 'GET', '/stats')).total.received).toBe(before);

    expect((await ask('')).status).toBe(404);
    expect((await fetch(`${url}/users/alice/mcp`, { method: 'POST' })).status).toBe(405);
  });
});
