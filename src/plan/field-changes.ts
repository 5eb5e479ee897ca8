import { canonicalJson } from '../config/request.js';
import { joinPointer } from '../util/json-pointer.js';
import { isPlainObject } from '../util/plain-object.js';
import type { Range } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { Json } from '../wire/json.js';

/**
 * One field that differs between what a session was given and what the manifest declares now, in
 * the request spelling of the manifest (`toolkits.enable`), so that a reviewer reads the plan
 * against the file. Lists of scalars are sets: their change is the members added and removed.
 */
export interface FieldChange {
  /** The field as a dotted path: `toolkits.enable`, `tools.github.disable`. */
  field: string;
  /** JSON pointer into the manifest's data where the change is shown (the declared key, or the nearest declared ancestor). */
  pointer: string;
  /** `add`: newly declared; `remove`: no longer declared; `change`: another value. */
  op: 'add' | 'remove' | 'change';
  /** The value before (absent for `add`). */
  old?: Json;
  /** The value now (absent for `remove`). */
  new?: Json;
  /** For a list of scalars that changed: the members added and removed. */
  members?: { added: Json[]; removed: Json[] };
  /** `manifest`: the declared config changed; `drift`: the live session differs from the declared config. */
  source: 'manifest' | 'drift';
  /** Where the change shows in the manifest (resolved by the planner through the loader). */
  range?: Range;
}

/**
 * The changes with their places in the manifest: the declared key, or where it would go. A list
 * member and the whole document have no key; `locate` gives the node itself for them.
 */
export function locateChanges(doc: Pick<ManifestDocument, 'locate'>, changes: readonly FieldChange[]): FieldChange[] {
  return changes.map((c) => ({ ...c, range: doc.locate(c.pointer, { key: true }) }));
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function join(path: string, key: string): string {
  const part = PLAIN_KEY.test(key) ? key : JSON.stringify(key);
  return path === '' ? part : `${path}.${part}`;
}

function isScalarList(v: unknown): v is Json[] {
  return Array.isArray(v) && v.every((m) => m === null || typeof m !== 'object');
}

/**
 * The field changes from `before` to `after` (two request bodies), depth first, objects walked
 * key by key, lists of scalars compared as sets, anything else compared whole. `pointerOf` maps a
 * body pointer to the manifest pointer where the field is declared (the body is the manifest
 * minus `name`, with shorthands expanded: see `manifestPointer`).
 */
export function fieldChanges(before: Json | undefined, after: Json | undefined, pointerOf: (bodyPointer: string) => string = (p) => p): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, '', '', out, pointerOf);
  return out;
}

function walk(before: Json | undefined, after: Json | undefined, field: string, pointer: string, out: FieldChange[], pointerOf: (p: string) => string): void {
  if (before === undefined && after === undefined) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      walk(before[key] as Json | undefined, after[key] as Json | undefined, join(field, key), joinPointer(pointer, key), out, pointerOf);
    }
    return;
  }
  if (before === undefined) {
    out.push({ field, pointer: pointerOf(pointer), op: 'add', new: after!, source: 'manifest' });
    return;
  }
  if (after === undefined) {
    out.push({ field, pointer: pointerOf(parentOf(pointer)), op: 'remove', old: before, source: 'manifest' });
    return;
  }
  if (isScalarList(before) && isScalarList(after)) {
    const had = new Set(before.map((m) => canonicalJson(m)));
    const has = new Set(after.map((m) => canonicalJson(m)));
    const added = after.filter((m) => !had.has(canonicalJson(m)));
    const removed = before.filter((m) => !has.has(canonicalJson(m)));
    if (added.length > 0 || removed.length > 0) out.push({ field, pointer: pointerOf(pointer), op: 'change', old: before, new: after, members: { added, removed }, source: 'manifest' });
    return;
  }
  if (canonicalJson(before) !== canonicalJson(after)) out.push({ field, pointer: pointerOf(pointer), op: 'change', old: before, new: after, source: 'manifest' });
}

/** The pointer one level up: `/a/b` -> `/a`; `/a` and the document itself -> the document (`''`). */
function parentOf(pointer: string): string {
  // A pointer is '' or starts with '/': the last '/' is at 0 or later, or absent (-1) for ''.
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));
}

/**
 * `+ notion  - slack` for a set, `false -> true` for a value, the value alone for an added or a
 * removed field: what a plan line shows after the field's name.
 */
export function describeChange(change: Pick<FieldChange, 'op' | 'old' | 'new' | 'members'>): string {
  const show = (v: Json | undefined): string => JSON.stringify(v);
  if (change.members !== undefined) {
    const parts = [...change.members.added.map((m) => `+ ${typeof m === 'string' ? m : show(m)}`), ...change.members.removed.map((m) => `- ${typeof m === 'string' ? m : show(m)}`)];
    return parts.join('  ');
  }
  if (change.op === 'add') return show(change.new);
  if (change.op === 'remove') return `${show(change.old)} (removed)`;
  const [was, now] = [show(change.old), show(change.new)];
  // Two masks alike: a sensitive value changed (its digest did), and neither value may show.
  if (was === now) return `changed ${[...new Set(was.match(/\(sensitive: [^)]*\)/g) ?? ['(a value hidden)'])].join(' ')}`;
  return `${was} -> ${now}`;
}
