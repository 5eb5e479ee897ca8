import type { RolloutProgress } from '../rollout/types.js';
import { safeInline } from '../report/text.js';
import type { CommandEnv } from './command.js';

/** How often the CI log gets a progress line, and how often a terminal's bar is redrawn. */
const LOG_EVERY_MS = 5_000;
const DRAW_EVERY_MS = 100;
const BAR = 24;

const n = (count: number): string => count.toLocaleString('en-US');

function left(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return 'time left unknown';
  if (seconds < 90) return `${Math.ceil(seconds)} s left`;
  return `${Math.ceil(seconds / 60)} min left`;
}

/** `[#####-----]  48%  4,812/10,000 support-agent  1,203/s, 4 s left`; in a log `rollout support-agent: 4,812/10,000 sessions  1,203/s, 4 s left` (`diff`, `delete`, `repair` for those). */
export function progressLine(p: RolloutProgress, bar: boolean): string {
  const share = p.total === 0 ? 1 : Math.min(1, p.done / p.total);
  const filled = Math.round(share * BAR);
  const head = bar ? `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ` : `${p.verb ?? 'rollout'} ${safeInline(p.name)}: `;
  const phase = p.phase === 'rollout' ? '' : ` (${p.phase === 'canary' ? 'canary' : p.verb === 'delete' ? 'creates that raced the destroy' : 'creates that raced the publish'})`;
  const failed = p.failed > 0 ? `, ${n(p.failed)} failed` : '';
  return `${head}${n(p.done)}/${n(p.total)}${bar ? ` ${safeInline(p.name)}` : ' sessions'}${phase}${failed}  ${n(Math.round(p.rate))}/s, ${left(p.eta)}`;
}

/**
 * Progress over a fleet (a rollout, diff, destroy, repair) on stderr: on a terminal a bar redrawn in place (at most ten times a second),
 * in a CI log a plain line every 5 s and one when a manifest is done, so that a 100,000-session
 * rollout writes a few hundred lines, not 100,000.
 */
export function rolloutProgress(env: CommandEnv, now: () => number = Date.now): (p: RolloutProgress) => void {
  const { stderr } = env.io;
  const tty = stderr.isTTY === true;
  // The first line once there is a rate to tell, not at the first session.
  let last = now();
  return (p) => {
    const finished = p.done >= p.total;
    const t = now();
    if (!finished && t - last < (tty ? DRAW_EVERY_MS : LOG_EVERY_MS)) return;
    last = t;
    const line = env.masker.text(progressLine(p, tty));
    stderr.write(tty ? `\r\u001b[K${line}${finished ? '\n' : ''}` : `${line}\n`);
  };
}
