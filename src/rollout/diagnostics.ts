import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { RolloutFailure, RolloutResult } from './types.js';

const count = (n: number, what: string): string => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/** How a failed session is named: its user and session, and why. */
export function failureLine(f: RolloutFailure): string {
  return `user ${JSON.stringify(f.user_id)} (${f.session_id}): ${f.message}`;
}

/** The findings of a rollout, at the manifest's name: what failed, what stopped it, what it could not carry. */
export function rolloutDiagnostics(result: RolloutResult, doc: ManifestDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  const named = (failures: readonly RolloutFailure[], total: number): string => {
    const lines = failures.slice(0, 5).map(failureLine);
    return `${lines.join('; ')}${total > lines.length ? `; and ${total - lines.length} more` : ''}`;
  };
  if (result.canary !== undefined && !result.canary.clean && result.canary.bad.length > 0) {
    out.push(atDocument(doc, 'rollout/canary-failed', 'error', `the canary of "${result.name}" version ${result.version} failed on ${count(result.canary.bad.length, 'session')} of ${result.canary.size}: ${named(result.canary.bad, result.canary.bad.length)}. The rollout stopped; ${count(result.untouched, 'session')} left untouched`));
  }
  const others = result.failures.filter((f) => !result.canary?.bad.some((b) => b.user_id === f.user_id));
  const otherCount = result.failed - (result.canary?.bad.length ?? 0);
  if (otherCount > 0) {
    out.push(atDocument(doc, 'rollout/failed', 'error', `${count(otherCount, 'session')} of "${result.name}" not rolled out to version ${result.version}: ${named(others, otherCount)}. They stay on their version; the next apply retries them`));
  }
  if (result.stopped === 'state') {
    // Exit 5, as any run that lost its state: what was patched and not recorded is found done by the next run.
    out.push(atDocument(doc, 'state/write-failed', 'error', `the rollout of "${result.name}" stopped: the state could not be written; ${count(result.untouched, 'session')} left on an older version. The next apply reads the sessions patched but not recorded and records them`));
  } else if (result.stopped !== undefined && result.stopped !== 'canary') {
    const why = result.stopped === 'max-failures' ? `${result.failed} sessions failed, more than the failure budget of ${result.maxFailures} (--max-failures; by default 1% of the sessions, at least 10)` : 'the run was interrupted';
    out.push(atDocument(doc, 'rollout/stopped', 'error', `the rollout of "${result.name}" stopped: ${why}; ${count(result.untouched, 'session')} left untouched on an older version. The next apply resumes where it stopped`));
  }
  if (result.notPatchable > 0) {
    out.push(atDocument(doc, 'rollout/needs-replace', 'error', `${count(result.notPatchable, 'session')} of "${result.name}" cannot be rolled out in place: the change is one PATCH cannot carry (see the plan). They keep their config; new users get version ${result.version}`));
  }
  if (result.createsUnderWay > 0) {
    out.push(atDocument(doc, 'rollout/stopped', 'error', `${count(result.createsUnderWay, 'create')} of "${result.name}" that read the older version were still under way when the rollout stopped waiting: the next apply rolls out what they record`));
  }
  return out;
}
