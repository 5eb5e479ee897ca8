import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { applyPlan, type ApplyOptions, type ApplyResult } from '../../../src/apply/apply.js';
import { createClient, type SessionClient } from '../../../src/client/client.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { buildPlan, type Plan, type PlanOptions } from '../../../src/plan/plan.js';
import { fileBackend, postgresBackend, type StateBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { withWrites } from '../../../src/state/with-writes.js';
import type { LockedState } from '../../../src/state/store.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import { skipBecause } from '../../helpers/skip.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { removeTempDir, tempDir } from '../../helpers/temp-dir.js';
import { docs } from '../validate/helpers.js';

/**
 * The parts apply and refresh run against, all real: the emulator in this process on a loopback
 * port, the HTTP client (no retries, so a fault is seen once), and a state backend under its lock:
 * the file one in a temp dir, or the PostgreSQL one in a schema of its own on the server of this
 * run. Manifests are parsed from inline YAML as files of the temp dir.
 */
export interface World {
  dir: string;
  emulator: RunningEmulator;
  client: SessionClient;
  /** The documents of inline YAML, as the file `m/<file>` of the world's dir. */
  docs(yaml: string, file?: string): ManifestDocument[];
  /** The state under its lock (one holder at a time: unlock before opening again). */
  open(): Promise<LockedState>;
  /** Plans against the state as it is on disk now. */
  plan(documents: readonly ManifestDocument[], options?: PlanOptions): Promise<Plan>;
  /**
   * Plans and applies under the lock, as `apply --refresh=false` does, and checks that what the
   * state holds in memory when the run ends is what a later run reads (the run's own later steps
   * and the caller read the memory; an entry that differs there, such as an empty list or a key
   * set to undefined, is one the state file and the database never show).
   */
  apply(documents: readonly ManifestDocument[], options?: PlanOptions & Partial<ApplyOptions>): Promise<ApplyResult>;
  /** The entries as the backend holds them now (what a later run reads). */
  entries(): Promise<StateEntry[]>;
  admin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any>;
  /** Session ids the emulator holds, sorted. */
  live(): Promise<string[]>;
  /** How many requests reached a route (create, update, delete, get). */
  received(route: string): Promise<number>;
  close(): Promise<void>;
}

export type StateKind = 'file' | 'postgres';

/** The backends the apply suites run on. */
export const STATE_KINDS: readonly StateKind[] = ['file', 'postgres'];

/** Whether a suite on `kind` cannot run: PostgreSQL without a server in this run (its setup said why). */
export function noServerFor(kind: StateKind): boolean {
  return kind === 'postgres' && db === null;
}

/**
 * The suites of `body` once per state backend, each test with a fresh world that `use` receives
 * (closed after it). PostgreSQL's are skipped, saying why, when this run has no server.
 */
export function onEachState(use: (w: World) => void, body: () => void): void {
  for (const kind of STATE_KINDS) {
    describe.skipIf(skipBecause(noServerFor(kind), 'needs a PostgreSQL server (the run printed why there is none)'))(`on the ${kind} state`, () => {
      let current: World | undefined;
      beforeEach(async () => {
        current = await world(kind);
        use(current);
      });
      afterEach(async () => {
        await current?.close();
      });
      body();
    });
  }
}

export const LOCK = { owner: { pid: 1, hostname: 'test' }, isAlive: () => true };

/** A manifest of the tests, and the same with custom tools (what only a replace can change). */
export const A = 'name: a\nuser_id: alice\ntoolkits:\n  enable: [gmail, slack]\nworkbench:\n  enable: false\n';
export const withTool = (description: string): string => `${A}experimental:\n  custom_tools:\n    - slug: LOCAL_X\n      name: X\n      description: ${description}\n      input_schema: { type: object }\n`;
/** The fixed clock of the apply tests. */
export const NOW = new Date('2026-11-25T10:00:00.000Z');
export const now = (): Date => NOW;

/** A locked state that passes every call to `state`, with `record` going through `hook` first. */
export function hooked(state: LockedState, hook: (entry: StateEntry, record: (e: StateEntry) => Promise<void>) => Promise<void>): LockedState {
  return withWrites(state, { record: (entry) => hook(entry, (e) => state.record(e)) });
}

export async function world(kind: StateKind = 'file'): Promise<World> {
  const dir = tempDir('apply-unit');
  const schema = uniqueSchema('apply');
  const backend: StateBackend = kind === 'file' ? fileBackend(join(dir, '.sessionctl', 'state.json')) : postgresBackend(stateUrl(db!, schema), { env: db!.env });
  const emulator = await startEmulator({ port: 0 });
  const client = createClient({ baseUrl: emulator.url, apiKey: 'apply-unit-key-0001', retries: { maxRetries: 0 } });
  const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> => emulatorAdmin(emulator.url, method, path, body);
  return {
    dir,
    emulator,
    client,
    docs: (yaml, file = 'a.yaml') => docs(yaml, join(dir, 'm', file)),
    open: () => backend.openLocked(LOCK),
    plan: async (documents, options) => buildPlan(documents, await backend.load(), options),
    apply: async (documents, options = {}) => {
      const state = await backend.openLocked(LOCK);
      let result: ApplyResult;
      let held: StateEntry[];
      try {
        result = await applyPlan(buildPlan(documents, state, options), { api: client, cwd: dir, ...options, state });
        held = state.list();
      } finally {
        await state.unlock();
      }
      expect(held).toStrictEqual((await backend.load()).list());
      return result;
    },
    entries: async () => (await backend.load()).list(),
    admin,
    live: async () => ((await admin('GET', 'sessions')) as { sessions: Array<{ session_id: string }> }).sessions.map((s) => s.session_id).sort(),
    received: async (route) => ((await admin('GET', 'stats')) as { routes: Record<string, { received: number }> }).routes[route]?.received ?? 0,
    close: async () => {
      await client.close();
      await emulator.close();
      removeTempDir(dir);
      if (kind === 'postgres') await dropSchema(db!, schema);
    },
  };
}
