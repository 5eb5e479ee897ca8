import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { ExpectedConfig, Origin } from './expected.js';
import { canonicalJson } from './request.js';
import { isPlainObject } from '../util/plain-object.js';
import { joinPointer, parentPointer } from '../util/json-pointer.js';
import type { Json } from '../wire/json.js';

/**
 * One difference between the expected and the effective config (DESIGN §3):
 * - `changed`   declared, and the service holds another value;
 * - `dropped`   declared, and the service does not echo it;
 * - `defaulted` not declared, and the service holds the documented default (not drift);
 * - `added`     not declared, and the service holds something else (drift only with `--strict`).
 */
export type DriftKind = 'changed' | 'dropped' | 'defaulted' | 'added';

export interface DriftItem {
  kind: DriftKind;
  /** JSON pointer into the session response: `/config/...` or `/tool_router_tools`. */
  path: string;
  /** The manifest pointer the finding is shown at: the declared key, the list member, or the nearest declared ancestor. */
  pointer: string;
  expected?: Json;
  actual?: Json;
  /** For list members and meta tools: the member concerned. */
  member?: Json;
  /**
   * Set when the field holds a sensitive value: the variables it comes from. `expected` and
   * `actual` are then masks, and the finding says `changed (sensitive: HOOK_TOKEN)`.
   */
  sensitive?: string[];
}

/** What the session answered with: its `config` and `tool_router_tools`. Other response fields are not compared. */
export interface Effective {
  config: unknown;
  tool_router_tools?: unknown;
}

/**
 * Keys the service fills in on its own when they are not declared: their values are chosen by the
 * service (or the org), so they are neither defaulted nor added. Pointers into `config`.
 */
export const SERVICE_CHOSEN: ReadonlySet<string> = new Set(['/all_connected_accounts', '/workbench/auto_offload_threshold', '/multi_account', '/search', '/execute']);

/**
 * Classified differences between the expected config and a session's answer, key by key, lists as
 * sets. Fields outside `config` and `tool_router_tools` (`session_id`, `config_version`,
 * `warnings`, `experimental`, ...) are not compared. Meta tools missing or extra are `changed` when
 * a declared key decides them and `added` when they follow a default.
 */
export function computeDrift(expected: ExpectedConfig, effective: Effective): DriftItem[] {
  const items: DriftItem[] = [];
  walk(expected, '', expected.config as Json, toJson(effective.config), items);
  metaTools(expected, effective.tool_router_tools, items);
  return items;
}

function walk(expected: ExpectedConfig, at: string, exp: Json | undefined, act: Json | undefined, out: DriftItem[]): void {
  const origin = expected.origins.get(at);
  const path = `/config${at}`;
  if (exp === undefined) {
    if (act === undefined || isEmpty(act) || SERVICE_CHOSEN.has(at)) return;
    out.push({ kind: 'added', path, pointer: anchorOf(expected, at), actual: act });
    return;
  }
  if (act === undefined || act === null) {
    if (origin?.declared !== true || isEmpty(exp)) return; // a default the service does not echo
    if (isPlainObject(exp)) {
      for (const [k, v] of Object.entries(exp)) walk(expected, `${at}${joinPointer('', k)}`, v, undefined, out);
      return;
    }
    out.push({ kind: 'dropped', path, pointer: origin.pointer, expected: exp });
    return;
  }
  if (isPlainObject(exp) && isPlainObject(act)) {
    for (const k of new Set([...Object.keys(exp), ...Object.keys(act)])) {
      walk(expected, `${at}${joinPointer('', k)}`, (exp as Record<string, Json>)[k], (act as Record<string, Json>)[k], out);
    }
    return;
  }
  const declared = origin?.declared === true;
  const pointer = origin?.pointer ?? anchorOf(expected, at);
  if (Array.isArray(exp) && Array.isArray(act)) {
    const want = new Map(exp.map((v) => [canonicalJson(v), v] as const));
    const have = new Map(act.map((v) => [canonicalJson(v), v] as const));
    const missing = [...want].filter(([k]) => !have.has(k));
    const extra = [...have].filter(([k]) => !want.has(k));
    if (missing.length === 0 && extra.length === 0) {
      if (!declared) out.push({ kind: 'defaulted', path, pointer, expected: exp, actual: act });
      return;
    }
    if (!declared) {
      out.push({ kind: 'added', path, pointer, expected: exp, actual: act });
      return;
    }
    // A declared member the service lacks is shown on the member's own line.
    for (const [key, value] of missing) {
      out.push({ kind: 'changed', path, pointer: origin?.members?.get(key) ?? pointer, expected: exp, actual: act, member: value });
    }
    for (const [, value] of extra) out.push({ kind: 'changed', path, pointer, expected: exp, actual: act, member: value });
    return;
  }
  if (sameValue(exp, act)) {
    if (!declared) out.push({ kind: 'defaulted', path, pointer, expected: exp, actual: act });
    return;
  }
  out.push({ kind: declared ? 'changed' : 'added', path, pointer, expected: exp, actual: act });
}

/** Equal JSON; a one-element list equals its element (v3.1 answers `connected_accounts` as lists). */
function sameValue(a: Json, b: Json): boolean {
  if (Array.isArray(b) && !Array.isArray(a) && b.length === 1) return canonicalJson(a) === canonicalJson(b[0]);
  return canonicalJson(a) === canonicalJson(b);
}

