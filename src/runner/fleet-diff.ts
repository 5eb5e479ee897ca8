import type { SessionClient } from '../client/client.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { ManifestDocument } from '../manifest/types.js';
import { checkUserSession, type DriftCheckOptions, type SessionDrift } from '../plan/drift-check.js';
import { planPublication } from '../plan/publications.js';
import { fleetDriftDiagnostics } from '../rollout/diagnostics.js';
import { diffFleet, type FleetDiffOptions, type FleetDrift } from '../rollout/fleet-diff.js';
import type { PageReader } from '../rollout/pages.js';
import { expectedFor } from '../rollout/request.js';
import type { StateBackend } from '../state/backend.js';
import type { StateView } from '../state/store.js';
import type { ApiVersion } from '../wire/json.js';

/** Rows read per page of the state. */
const PAGE = 500;

export interface FleetDiffRunOptions extends Omit<FleetDiffOptions, 'api'> {
  api: Pick<SessionClient, 'getSession'>;
  revealSensitive: boolean;
  /** Only this end user's session, shown whole as a fixed session's (`diff --user`). */
  user?: string | undefined;
  apiVersion: ApiVersion;
}

export interface FleetDiffOutcome {
  fleets: FleetDrift[];
  /** `--user`: the one session per manifest, as a fixed session's diff shows it. */
  items: SessionDrift[];
  diagnostics: Diagnostic[];
}

/**
 * `diff` of per-user manifests: each one's recorded sessions read through the state without its
 * lock (diff writes nothing), page by page, and compared with the manifest; or, with `--user`, one
 * user's session in full.
 */
export async function diffFleets(documents: readonly ManifestDocument[], view: StateView, backend: StateBackend, options: FleetDiffRunOptions): Promise<FleetDiffOutcome> {
  const out: FleetDiffOutcome = { fleets: [], items: [], diagnostics: [] };
  for (const doc of documents) {
    if (options.signal?.aborted === true) break;
    const publication = planPublication(doc, view, options.apiVersion);
    const expected = expectedFor({ doc });
    const filledByApplication = new Set(publication.templates.map((t) => t.pointer));
    const version = publication.current;
    if (options.user !== undefined) {
      const r = await diffUser(doc, options.user, backend, { expected, filledByApplication, version }, options);
      out.items.push(...r.items);
      out.diagnostics.push(...r.diagnostics);
      continue;
    }
    const read: PageReader = (after) => backend.fleetPage({ name: doc.name, limit: PAGE, ...(after !== undefined ? { after: { name: doc.name, userId: after } } : {}) });
    const input = { doc, expected, filledByApplication, version, manifestPublished: publication.action === 'unchanged', read, pageSize: PAGE };
    const result = await diffFleet(input, options, view.fleet?.get(doc.name)?.sessions ?? 0);
    out.fleets.push(result);
    out.diagnostics.push(...fleetDriftDiagnostics(result, doc));
  }
  return out;
}

/** One user's session of a per-user manifest, read and compared as a fixed session's is. */
async function diffUser(
  doc: ManifestDocument,
  user: string,
  backend: StateBackend,
  manifest: { expected: ReturnType<typeof expectedFor>; filledByApplication: ReadonlySet<string>; version: number | undefined },
  options: FleetDiffRunOptions,
): Promise<{ items: SessionDrift[]; diagnostics: Diagnostic[] }> {
  const row = (await backend.fleetPage({ name: doc.name, userId: user, limit: 1 }))[0];
  if (row === undefined || row.session_id === '') {
    const pending = row?.claim !== undefined ? ` (a create of it is recorded as ${row.claim.state}: ${row.claim.state === 'unknown' ? 'its outcome is unknown' : 'under way'})` : '';
    const d = atDocument(doc, 'state/not-applied', 'error', `${doc.name}: no session is recorded for user ${JSON.stringify(user)}${pending}`);
    return { items: [{ name: doc.name, file: doc.file, user_id: user, session_id: null, status: 'not-applied', differences: [], diff: '' }], diagnostics: [{ ...d, hint: `the application's ensure creates it; \`sessionctl state list ${doc.name}\` lists the users that have one` }] };
  }
  const check: DriftCheckOptions = { getSession: (id) => options.api.getSession(id), strict: options.strict, revealSensitive: options.revealSensitive, ...(options.limiter !== undefined ? { limiter: options.limiter } : {}) };
  const r = await checkUserSession(doc, user, row.session_id, manifest.expected(user), manifest.filledByApplication, check);
  const behind = manifest.version !== undefined && (row.version === null || row.version < manifest.version);
  if (r.items[0]?.status !== 'drifted') return r;
  if (!behind) {
    // A fleet's drift, narrowed to one user: the same finding (and exit code) as the whole fleet's.
    const drifted = atDocument(doc, 'drift/fleet', 'error', `${doc.name}: the session of user ${JSON.stringify(user)} differs from the manifest (below); \`sessionctl apply --repair-fleet\` repairs it`);
    return { items: r.items, diagnostics: [drifted, ...r.diagnostics] };
  }
  // Not drift: the published version moved on, and the next apply rolls the session out to it.
  const note = atDocument(doc, 'drift/fleet', 'info', `${doc.name}: the session of user ${JSON.stringify(user)} is on version ${row.version ?? 'unknown'}, behind version ${manifest.version} published: the differences below are the next apply's rollout, not drift`);
  return { items: r.items, diagnostics: [note, ...r.diagnostics.map((d) => (d.code.startsWith('drift/') ? { ...d, severity: 'info' as const } : d))] };
}
