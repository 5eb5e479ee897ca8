import { valueAt } from '../pointer.js';
import { joinPointer } from '../../util/json-pointer.js';
import { has } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * Readings of a manifest that several policy kinds share. Policies read data that may have
 * failed the schema, so every reading is defensive: what is not of the expected shape is skipped.
 */

/** Which toolkits a session may use, as `toolkits` declares it. */
export interface ToolkitAccess {
  /** `allow`: only `items`; `deny`: every toolkit but `items`; `all`: `toolkits` is not declared. */
  mode: 'allow' | 'deny' | 'all';
  /** The list's pointer (`/toolkits/enable`, `/toolkits` for the bare list, `/toolkits/disable`). */
  listPointer?: string;
  /** The list's slugs; `pointer` is built on use (`itemPointer`), for the few that get a finding. */
  items: Array<{ slug: string; index: number }>;
}

export function itemPointer(access: ToolkitAccess, item: { index: number }): string {
  return `${access.listPointer!}/${item.index}`;
}

/** Three kinds of policy read the same document's toolkits: read them once per document. */
const accessOf = new WeakMap<object, ToolkitAccess>();

export function toolkitAccess(data: unknown): ToolkitAccess {
  const root = asPlainObject(data);
  if (root === undefined) return { mode: 'all', items: [] };
  let access = accessOf.get(root);
  if (access === undefined) {
    access = readAccess(root);
    accessOf.set(root, access);
  }
  return access;
}

function readAccess(root: Record<string, unknown>): ToolkitAccess {
  const raw = has(root, 'toolkits') ? root['toolkits'] : undefined;
  const listed = (value: unknown): Array<{ slug: string; index: number }> => {
    const out: Array<{ slug: string; index: number }> = [];
    if (Array.isArray(value)) for (let index = 0; index < value.length; index++) if (typeof value[index] === 'string') out.push({ slug: value[index] as string, index });
    return out;
  };
  if (Array.isArray(raw)) return { mode: 'allow', listPointer: '/toolkits', items: listed(raw) };
  const obj = asPlainObject(raw);
  // With both lists set (an error of its own), the allowlist is what the session would get.
  if (obj !== undefined && has(obj, 'enable')) return { mode: 'allow', listPointer: '/toolkits/enable', items: listed(obj['enable']) };
  if (obj !== undefined && has(obj, 'disable')) return { mode: 'deny', listPointer: '/toolkits/disable', items: listed(obj['disable']) };
  return { mode: 'all', items: [] };
}

/** Whether the session may use a toolkit at all. */
export function usable(access: ToolkitAccess, toolkit: string): boolean {
  const listed = access.items.some((i) => i.slug === toolkit);
  return access.mode === 'all' || (access.mode === 'allow' ? listed : !listed);
}

/** A tag filter (global `tags` or `tools.<toolkit>.tags`): the bare list is `enable`. */
export interface TagFilter {
  pointer: string;
  /** Written as a bare list (`tags: [readOnlyHint]`), which is its `enable` list. */
  bare: boolean;
  enable: Array<{ tag: string; pointer: string }>;
  disable: Array<{ tag: string; pointer: string }>;
}

/** The global tag filter (`tags`), or a toolkit's own (`tools.<toolkit>.tags`); undefined when not declared. */
export function tagFilter(data: unknown, toolkit?: string): TagFilter | undefined {
  const root = asPlainObject(data);
  return root === undefined ? undefined : readTagFilter(root, toolkit);
}

function readTagFilter(root: Record<string, unknown>, toolkit: string | undefined): TagFilter | undefined {
  const value = toolkit === undefined ? root['tags'] : asPlainObject(asPlainObject(root['tools'])?.[toolkit])?.['tags'];
  if (value === undefined) return undefined;
  const pointer = toolkit === undefined ? '/tags' : joinPointer('/tools', toolkit, 'tags');
  const entries = (p: string, list: unknown): Array<{ tag: string; pointer: string }> => {
    const out: Array<{ tag: string; pointer: string }> = [];
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) if (typeof list[i] === 'string') out.push({ tag: list[i] as string, pointer: `${p}/${i}` });
    return out;
  };
  if (Array.isArray(value)) return { pointer, bare: true, enable: entries(pointer, value), disable: [] };
  const obj = asPlainObject(value);
  if (obj === undefined) return undefined;
  return { pointer, bare: false, enable: entries(joinPointer(pointer, 'enable'), obj['enable']), disable: entries(joinPointer(pointer, 'disable'), obj['disable']) };
}

/** The toolkits that have a `tools.<toolkit>` entry, in order. */
export function toolEntries(data: unknown): string[] {
  return Object.keys(asPlainObject(asPlainObject(data)?.['tools']) ?? {});
}

const dotted = new Map<string, string>();

/** `workbench.enable` -> `/workbench/enable` (once per path: policies repeat theirs on every document). */
export function dottedPointer(path: string): string {
  let pointer = dotted.get(path);
  if (pointer === undefined) {
    pointer = joinPointer('', ...path.split('.'));
    if (dotted.size < 10_000) dotted.set(path, pointer);
  }
  return pointer;
}

/**
 * Where a finding about a key that may be missing sits: the key itself when it exists, else the
 * deepest ancestor that does (its key: "where the key would go"), else the document itself.
 */
export function placeOf(data: unknown, pointer: string): { pointer: string; key: boolean; point: boolean } {
  const segments = pointer.split('/').slice(1);
  for (let n = segments.length; n > 0; n--) {
    const p = `/${segments.slice(0, n).join('/')}`;
    // A declared key holds a value, `null` for an empty one; only a missing key is undefined.
    if (valueAt(data, p) !== undefined) return { pointer: p, key: true, point: false };
  }
  return { pointer: '', key: false, point: true };
}

/** A dotted path's key in the document: whether it is declared (its value may be null), and its value. */
export function lookupPath(data: unknown, path: string): { declared: boolean; value?: unknown } {
  let node: unknown = data;
  for (const segment of path.split('.')) {
    const obj = asPlainObject(node);
    if (obj === undefined || !has(obj, segment)) return { declared: false };
    node = obj[segment];
  }
  return { declared: true, value: node };
}

/** Every existing pointer a dotted path with `*` segments names (`tools.*.tags` -> each toolkit's). */
export function expandPointer(data: unknown, path: string): string[] {
  let found: Array<{ pointer: string; value: unknown }> = [{ pointer: '', value: data }];
  for (const segment of path.split('.')) {
    const next: Array<{ pointer: string; value: unknown }> = [];
    for (const { pointer, value } of found) {
      if (segment === '*') {
        if (Array.isArray(value)) value.forEach((v, i) => next.push({ pointer: joinPointer(pointer, i), value: v }));
        else for (const [k, v] of Object.entries(asPlainObject(value) ?? {})) next.push({ pointer: joinPointer(pointer, k), value: v });
        continue;
      }
      const obj = asPlainObject(value);
      if (obj !== undefined && has(obj, segment)) next.push({ pointer: joinPointer(pointer, segment), value: obj[segment] });
      else if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(segment) && Number(segment) < value.length) {
        next.push({ pointer: joinPointer(pointer, segment), value: value[Number(segment)] });
      }
    }
    found = next;
  }
  return found.map((f) => f.pointer);
}