function metaTools(expected: ExpectedConfig, actual: unknown, out: DriftItem[]): void {
  if (!Array.isArray(actual)) {
    out.push({ kind: 'dropped', path: '/tool_router_tools', pointer: '', expected: expected.toolRouterTools });
    return;
  }
  const have = new Set(actual.filter((t): t is string => typeof t === 'string'));
  const want = new Set(expected.toolRouterTools);
  const rules = new Map(expected.metaTools.map((r) => [r.slug, r] as const));
  const exp = [...want];
  const act = [...have];
  for (const slug of want) {
    if (have.has(slug)) continue;
    const rule = rules.get(slug);
    // Preloaded tools are declared members of `preload.tools`.
    const pointer = rule ? rule.pointer : preloadPointer(expected, slug);
    out.push({ kind: pointer !== undefined ? 'changed' : 'added', path: '/tool_router_tools', pointer: pointer ?? '', expected: exp, actual: act, member: slug });
  }
  for (const slug of have) {
    if (want.has(slug)) continue;
    const pointer = rules.get(slug)?.pointer;
    out.push({ kind: pointer !== undefined ? 'changed' : 'added', path: '/tool_router_tools', pointer: pointer ?? '', expected: exp, actual: act, member: slug });
  }
}

function preloadPointer(expected: ExpectedConfig, slug: string): string | undefined {
  return expected.origins.get('/preload/tools')?.members?.get(JSON.stringify(slug));
}

/** The manifest pointer of the nearest declared ancestor of a config pointer, or the document. */
function anchorOf(expected: ExpectedConfig, at: string): string {
  for (let p = at; ; p = parentPointer(p)) {
    const origin: Origin | undefined = expected.origins.get(p);
    if (origin !== undefined) return origin.pointer;
    if (p === '') return '';
  }
}

function isEmpty(v: Json): boolean {
  return v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

function toJson(v: unknown): Json | undefined {
  return v === undefined ? undefined : (v as Json);
}

/** Where a drift diagnostic is shown: a manifest document, or just its file. */
export type DriftLocator = Pick<ManifestDocument, 'file' | 'locate'> & Partial<Pick<ManifestDocument, 'nameDeclared'>>;

/**
 * Drift items as diagnostics located in the manifest. `defaulted` items are not reported: they are
 * what the manifest asked for by omission, and a line per default would bury real findings (they
 * stay in the drift items of the JSON report). `added` is a warning, so it fails a run only with
 * `--strict`.
 */
export function driftDiagnostics(items: readonly DriftItem[], doc: DriftLocator, manifestName: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const item of items) {
    if (item.kind === 'defaulted') continue;
    const code = `drift/${item.kind}` as const;
    // Nothing declared above it: shown at `name:` (or the document's first line), not across the
    // whole document.
    const pointer = item.pointer === '' && doc.nameDeclared === true ? '/name' : item.pointer;
    const isKey = pointer !== '' && !/\/\d+$/.test(pointer);
    const located = doc.locate(pointer, isKey ? { key: true } : undefined);
    const range = pointer === '' ? { start: located.start, end: { line: located.start.line, col: located.start.col + 1 } } : located;
    const d: Diagnostic = {
      code,
      severity: item.kind === 'added' ? 'warning' : 'error',
      message: driftMessage(item, manifestName),
      file: doc.file,
      pointer: item.pointer,
      range,
    };
    out.push(d);
  }
  return out;
}

function driftMessage(item: DriftItem, name: string): string {
  const where = item.path.startsWith('/config') ? `config${item.path.slice('/config'.length).replace(/\//g, '.')}` : 'tool_router_tools';
  const show = (v: Json | undefined): string => (v === undefined ? 'nothing' : JSON.stringify(v));
  if (item.path === '/tool_router_tools' && item.member !== undefined) {
    const has = Array.isArray(item.actual) && item.actual.includes(item.member);
    return `${name}: the session ${has ? 'exposes' : 'does not expose'} meta tool ${String(item.member)}${item.kind === 'added' ? ' (not declared; documented default differs)' : ''}`;
  }
  switch (item.kind) {
    case 'changed':
      if (item.member !== undefined) {
        const has = Array.isArray(item.actual) && item.actual.some((v) => canonicalJson(v) === canonicalJson(item.member!));
        return `${name}: ${where} ${has ? 'holds' : 'lacks'} ${JSON.stringify(item.member)}, ${has ? 'which is not declared' : 'which is declared'}`;
      }
      if (item.sensitive !== undefined) return `${name}: ${where} changed (sensitive: ${item.sensitive.join(', ')}): the service holds another value than the one declared`;
      return `${name}: ${where} is ${show(item.actual)} at the service, declared ${show(item.expected)}`;
    case 'dropped':
      return `${name}: ${where} is declared ${show(item.expected)} but the service does not echo it`;
    case 'added':
      return `${name}: ${where} is ${show(item.actual)} at the service but not declared${item.expected !== undefined ? ` (documented default ${show(item.expected)})` : ''}`;
    default:
      return `${name}: ${where} holds the documented default ${show(item.actual)}`;
  }
}
