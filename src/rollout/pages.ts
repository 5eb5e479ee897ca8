import type { FleetSession } from '../state/fleet.js';

/**
 * One page of a manifest's rows in user id order, after the user id the previous page ended with
 * (keyset): under the lock `FleetRollout.sessions`, without it `StateBackend.fleetPage` (diff).
 */
export type PageReader = (after: string | undefined) => Promise<readonly FleetSession[]>;

/**
 * The recorded sessions of a fleet page by page (claims, which hold no session yet, skipped): a
 * run over 100,000 sessions holds one page at a time, never the fleet. A page shorter than `limit`
 * is the last.
 */
export async function* fleetRows(read: PageReader, limit: number): AsyncGenerator<FleetSession> {
  let after: string | undefined;
  for (;;) {
    const rows = await read(after);
    for (const row of rows) if (row.session_id !== '') yield row;
    if (rows.length < limit) return;
    after = rows[rows.length - 1]!.user_id;
  }
}

/**
 * `step` for each row, `concurrency` at a time, while `going()` says so. An error (a refused key, a
 * page that cannot be read) starts no step after it; it is thrown once the steps under way end.
 */
export async function eachRow(rows: AsyncIterator<FleetSession>, concurrency: number, going: () => boolean, step: (row: FleetSession) => Promise<void>): Promise<void> {
  let error: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    try {
      while (going() && error === undefined) {
        const next = await rows.next();
        if (next.done === true) return;
        await step(next.value);
      }
    } catch (err) {
      error ??= { err };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  if (error !== undefined) throw error.err;
}
