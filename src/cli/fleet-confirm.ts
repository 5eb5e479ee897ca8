import { UsageError } from '../diagnostics/errors.js';
import { fleetSessions, type FleetDeletion } from '../plan/fleet-deletions.js';
import type { ProjectConfig } from '../project/types.js';
import { safeInline } from '../report/text.js';
import type { CommandEnv } from './command.js';

/** Sessions of per-user manifests deleted without `--yes` unless `confirm_fleet_deletes_over` says otherwise. */
export const FLEET_DELETES_CONFIRMED_UP_TO = 100;

const n = (count: number): string => count.toLocaleString('en-US');

/** The project's threshold, or the default. */
export function fleetThreshold(config: Pick<ProjectConfig, 'confirmFleetDeletesOver'>): number {
  return config.confirmFleetDeletesOver ?? FLEET_DELETES_CONFIRMED_UP_TO;
}

/**
 * States on stderr, before any request, how many sessions of per-user manifests go: a line per
 * manifest (the count and a few users), never one per session.
 */
export function announceFleetDeletions(deletions: readonly FleetDeletion[], env: CommandEnv, verb: string): void {
  const total = fleetSessions(deletions);
  env.io.stderr.write(`${verb} will delete ${n(total)} session${total === 1 ? '' : 's'} of per-user manifests (every end user's), then their publications:\n`);
  for (const d of deletions) {
    const eg = d.samples.length === 0 ? '' : `, e.g. ${d.samples.map((u) => JSON.stringify(u)).join(', ')}`;
    const unknown = d.unknown > 0 ? `; ${n(d.unknown)} creates of unknown outcome stay recorded` : '';
    env.io.stderr.write(`  - ${safeInline(env.masker.text(`${d.name}  ${n(d.sessions)} session${d.sessions === 1 ? '' : 's'}${eg}${unknown}`))}\n`);
  }
}

/** Whether the fleet deletions need `--yes`: more sessions than the threshold. */
export function pastThreshold(deletions: readonly FleetDeletion[] | undefined, threshold: number): boolean {
  return fleetSessions(deletions) > threshold;
}

/** The refusal of a fleet deletion past the threshold, naming what confirms it. */
export function fleetRefusal(verb: string, deletions: readonly FleetDeletion[], threshold: number): UsageError {
  return new UsageError(
    `${verb} would delete ${n(fleetSessions(deletions))} sessions of per-user manifests, more than confirm_fleet_deletes_over (${n(threshold)}) allows without a confirmation: nothing was deleted. Pass --yes to confirm (--auto-approve is not enough past it, in CI too)`,
    `or raise confirm_fleet_deletes_over in sessionctl.yaml (a change reviewed with the file); \`sessionctl ${verb.split(' ')[0]} ... --dry-run\` shows what would go`,
  );
}
