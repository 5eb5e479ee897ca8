import { describeChange } from '../../plan/field-changes.js';
import type { Json } from '../../wire/json.js';
import type { ConfigVersion } from '../../wire/session.js';
import type { Style } from '../ansi.js';
import { paintDiff } from '../sections/style.js';
import { safeInline } from '../text.js';
import { count, type RenderContext } from './context.js';
import { renderTable } from './table.js';

/** One field that differs between two config versions, masked: a changed secret shows as its mask on both sides. */
export interface VersionChange {
  field: string;
  op: 'add' | 'remove' | 'change';
  old?: Json;
  new?: Json;
  members?: { added: Json[]; removed: Json[] };
}

/** `history --diff V1 V2`: what changed between two versions, field by field, and as a unified diff. */
export interface VersionsDiff {
  from: { version: number; created_at: string };
  to: { version: number; created_at: string };
  changes: VersionChange[];
  /** The unified diff of the two masked configs ('' when they read the same). */
  unified: string;
}

/** `history`: one row per config version, newest first, and how many there are. */
export function renderHistory(items: readonly ConfigVersion[], total: number | undefined, more: boolean, ctx: RenderContext): string {
  if (items.length === 0) return 'no config versions\n';
  const table = renderTable(
    [{ header: 'VERSION' }, { header: 'CREATED' }, { header: 'CURRENT' }],
    items.map((v) => [String(v.version), v.created_at, v.is_current ? 'yes' : '']),
    ctx,
  );
  const shown = total !== undefined && total !== items.length ? `${items.length} of ${count(total, 'version')}` : count(items.length, 'version');
  return `${table}\n${shown}${more ? ' (more with --all or --limit N)' : ''}\n`;
}

/**
 * `history --diff V1 V2`: the unified diff, coloured on a terminal, then each sensitive field whose
 * value changed (the diff shows the same mask on both sides), or a line saying they agree.
 */
export function renderVersionsDiff(diff: VersionsDiff, style: Style): string {
  const { from, to } = diff;
  if (diff.changes.length === 0) return `versions ${from.version} and ${to.version} hold the same config\n`;
  const hidden = diff.changes.filter((c) => c.op === 'change' && c.members === undefined && JSON.stringify(c.old) === JSON.stringify(c.new));
  const lines = hidden.map((c) => `  ${style.yellow('~')} ${safeInline(c.field)}: ${safeInline(describeChange(c))}`);
  if (diff.unified === '') return `versions ${from.version} and ${to.version} differ only in sensitive values:\n${lines.join('\n')}\n`;
  return `${paintDiff(diff.unified, style, '')}\n${lines.length > 0 ? `sensitive values that changed:\n${lines.join('\n')}\n` : ''}`;
}
