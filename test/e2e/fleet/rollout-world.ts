import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import { db, sql, stateUrl } from '../../helpers/postgres.js';
import { sessionctl, type Finished } from '../state-processes.js';
import { ensureProcess, type Ensured } from './fleet-helpers.js';

/** What the rollout tests share: a folder with the manifest, the emulator, the state's schema. */
export interface RolloutWorld {
  dir: string;
  emulator: { url: string; stop(): Promise<void> };
  schema: string;
  key: string;
}

/**
 * A version of the per-user manifest `agent`: version N disables the first N tools of `TOOLS`, so
 * that the config a session holds says which version it is on.
 */
export const TOOLS = ['GITHUB_ADD_ASSIGNEES_TO_AN_ISSUE', 'GITHUB_ADD_A_REPOSITORY_COLLABORATOR', 'GITHUB_ADD_LABELS_TO_AN_ISSUE', 'GITHUB_ADD_APP_ACCESS_RESTRICTIONS', 'GITHUB_ADD_ORG_RUNNER_LABELS', 'GITHUB_ACCEPT_A_REPOSITORY_INVITATION', 'GITHUB_ADD_AN_EMAIL_ADDRESS_FOR_THE_AUTHENTICATED_USER'];

export function manifestOf(name: string, version: number): string {
  return `name: ${name}\nuser_id: <end-user>\ntoolkits: [gmail, github]\ntools:\n  github: { disable: [${TOOLS.slice(0, version).join(', ')}] }\n`;
}

/** The stored `tools.github` of a session on `version`, as the emulator counts it (`by=/tools/github`). */
export function githubOf(version: number): string {
  return JSON.stringify({ disabled: TOOLS.slice(0, version) });
}

export const envOf = (w: RolloutWorld): Record<string, string> => ({ ...(db!.env as Record<string, string>), COMPOSIO_API_KEY: w.key, COMPOSIO_BASE_URL: w.emulator.url });

/** `sessionctl apply` of `name` at `version` in a child process. */
export function applyVersion(w: RolloutWorld, name: string, version: number, extra: readonly string[] = []): ReturnType<typeof sessionctl> {
  writeFileSync(join(w.dir, `${name}.yaml`), manifestOf(name, version));
  return sessionctl(['apply', `${name}.yaml`, '--state', stateUrl(db!, w.schema), ...extra], { cwd: w.dir, env: envOf(w) });
}

export async function applied(w: RolloutWorld, name: string, version: number, extra: readonly string[] = []): Promise<Finished> {
  const r = await applyVersion(w, name, version, extra).done;
  return r;
}

/** Creates sessions for `users` through ensure, from `processes` application processes at once. */
export async function ensureUsers(w: RolloutWorld, name: string, users: readonly string[], processes: number): Promise<Ensured[]> {
  const runs = Array.from({ length: processes }, (_, p) =>
    ensureProcess({ state: stateUrl(db!, w.schema), baseUrl: w.emulator.url, name, users: users.filter((_, i) => i % processes === p), inFlight: 32, env: { ...db!.env, FLEET_KEY: w.key } }),
  );
  const done = await Promise.all(runs.map((r) => r.done));
  for (const d of done) expect(d.code, d.stderr).toBe(0);
  return done.flatMap((d) => d.results);
}

export const usersOf = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(5, '0')}`);

/** Rows of `name` per version in the state. */
export async function rowsByVersion(w: RolloutWorld, name: string): Promise<Record<string, number>> {
  const rows = await sql<{ version: number | null; n: number }>(db!, `SELECT version, count(*)::int AS n FROM "${w.schema}".fleet WHERE name = $1 AND session_id <> '' GROUP BY version ORDER BY version`, [name]);
  return Object.fromEntries(rows.map((r) => [String(r.version), r.n]));
}

interface Counts {
  sessions: number;
  users: number;
  users_with_several: number;
  by_config_version: Record<string, number>;
  by_value: Record<string, number>;
}

/** The emulator's sessions of `prefix`'s users... counted: every session of the test's key. */
export async function counts(w: RolloutWorld): Promise<Counts> {
  return (await emulatorAdmin(w.emulator.url, 'GET', '/counts?by=/tools/github')) as Counts;
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
