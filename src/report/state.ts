import type { StateEntry } from '../state/entry.js';
import { describeHolder, type ForcedUnlock } from '../state/lock.js';
import type { PushChange, PushResult } from '../state/operations.js';
import { count, type RenderContext } from './operate/context.js';
import { cell, renderFields, renderTable } from './operate/table.js';

/*
 * What the `state` commands print: human text and the JSON documents, all pure. (`state pull`
 * prints the state document itself, which `state push` reads.)
 */

function note(e: StateEntry): string {
  const parts: string[] = [];
  if (e.pending_create !== undefined) parts.push(`${e.pending_create.status === 'in-flight' ? 'create in flight' : 'create outcome unknown'} since ${e.pending_create.since}`);
  if (e.superseded !== undefined) parts.push(`${count(e.superseded.length, 'replaced session')} to delete`);
  return parts.join('; ');
}

/** `state list`: one row per entry, and where the state is. */
export function renderStateList(entries: readonly StateEntry[], location: string, ctx: RenderContext): string {
  if (entries.length === 0) return `No sessions recorded in ${location}.\n`;
  const withNotes = entries.some((e) => note(e) !== '');
  const columns = [{ header: 'NAME' }, { header: 'USER' }, { header: 'SESSION' }, { header: 'VERSION', align: 'right' as const }, { header: 'APPLIED' }, ...(withNotes ? [{ header: 'NOTE', shrink: true }] : [])];
  const rows = entries.map((e) => [e.name, e.user_id, e.session_id === '' ? '-' : e.session_id, e.config_version ?? '-', e.applied_at, ...(withNotes ? [note(e)] : [])]);
  return `${renderTable(columns, rows, ctx)}\n${count(entries.length, 'entry', 'entries')} in ${location}\n`;
}

/** `state list --format json`: the entries without their bodies. */
export function stateListJson(entries: readonly StateEntry[], location: string): unknown {
  return {
    location,
    sessions: entries.map((e) => ({
      name: e.name,
      user_id: e.user_id,
      session_id: e.session_id === '' ? null : e.session_id,
      mcp_url: e.mcp_url === '' ? null : e.mcp_url,
      config_version: e.config_version,
      applied_at: e.applied_at,
      ...(e.pending_create !== undefined ? { pending_create: e.pending_create } : {}),
      ...(e.superseded !== undefined ? { superseded: e.superseded } : {}),
    })),
  };
}

/** `state show`: every field of one entry, the body last. */
export function renderStateEntry(e: StateEntry, ctx: RenderContext): string {
  const fields: Array<[string, unknown]> = [
    ['name', e.name],
    ['user id', e.user_id],
    ['session', e.session_id === '' ? '- (no session recorded)' : e.session_id],
    ['mcp url', e.mcp_url === '' ? '-' : e.mcp_url],
    ['config version', e.config_version ?? '-'],
    ['applied at', e.applied_at],
    ['body hash', e.body_hash],
    ['meta tools', e.tool_router_tools],
  ];
  if (e.pending_create !== undefined) {
    const p = e.pending_create;
    fields.push(['pending create', `${p.status} since ${p.since} (body ${p.body_hash})${p.reason !== undefined ? `: ${p.reason}` : ''}`]);
  }
  if (e.superseded !== undefined) fields.push(['superseded', e.superseded]);
  const body = e.body === null ? '(not recorded)\n' : `${JSON.stringify(e.body, null, 2)}\n`;
  return `${renderFields(fields, ctx)}\n${ctx.style.bold('body')}\n${body}`;
}

const keyOf = (e: StateEntry) => ({ name: e.name, user_id: e.user_id, session_id: e.session_id === '' ? null : e.session_id });

/** `state rm`. */
export function renderRemoved(removed: readonly StateEntry[], location: string): string {
  const rows = removed.map((e) => ['-', e.name, `user ${e.user_id}`, e.session_id === '' ? '(no session)' : e.session_id]);
  return `Removed from ${location}:\n${aligned(rows)}\nThe sessions themselves were not deleted; the next apply of these manifests (for a per-user manifest, the next ensure for that user) creates new ones.\n`;
}

export function removedJson(removed: readonly StateEntry[], location: string): unknown {
  return { location, removed: removed.map(keyOf) };
}

/** `state mv`. */
export function renderMoved(from: string, moved: readonly StateEntry[], location: string): string {
  const rows = moved.map((e) => [`${from} -> ${e.name}`, `user ${e.user_id}`, e.session_id === '' ? '(no session)' : e.session_id]);
  return `Moved in ${location}:\n${aligned(rows)}`;
}

