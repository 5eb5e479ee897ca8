export interface ApplyTally {
  created: number;
  replaced: number;
  unchanged: number;
  drifted: number;
  failed: number;
}

/** `3 created, 5 unchanged, 1 drifted, 0 failed`; replaced sessions count as created and are named. */
export function formatTally(t: ApplyTally): string {
  const created = t.created + t.replaced;
  const replacing = t.replaced > 0 ? ` (${t.replaced} replacing an older session)` : '';
  return `${created} created${replacing}, ${t.unchanged} unchanged, ${t.drifted} drifted, ${t.failed} failed`;
}

