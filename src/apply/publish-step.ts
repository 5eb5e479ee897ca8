import { relative, sep } from 'node:path';
import { publicationOf, type PublicationPlan } from '../plan/publications.js';
import type { LockedState } from '../state/store.js';

/**
 * Publishes the plan's per-user manifests that changed, all in one write (one transaction): an
 * application never creates from half of a deploy. Nothing is sent to the service; a state that
 * cannot be written fails the run before any session changes.
 */
export async function publishStep(publications: readonly PublicationPlan[], state: LockedState, cwd: string, now: Date): Promise<number> {
  const changed = publications.filter((p) => p.action === 'publish');
  if (changed.length > 0) await state.publish(changed.map((p) => publicationOf(p, p.file.startsWith('<') ? null : relative(cwd, p.file).split(sep).join('/'), now)));
  return changed.length;
}