export function movedJson(from: string, moved: readonly StateEntry[], location: string): unknown {
  return { location, moved: moved.map((e) => ({ from, to: e.name, user_id: e.user_id, session_id: e.session_id === '' ? null : e.session_id })) };
}

/** `state push`: each change, aligned, then what was written (or why nothing was). */
/** How a push was asked for; `migratedFrom` is the state file it moved to another backend (as typed). */
export interface PushOptions {
  dryRun: boolean;
  force: boolean;
  migratedFrom?: string;
}

/** After a migration that wrote: the old file is no longer the state, and can go. */
function oldFileLine(result: PushResult, location: string, options: PushOptions): string {
  if (options.migratedFrom === undefined || !result.written) return '';
  return `The state is now in ${location}: ${options.migratedFrom} can go (point SESSIONCTL_STATE or --state at the new state, check it with \`sessionctl state list\`, then delete ${options.migratedFrom}).\n`;
}

export function renderPush(result: PushResult, location: string, options: PushOptions): string {
  const n = (a: PushChange['action']) => result.changes.filter((c) => c.action === a).length;
  const conflicts = n('conflict');
  const refused = conflicts > 0 && !options.force;
  const sign = (c: PushChange) => (c.action === 'add' ? '+ add' : c.action === 'update' ? '~ update' : options.force ? '! overwrite' : '! newer');
  const rows = result.changes
    .filter((c) => c.action !== 'unchanged')
    .map((c) => {
      const other = c.current !== undefined && c.current.session_id !== c.entry.session_id ? c.current.session_id || 'no session' : undefined;
      const was = c.action === 'update' && other !== undefined ? `was ${other}` : '';
      // A refusal names the session the state holds: the file's id alone hides which one would be overwritten.
      const why = c.why !== undefined && other !== undefined ? `the state holds ${other}: ${c.why}` : c.why;
      return [sign(c), c.entry.name, `user ${c.entry.user_id}`, c.entry.session_id === '' ? '(no session)' : c.entry.session_id, why ?? was];
    });
  const table = rows.length === 0 ? '  (no changes)\n' : aligned(rows);
  const counts = [`${n('add')} added`, `${n('update')} updated`, ...(options.force && conflicts > 0 ? [`${conflicts} overwritten (--force)`] : []), `${n('unchanged')} unchanged`].join(', ');
  const kept = `${result.kept.length} kept (only in the state)`;
  let end: string;
  if (refused) {
    end = `Refused: ${count(conflicts, 'entry', 'entries')} of the state ${conflicts === 1 ? 'is' : 'are'} newer than the file's; nothing was written. Pull the state again (state pull), or pass --force to overwrite ${conflicts === 1 ? 'it' : 'them'}.`;
  } else if (options.dryRun) {
    end = `Dry run, nothing was written; it would be: ${counts}; ${kept}.`;
  } else {
    end = `${counts}; ${kept}.`;
  }
  return `Push to ${location}:\n${table}\n${end}\n${oldFileLine(result, location, options)}`;
}

/** Rows as columns separated by two spaces, indented, without a header; cells cleaned as in tables. */
function aligned(rows: ReadonlyArray<readonly string[]>): string {
  const clean = rows.map((r) => r.map(cell));
  const widths = clean[0]!.map((_, i) => Math.max(...clean.map((r) => [...(r[i] ?? '')].length)));
  return clean.map((r) => `  ${r.map((v, i) => v + ' '.repeat((widths[i] ?? 0) - [...v].length)).join('  ').trimEnd()}\n`).join('');
}

export function pushJson(result: PushResult, location: string, options: PushOptions): unknown {
  return {
    location,
    written: result.written,
    ...(options.migratedFrom !== undefined && result.written ? { old_file_can_go: options.migratedFrom } : {}),
    dry_run: options.dryRun,
    force: options.force,
    changes: result.changes.map((c) => ({
      action: c.action,
      ...keyOf(c.entry),
      ...(c.why !== undefined ? { why: c.why } : {}),
      ...(c.action === 'conflict' && c.current !== undefined ? { state_session_id: c.current.session_id === '' ? null : c.current.session_id } : {}),
    })),
    kept: result.kept.map(keyOf),
  };
}

/** `state unlock`. */
export function renderUnlocked(released: ForcedUnlock, location: string): string {
  const ended = released.endedConnection ? '\nIts database connection was still open and was ended; if that run still works, its writes are refused from now on.' : '';
  return `Released the lock of ${describeHolder(released.holder)} on ${location}.${ended}\n`;
}

export function unlockedJson(released: ForcedUnlock, location: string): unknown {
  return { location, unlocked: released.holder, ended_connection: released.endedConnection };
}
