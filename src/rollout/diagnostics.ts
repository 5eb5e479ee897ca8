import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { FleetDeleteResult } from './fleet-delete.js';
import type { FleetDrift } from './fleet-diff.js';
import type { RolloutFailure, RolloutResult } from './types.js';

const n = (value: number): string => value.toLocaleString('en-US');
const count = (value: number, what: string): string => `${n(value)} ${what}${value === 1 ? '' : 's'}`;

/** How a failed session is named: its user and session, and why. */
export function failureLine(f: RolloutFailure): string {
  return `user ${JSON.stringify(f.user_id)} (${f.session_id}): ${f.message}`;
}

/** The findings of a rollout, at the manifest's name: what failed, what stopped it, what it could not carry. */
export function rolloutDiagnostics(result: RolloutResult, doc: ManifestDocument): Diagnostic[] {
  if (result.kind === 'repair') return repairDiagnostics(result, doc);
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

const users = (samples: readonly string[]): string => samples.map((u) => JSON.stringify(u)).join(', ');

/**
 * The findings of `diff` over a fleet, a few however large it is: one per field that differs (at
 * the field's declared key, so that annotations land there), one for the sessions gone, one for
 * those that could not be read; each with the count and a few users.
 */
export function fleetDriftDiagnostics(result: FleetDrift, doc: ManifestDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of result.fields) {
    const pointer = f.pointer;
    const at = pointer === '' ? atDocument(doc, 'drift/fleet', 'error', '') : { code: 'drift/fleet' as const, severity: 'error' as const, message: '', file: doc.file, pointer, range: doc.locate(pointer, { key: true }) };
    out.push({ ...at, message: `${result.name}: ${f.field}: ${count(f.count, 'session')} of ${n(result.sessions)} ${f.count === 1 ? 'differs' : 'differ'} from the manifest, e.g. ${users(f.samples)}`, hint: '`diff --user USER` shows one session\'s whole diff; `apply --repair-fleet` repairs them' });
  }
  if (result.missing.count > 0) {
    const d = atDocument(doc, 'state/session-missing', 'error', `${result.name}: ${count(result.missing.count, 'recorded session')} no longer ${result.missing.count === 1 ? 'exists' : 'exist'} at the service (404), e.g. ${users(result.missing.samples)}`);
    out.push({ ...d, hint: `ensure answers a recorded session without asking the service: remove each row (\`sessionctl state rm ${result.name} --user-id USER\`) so that its user gets a new one` });
  }
  if (result.unreadable.count > 0) {
    out.push(atDocument(doc, 'state/refresh-failed', 'error', `${result.name}: ${count(result.unreadable.count, 'session')} could not be read (${result.unreadable.error ?? 'error'}), e.g. ${users(result.unreadable.samples)}`));
  }
  return out;
}

/**
 * The findings of deleting a per-user manifest's sessions (destroy, prune): what could not be
 * deleted, where it stopped, and what it had to leave. Not located: a pruned manifest's file is gone.
 */
export function fleetDeleteDiagnostics(r: FleetDeleteResult): Diagnostic[] {
  const out: Diagnostic[] = [];
  const still = r.unpublished ? '' : ', and so does its publication';
  if (r.failed > 0) {
    const named = r.failures.slice(0, 5).map((f) => `user ${JSON.stringify(f.user_id)} (${f.session_id}): ${f.message}`);
    out.push({ code: 'apply/delete-failed', severity: 'error', message: `${r.name}: ${count(r.failed, 'session')} could not be deleted: ${named.join('; ')}${r.failed > named.length ? `; and ${r.failed - named.length} more` : ''}. They stay recorded${still}: run it again to finish` });
  }
  if (r.stopped === 'interrupted') {
    out.push({ code: 'apply/interrupted', severity: 'error', message: `${r.name}: interrupted after deleting ${count(r.deleted + r.alreadyGone, 'session')}: the others stay recorded${still}; run it again to finish` });
  }
  if (r.stopped === 'state') {
    out.push({ code: 'state/write-failed', severity: 'error', message: `${r.name}: the state could not be written, so the deletion stopped: the sessions deleted whose rows stay answer the next run's DELETE with 404, and are then removed` });
  }
  if (r.unknown > 0) {
    out.push({ code: 'apply/fleet-left', severity: 'warning', message: `${r.name}: ${count(r.unknown, 'create')} of unknown outcome stay recorded (no session id to delete): a session may exist for each of those users; delete it if there is one, then \`sessionctl state rm ${r.name} --user-id USER\`` });
  }
  if (r.createsUnderWay > 0) {
    out.push({ code: 'apply/fleet-left', severity: 'warning', message: `${r.name}: ${count(r.createsUnderWay, 'create')} that began before its publication was removed ${r.createsUnderWay === 1 ? 'was' : 'were'} still under way: the sessions they record stay; \`sessionctl destroy\` of the manifest deletes them` });
  }
  return out;
}

/** The findings of `apply --repair-fleet` on one per-user manifest. */
function repairDiagnostics(result: RolloutResult, doc: ManifestDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  const named = result.failures.slice(0, 5).map(failureLine);
  if (result.failed > 0) {
    out.push(atDocument(doc, 'rollout/repair-failed', 'error', `${count(result.failed, 'session')} of "${result.name}" not repaired: ${named.join('; ')}${result.failed > named.length ? `; and ${result.failed - named.length} more` : ''}. They keep their drift`));
  }
  if (result.notPatchable > 0) {
    out.push(atDocument(doc, 'rollout/needs-replace', 'error', `${count(result.notPatchable, 'session')} of "${result.name}" drifted only in what PATCH cannot change: they keep their drift until they are replaced`));
  }
  if (result.stopped !== undefined) {
    const why = result.stopped === 'max-failures' ? `more than --max-failures sessions failed (${result.failed})` : result.stopped === 'interrupted' ? 'the run was interrupted' : 'the state could not be written';
    out.push(atDocument(doc, 'rollout/stopped', 'error', `the repair of "${result.name}" stopped: ${why}; ${count(result.untouched, 'session')} not read. The next apply --repair-fleet reads them`));
  }
  return out;
}
