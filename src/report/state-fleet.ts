import type { FleetCount, FleetSession, Publication } from '../state/fleet.js';
import { count, type RenderContext } from './operate/context.js';
import { renderTable } from './operate/table.js';
import { shellWord } from '../util/shell-word.js';

/** What `state list` shows of the per-user manifests: each publication with its counts, and a page of rows. */
export interface FleetListing {
  published: ReadonlyArray<{ publication: Publication; count: FleetCount | undefined }>;
  /** A page of rows, when `--name` or `--user-id` asked for them. */
  page?: { rows: readonly FleetSession[]; name?: string; next?: string };
}

function byVersion(c: FleetCount | undefined): string {
  if (c === undefined || c.byVersion.size === 0) return '-';
  return [...c.byVersion].sort(([a], [b]) => b - a).map(([v, n]) => `v${v}: ${n}`).join(', ');
}

function rowNote(r: FleetSession): string {
  if (r.claim === undefined) return '';
  if (r.claim.state === 'unknown' || (r.claim.state === 'sent' && r.claim.expired)) return `create outcome unknown since ${r.claim.since}`;
  return r.claim.state === 'sent' ? `create in flight since ${r.claim.since}` : `claimed since ${r.claim.since}`;
}

/** The per-user part of `state list`: a table of publications, then the page asked for and how to get the next. */
export function renderFleetListing(listing: FleetListing, ctx: RenderContext): string {
  if (listing.published.length === 0 && listing.page === undefined) return '';
  const out: string[] = [];
  if (listing.published.length > 0) {
    const columns = [{ header: 'PER-USER' }, { header: 'PUBLISHED', align: 'right' as const }, { header: 'SESSIONS', align: 'right' as const }, { header: 'BY VERSION' }, { header: 'UNKNOWN', align: 'right' as const }];
    const rows = listing.published.map(({ publication: p, count: c }) => [p.name, `v${p.version}`, c?.sessions ?? 0, byVersion(c), c?.unknown ?? 0]);
    out.push('', renderTable(columns, rows, ctx).trimEnd());
  }
  const page = listing.page;
  if (page !== undefined) {
    const withNotes = page.rows.some((r) => rowNote(r) !== '');
    const columns = [{ header: 'NAME' }, { header: 'USER' }, { header: 'SESSION' }, { header: 'FROM', align: 'right' as const }, { header: 'CREATED' }, ...(withNotes ? [{ header: 'NOTE', shrink: true }] : [])];
    const rows = page.rows.map((r) => [r.name, r.user_id, r.session_id === '' ? '-' : r.session_id, r.version === null ? '-' : `v${r.version}`, r.created_at ?? '-', ...(withNotes ? [rowNote(r)] : [])]);
    out.push('', page.rows.length === 0 ? 'No end user\'s session matches.' : renderTable(columns, rows, ctx).trimEnd());
    out.push(page.next === undefined ? `${count(page.rows.length, 'end user\'s session', 'end users\' sessions')}` : `${count(page.rows.length, 'end user\'s session', 'end users\' sessions')}; next page: sessionctl state list --name ${shellWord(page.name ?? '')} --after ${shellWord(page.next)}`);
  }
  return `${out.join('\n')}\n`;
}

/** The same as JSON. */
export function fleetListingJson(listing: FleetListing): unknown {
  return {
    published: listing.published.map(({ publication: p, count: c }) => ({
      name: p.name,
      version: p.version,
      published_at: p.published_at,
      sessions: c?.sessions ?? 0,
      by_version: Object.fromEntries([...(c?.byVersion ?? [])].map(([v, n]) => [String(v), n])),
      unknown: c?.unknown ?? 0,
    })),
    ...(listing.page !== undefined
      ? {
          fleet: listing.page.rows.map((r) => ({
            name: r.name,
            user_id: r.user_id,
            session_id: r.session_id === '' ? null : r.session_id,
            mcp_url: r.mcp_url === '' ? null : r.mcp_url,
            config_version: r.config_version,
            version: r.version,
            created_at: r.created_at,
            ...(r.claim !== undefined ? { claim: r.claim } : {}),
          })),
          next_after: listing.page.next ?? null,
        }
      : {}),
  };
}
