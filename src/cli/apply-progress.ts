import type { ApplyProgress } from '../apply/apply.js';
import type { Plan } from '../plan/plan.js';
import type { CommandEnv } from './command.js';
import { interruptOn } from './interrupt.js';
import { safeInline } from '../report/text.js';

/** How often a long run says it is still working. */
const TICK_MS = 10_000;
/** How long an interrupted run waits for the requests in flight, unless SESSIONCTL_INTERRUPT_GRACE_MS says otherwise. */
const GRACE_MS = 10_000;

/** The wait of an interrupted run: SESSIONCTL_INTERRUPT_GRACE_MS (0 to 600000 ms), else 10 s. */
export function graceMs(env: CommandEnv): number {
  const raw = env.io.env['SESSIONCTL_INTERRUPT_GRACE_MS'];
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) <= 600_000 ? Number(raw) : GRACE_MS;
}

export interface RunWatch {
  onProgress: (p: ApplyProgress) => void;
  signal: AbortSignal;
  onInterrupt: (inFlight: number, graceMs: number) => void;
  /** The exit code the signal asks for (130 for SIGINT, 143 for SIGTERM), if one came. */
  signalExit(): number | undefined;
  stop(): void;
}

/**
 * Progress and interruption of a long run, on stderr: on a terminal one line rewritten in place,
 * elsewhere (CI logs) one line per manifest as it finishes, and every 10 s a line with the counts
 * so that a quiet step is not taken for a hung one. SIGINT or SIGTERM stop the run from starting
 * requests, and a run still busy past the grace time is ended; a second signal ends it at once
 * (the state already holds every create's intent, so even that loses nothing).
 */
export function watchRun(env: CommandEnv, verb: string, now: () => number = Date.now): RunWatch {
  const { stderr } = env.io;
  const tty = stderr.isTTY === true;
  const started = now();
  let done = 0;
  let total = 0;
  const interrupt = interruptOn(env, graceMs(env));
  const ticker = setInterval(() => {
    if (total > 0) stderr.write(`${tty ? '\r\u001b[K' : ''}${verb}: still working, ${done} of ${total} done after ${Math.round((now() - started) / 1000)} s\n`);
  }, TICK_MS);
  ticker.unref();
  return {
    signal: interrupt.signal,
    onProgress: ({ done: d, total: t, item }) => {
      done = d;
      total = t;
      const outcome = item.outcome === 'outcome-unknown' ? 'unknown' : item.outcome;
      // Names, user ids and session ids come from manifests and the service: masked, and escaped for the terminal.
      const line = safeInline(env.masker.text(`[${d}/${t}] ${outcome} ${item.name}${item.user_id !== '' ? ` (user ${item.user_id})` : ''}${item.session_id !== undefined ? ` ${item.session_id}` : ''}`));
      stderr.write(tty ? `\r\u001b[K${line}${d === t ? '\n' : ''}` : `${line}\n`);
    },
    onInterrupt: (inFlight, graceMs) => {
      stderr.write(
        `${tty ? '\n' : ''}${verb}: ${interrupt.received() ?? 'signal'} received: no new requests; waiting up to ${Math.round(graceMs / 1000)} s for ${inFlight} in flight (the state already records every create's intent)\n`,
      );
    },
    signalExit: () => interrupt.exitCode(),
    stop: () => {
      clearInterval(ticker);
      interrupt.stop();
    },
  };
}

/** The sessions about to go, one line each, on stderr. */
export function announceDeletions(plan: Pick<Plan, 'deletions'>, env: CommandEnv, verb: string): void {
  env.io.stderr.write(`${verb} will delete ${plan.deletions.length} session${plan.deletions.length === 1 ? '' : 's'}:\n`);
  // From the state: a sensitive user id is shown by its variable, an id from the service escaped.
  for (const d of plan.deletions) env.io.stderr.write(`  - ${safeInline(env.masker.text(`${d.name}  user ${d.user_id}  ${d.session_id}`))}\n`);
}
