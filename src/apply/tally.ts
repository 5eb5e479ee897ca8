import type { AppliedItem } from './apply.js';

export interface ApplyTally {
  created: number;
  replaced: number;
  unchanged: number;
  drifted: number;
  failed: number;
}

export function tallyOf(items: readonly AppliedItem[]): ApplyTally {
  const t: ApplyTally = { created: 0, replaced: 0, unchanged: 0, drifted: 0, failed: 0 };
  for (const i of items) {
    if (i.outcome === 'failed' || i.outcome === 'outcome-unknown') t.failed++;
    else t[i.outcome]++;
    if (i.drifted) t.drifted++;
  }
  return t;
}

/** `3 created, 5 unchanged, 1 drifted, 0 failed`; replaced sessions count as created and are named. */
export function formatTally(t: ApplyTally): string {
  const created = t.created + t.replaced;
  const replacing = t.replaced > 0 ? ` (${t.replaced} replacing an older session)` : '';
  return `${created} created${replacing}, ${t.unchanged} unchanged, ${t.drifted} drifted, ${t.failed} failed`;
}

