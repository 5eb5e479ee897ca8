import { sortDiagnostics, tally } from '../diagnostics/diagnostic.js';
import type { LockedState } from '../state/store.js';
import type { RunOutcome } from './outcome.js';

/**
 * Runs `work` on a state taken under its lock, then releases the lock. A release that fails once
 * the work is done (the state's folder gone, the disk full) does not lose the work's report,
 * which names what was done and what could not be recorded: it is one more finding,
 * `state/write-failed` (exit code 5). When the work itself failed, its error is what the run says.
 */
export async function underLock<T extends RunOutcome>(state: LockedState, work: () => Promise<T>): Promise<T> {
  let out: T;
  try {
    out = await work();
  } catch (err) {
    await state.unlock().catch(() => undefined);
    throw err;
  }
  try {
    await state.unlock();
  } catch (err) {
    const report = out.report;
    report.diagnostics = sortDiagnostics([...report.diagnostics, { code: 'state/write-failed', severity: 'error', message: err instanceof Error ? err.message : String(err) }]);
    report.summary = { ...report.summary, ...tally(report.diagnostics) };
  }
  return out;
}
