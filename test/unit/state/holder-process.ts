import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./lock-holder.mjs', import.meta.url));
const dist = fileURLToPath(new URL('../../../dist/state/backend.js', import.meta.url));

/** A lock holder in a child process (lock-holder.mjs), driven line by line. */
export interface Holder {
  child: ChildProcess;
  /** The lock id it holds. */
  id: string;
  /** Sends a command and resolves with its answer line. */
  ask(line: string): Promise<string>;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

/**
 * Starts a holder of the lock of `spec` (with a PostgreSQL lease of `leaseMs`, default the
 * backend's) and waits until it holds it (rejects with what it said otherwise).
 */
export async function startHolder(spec: string, env: Record<string, string>, cwd: string, leaseMs?: number): Promise<Holder> {
  if (!existsSync(dist)) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const child = spawn(process.execPath, [script, spec, ...(leaseMs !== undefined ? [String(leaseMs)] : [])], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done === true) throw new Error('the lock holder exited without answering');
    return r.value as string;
  };
  const first = await next();
  const m = /^locked (\S+)$/.exec(first);
  if (m === null) {
    child.kill('SIGKILL');
    throw new Error(`the lock holder did not take the lock: ${first}`);
  }
  return {
    child,
    id: m[1]!,
    exited,
    ask: async (line) => {
      child.stdin!.write(`${line}\n`);
      return next();
    },
  };
}

/** Kills a holder with SIGKILL (as a crash would) and waits for it to be gone. */
export async function killHolder(h: Holder): Promise<void> {
  if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGKILL');
  await h.exited;
}
