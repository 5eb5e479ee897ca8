export interface ApplyTally {
  created: number;
  updated: number;
  replaced: number;
  deleted: number;
  unchanged: number;
  drifted: number;
  failed: number;
  /** Nothing was sent for them (an interrupted run, a create of unknown outcome in the way); present only when there are any. */
  skipped?: number;
}

/**
 * `3 created, 1 updated, 5 unchanged, 1 drifted, 0 failed`: created, unchanged, drifted and failed
 * always; updated, replaced and deleted when there were any.
 */
export function formatTally(t: ApplyTally): string {
  const parts = [`${t.created} created`];
  if (t.updated > 0) parts.push(`${t.updated} updated`);
  if (t.replaced > 0) parts.push(`${t.replaced} replaced`);
  if (t.deleted > 0) parts.push(`${t.deleted} deleted`);
  parts.push(`${t.unchanged} unchanged`, `${t.drifted} drifted`, `${t.failed} failed`);
  if ((t.skipped ?? 0) > 0) parts.push(`${t.skipped} skipped`);
  return parts.join(', ');
}
