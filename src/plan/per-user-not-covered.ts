import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import { isPerUser } from '../manifest/per-user.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { StateView } from '../state/store.js';

/**
 * A warning for each per-user manifest among `documents` with sessions that `command` leaves alone: its end
 * users' sessions are the fleet's, which diff does not read and destroy does not delete yet. Said
 * at the manifest, with the count, rather than a silent "nothing to do".
 */
export function perUserNotCovered(documents: readonly ManifestDocument[], state: Pick<StateView, 'fleet'>, command: 'diff' | 'destroy'): Diagnostic[] {
  // A manifest with no end user's session yet leaves nothing out: no warning for it.
  const sessionsOf = (doc: ManifestDocument) => (state.fleet?.get(doc.name)?.sessions ?? 0) + (state.fleet?.get(doc.name)?.unknown ?? 0);
  return documents
    .filter((d) => isPerUser(d.data) && sessionsOf(d) > 0)
    .map((doc) => {
      const sessions = state.fleet?.get(doc.name)?.sessions ?? 0;
      const d = atDocument(
        doc,
        'state/per-user-not-covered',
        'warning',
        `${doc.name} is per-user: ${command} ${command === 'diff' ? 'does not read' : 'does not delete'} its end users' sessions (${sessions} recorded)`,
      );
      return { ...d, hint: `\`sessionctl state list --name ${doc.name}\` counts and lists them; \`sessionctl state rm ${doc.name} --user-id USER\` forgets one` };
    });
}
