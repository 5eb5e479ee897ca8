import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const worker = fileURLToPath(new URL('./ensure-worker.mjs', import.meta.url));

export interface Ensured {
  user: string;
  session?: string;
  version?: number;
  error?: string;
  message?: string;
}

/** An application process calling ensure for `users`, `inFlight` at once. */
export function ensureProcess(args: { state: string; baseUrl: string; name: string; users: readonly string[]; inFlight: number; env: Record<string, string | undefined> }): { child: ChildProcess; done: Promise<{ results: Ensured[]; code: number | null; signal: NodeJS.Signals | null; stderr: string }> } {
  const child = spawn(process.execPath, [worker, args.state, args.baseUrl, args.name, args.users.join(','), String(args.inFlight)], {
    env: { PATH: process.env['PATH'] ?? '', ...args.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ results: Ensured[]; code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ results: out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Ensured), code, signal, stderr })),
  );
  return { child, done };
}

/** Every result of the processes, by user: each process that asked for a user saw one session, the same. */
export function sessionsByUser(all: readonly Ensured[]): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  for (const r of all) {
    if (r.session === undefined) continue;
    const seen = by.get(r.user) ?? new Set<string>();
    seen.add(r.session);
    by.set(r.user, seen);
  }
  for (const [user, seen] of by) expect(seen.size, `user ${user} was given several sessions`).toBe(1);
  return by;
}
