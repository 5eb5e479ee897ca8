import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { openSessions } from '../../../src/library/open-sessions.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-dir.js';

export const KEY = 'key-of-the-fleet';

/** Where a test's state is: a file, or a schema of its own on the test server. */
export interface FleetBackend {
  name: string;
  make(dir: string): { url: string; env: Record<string, string | undefined>; cleanup(): Promise<void> };
}

/** The file state, and PostgreSQL when this run has a server. */
export const fleetBackends: FleetBackend[] = [
  { name: 'file', make: (dir) => ({ url: join(dir, 'state.json'), env: {}, cleanup: async () => undefined }) },
  ...(db === null
    ? []
    : [
        {
          name: 'postgres',
          make: () => {
            const schema = uniqueSchema('fleetops');
            return { url: stateUrl(db!, schema), env: { ...db!.env }, cleanup: () => dropSchema(db!, schema) };
          },
        },
      ]),
];

/** `count` user ids `user-000`, `user-001`, ... (sorted as numbered). */
export const usersOf = (count: number, prefix = 'user-'): string[] => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);

export interface FleetWorld {
  emulator: RunningEmulator;
  dir: string;
  state: ReturnType<FleetBackend['make']>;
  /** `sessionctl ARGS --base-url EMULATOR --state STATE` in-process, in the test's folder. */
  cli(args: readonly string[], options?: { env?: Record<string, string | undefined>; stdin?: string; stdinTty?: boolean; tty?: boolean }): Promise<CliResult>;
  /** Writes `file` and applies it (exit 0 expected). */
  apply(file: string, manifest: string): Promise<CliResult>;
  /** Each user's session through the application's ensure: user id to session id. */
  ensure(name: string, users: readonly string[]): Promise<Map<string, string>>;
  /** The emulator's request counts of a route: received, and handled (the handler ran: its effect happened). */
  stat(route: string): Promise<{ received: number; handled: number }>;
}

/** An emulator, a folder and a state of `backend` for each test of the file. */
export function fleetWorld(backend: FleetBackend): FleetWorld {
  const world = {} as FleetWorld;
  beforeEach(async () => {
    world.emulator = await startEmulator({ port: 0 });
    world.dir = tempDir('fleet-ops');
    world.state = backend.make(world.dir);
  });
  afterEach(async () => {
    await world.emulator.close();
    await world.state.cleanup();
  });
  world.cli = (args, options = {}) =>
    runCli([...args, '--base-url', world.emulator.url, '--state', world.state.url], {
      cwd: world.dir,
      env: { ...world.state.env, COMPOSIO_API_KEY: KEY, ...options.env },
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      ...(options.stdinTty !== undefined ? { stdinTty: options.stdinTty } : {}),
      ...(options.tty !== undefined ? { tty: options.tty } : {}),
    });
  world.apply = async (file, manifest) => {
    writeFileSync(join(world.dir, file), manifest);
    const r = await world.cli(['apply', file]);
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    return r;
  };
  world.ensure = async (name, users) => {
    const sessions = await openSessions(world.state.url, { apiKey: KEY, baseUrl: world.emulator.url, cwd: world.dir, env: world.state.env });
    try {
      const made = await Promise.all(users.map(async (u) => [u, (await sessions.ensure(name, u)).sessionId] as const));
      return new Map(made);
    } finally {
      await sessions.close();
    }
  };
  world.stat = async (route) => ((await emulatorAdmin(world.emulator.url, 'GET', '/stats')).routes[route] as { received: number; handled: number } | undefined) ?? { received: 0, handled: 0 };
  return world;
}
