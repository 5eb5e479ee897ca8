import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stateBackend } from '../../src/state/backend.js';
import type { StateEntry } from '../../src/state/entry.js';
import { lockOwner } from '../../src/state/lock.js';
import type { LockedState } from '../../src/state/store.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `sessionctl state list|show|rm|mv|pull|push|unlock`, in-process, in human and JSON output, on
 * the file backend and on PostgreSQL (the real server of this run): each case's stdout, stderr
 * and exit code are compared with one golden file in test/e2e/state-golden/, the same for both
 * backends (the state's location, lock ids, hosts, pids and times normalised), except where a
 * case is marked per backend. The cases run in order on one state per backend.
 */

let dir: string;
const schema = uniqueSchema('cli');

function entry(name: string, user: string, over: Partial<StateEntry> = {}): StateEntry {
  return {
    name,
    user_id: user,
    session_id: `trs_${name.replace(/-/g, '')}${user}`.slice(0, 16),
    mcp_url: `https://backend.composio.dev/tool_router/v3/trs_${name}/mcp`,
    tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_MULTI_EXECUTE_TOOL'],
    config_version: 1,
    body_hash: '0c1b941683d8a0114a6864c121ba54503e36ba15f9a167ea61e88f329a38fe30',
    body: { user_id: user, toolkits: { enable: ['gmail', 'slack'] } },
    applied_at: '2026-03-01T10:00:00.000Z',
    ...over,
  };
}

const doc = {
  version: 2,
  sessions: [
    entry('support-agent', 'support-bot'),
    entry('triage', 'alice', { config_version: 3 }),
    entry('triage', 'bob', { pending_create: { since: '2026-03-01T09:59:00.000Z', body_hash: 'h', status: 'unknown', reason: 'interrupted (SIGTERM)' }, session_id: '', mcp_url: '', config_version: null }),
    entry('triage-eu', 'alice', { superseded: ['trs_oldtriage0001'] }),
  ],
};
// An older copy: triage/alice at config_version 2 of the same session (the state has 3).
const old = { version: 2, sessions: [entry('triage', 'alice', { config_version: 2 }), entry('ci-bot', 'ci')] };
// An older copy that records another session for triage-eu (applied before the state's).
const replaced = { version: 2, sessions: [entry('triage-eu', 'alice', { session_id: 'trs_triageeuold01', applied_at: '2026-02-01T10:00:00.000Z' })] };

beforeAll(async () => {
  dir = tempDir('state-cli');
  await writeFile(join(dir, 'doc.json'), JSON.stringify(doc, null, 2));
  await writeFile(join(dir, 'old.json'), JSON.stringify(old, null, 2));
  await writeFile(join(dir, 'replaced.json'), JSON.stringify(replaced, null, 2));
  await writeFile(join(dir, 'broken.json'), '{"version": 2, "sessions": [{"name": "x"}]}');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  if (db !== null) await dropSchema(db, schema);
});

interface Case {
  name: string;
  argv: string[];
  exit: number;
  stdin?: string;
  /** The output differs by backend (one golden each). */
  perBackend?: boolean;
}

/** `@S` is the state (a path or a URL); `@LOCK` the id of the lock `hold` took. */
const cases: Case[] = [
  { name: 'help', argv: ['state', '--help'], exit: 0 },
  { name: 'push-help', argv: ['state', 'push', '--help'], exit: 0 },
  // Nothing there yet: a state that is not there is an error, not an empty list (a mistyped --state).
  { name: 'list-missing', argv: ['state', 'list', '--state', '@S'], exit: 2, perBackend: true },
  { name: 'push-human', argv: ['state', 'push', 'doc.json', '--state', '@S'], exit: 0, perBackend: true },
  { name: 'list-human', argv: ['state', 'list', '--state', '@S'], exit: 0 },
  { name: 'list-json', argv: ['state', 'list', '--state', '@S', '--format', 'json'], exit: 0 },
  { name: 'list-by-user', argv: ['state', 'list', '--user', 'alice', '--state', '@S'], exit: 0 },
  { name: 'list-by-user-json', argv: ['state', 'list', '--user', 'alice', '--state', '@S', '--format', 'json'], exit: 0 },
  { name: 'list-two-users', argv: ['state', 'list', '--user', 'alice', '--user-id', 'bob', '--state', '@S'], exit: 2 },
  { name: 'show-human', argv: ['state', 'show', 'support-agent', '--state', '@S'], exit: 0 },
  { name: 'show-pending-json', argv: ['state', 'show', 'triage', '--user-id', 'bob', '--state', '@S', '--format', 'json'], exit: 0 },
  { name: 'show-ambiguous', argv: ['state', 'show', 'triage', '--state', '@S'], exit: 2 },
  { name: 'show-unknown', argv: ['state', 'show', 'billing', '--state', '@S'], exit: 2 },
  { name: 'show-unknown-user', argv: ['state', 'show', 'triage', '--user-id', 'carol', '--state', '@S'], exit: 2 },
  { name: 'push-again-unchanged', argv: ['state', 'push', 'doc.json', '--state', '@S'], exit: 0, perBackend: true },
  { name: 'push-again-json', argv: ['state', 'push', 'doc.json', '--state', '@S', '--format', 'json'], exit: 0, perBackend: true },
  { name: 'push-older-refused', argv: ['state', 'push', 'old.json', '--state', '@S'], exit: 1 },
  { name: 'push-older-refused-json', argv: ['state', 'push', 'old.json', '--state', '@S', '--format', 'json'], exit: 1 },
  { name: 'push-other-session-refused', argv: ['state', 'push', 'replaced.json', '--state', '@S'], exit: 1 },
  { name: 'push-dry-run-forced', argv: ['state', 'push', 'old.json', '--state', '@S', '--force', '--dry-run'], exit: 0 },
  { name: 'push-broken', argv: ['state', 'push', 'broken.json', '--state', '@S'], exit: 2 },
  { name: 'push-missing', argv: ['state', 'push', 'nope.json', '--state', '@S'], exit: 2 },
  { name: 'mv-one-user', argv: ['state', 'mv', 'triage', 'triage-eu', '--user-id', 'bob', '--state', '@S'], exit: 0 },
  { name: 'mv-onto-taken', argv: ['state', 'mv', 'triage', 'triage-eu', '--state', '@S'], exit: 2 },
  { name: 'mv-json', argv: ['state', 'mv', 'support-agent', 'support', '--state', '@S', '--format', 'json'], exit: 0 },
  { name: 'rm-human', argv: ['state', 'rm', 'triage-eu', '--state', '@S'], exit: 0 },
  { name: 'rm-unknown', argv: ['state', 'rm', 'triage-eu', '--state', '@S'], exit: 2 },
  { name: 'pull', argv: ['state', 'pull', '--state', '@S'], exit: 0 },
  { name: 'push-stdin-forced', argv: ['state', 'push', '-', '--state', '@S', '--force'], exit: 0, stdin: JSON.stringify(old) },
  { name: 'unlock-not-locked', argv: ['state', 'unlock', '0f0e0d0c-0b0a-4000-8000-000000000000', '--state', '@S'], exit: 2, perBackend: true },
  // A run holds the lock from here on (see `hold`).
  { name: 'rm-locked', argv: ['state', 'rm', 'support', '--state', '@S'], exit: 5, perBackend: true },
  { name: 'rm-locked-waits', argv: ['state', 'rm', 'support', '--state', '@S', '--lock-timeout', '300ms'], exit: 5, perBackend: true },
  { name: 'unlock-wrong-id', argv: ['state', 'unlock', '0f0e0d0c-0b0a-4000-8000-000000000000', '--state', '@S'], exit: 2, perBackend: true },
  { name: 'unlock', argv: ['state', 'unlock', '@LOCK', '--state', '@S'], exit: 0, perBackend: true },
  { name: 'rm-after-unlock-json', argv: ['state', 'rm', 'support', '--state', '@S', '--format', 'json'], exit: 0 },
  { name: 'list-final', argv: ['state', 'list', '--state', '@S'], exit: 0 },
];

const kinds = [
  { name: 'file', skip: false, state: () => join(dir, 'nested', 'state.json'), env: {} as Record<string, string> },
  { name: 'postgres', skip: db === null, state: () => stateUrl(db!, schema, 'golden'), env: db?.env ?? {} },
];

function quote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./<>-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

describe.each(kinds)('state commands on the $name backend (golden)', (kind) => {
  let held: LockedState | undefined;
  let lockId = '';

  /**
   * Before the `rm-locked` case, another run takes the lock and holds it: a run of this (live)
   * process, so that the CLI's real liveness check finds its holder alive.
   */
  async function hold(): Promise<void> {
    const backend = stateBackend(kind.state(), dir, { env: kind.env });
    held = await backend.openLocked({ owner: lockOwner(process.pid), isAlive: () => true });
    lockId = (await backend.lockHolder())!.id;
  }

  afterAll(async () => {
    await held?.unlock().catch(() => undefined);
  });

  function normalise(text: string): string {
    let out = text.split(kind.state()).join('<state>').split(dir).join('<tmp>');
    if (lockId !== '') out = out.split(lockId).join('<lock-id>');
    out = out.split(hostname()).join('<host>').split(`process ${process.pid} `).join('process <pid> ').replace(/ \(role [^)]+\)/g, '');
    return out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z(?= \(lock| and a run waiting)/g, '<time>');
  }

  test.skipIf(skipBecause(kind.skip, 'needs a PostgreSQL server (the run printed why there is none)')).each(cases)('$name', async (c) => {
    if (c.name === 'rm-locked') await hold();
    const argv = c.argv.map((a) => (a === '@S' ? kind.state() : a === '@LOCK' ? lockId : a));
    const r: CliResult = await runCli(argv, { cwd: dir, env: { ...kind.env, COLUMNS: '120' }, ...(c.stdin !== undefined ? { stdin: c.stdin } : {}) });
    expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
    const shown = c.argv.map((a) => (a === '@S' ? '<state>' : a === '@LOCK' ? '<lock-id>' : a)).map(quote).join(' ');
    const text = normalise(`$ sessionctl ${shown}\nexit ${r.exitCode}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
    await expect(text).toMatchFileSnapshot(`state-golden/${c.name}${c.perBackend === true ? `.${kind.name}` : ''}.txt`);
    expect(r.exitCode, `${c.name}: ${r.stderr}`).toBe(c.exit);
    if (c.argv.includes('json') && c.exit !== 2) expect(() => JSON.parse(r.stdout), 'stdout is one JSON document').not.toThrow();
  });

  test.skipIf(skipBecause(kind.skip, 'needs a PostgreSQL server (the run printed why there is none)'))('what the cases left: the older document, forced in, and nothing else', async () => {
    const r = await runCli(['state', 'pull', '--state', kind.state()], { cwd: dir, env: kind.env });
    expect(JSON.parse(r.stdout)).toEqual({ version: 2, sessions: [old.sessions[1], old.sessions[0]] });
  });
});
