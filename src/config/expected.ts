import { isPlainObject } from '../util/plain-object.js';
import { joinPointer } from '../util/json-pointer.js';
import type { Json } from '../wire/json.js';
import type { ManifestData } from './types.js';

/**
 * Where a value of the expected config comes from. `declared` values carry the manifest pointer of
 * the key that declared them; defaulted values carry the nearest ancestor the manifest does
 * declare (or `''`, the document), which is where a finding about them is shown.
 */
export interface Origin {
  declared: boolean;
  /** JSON pointer into the manifest document. */
  pointer: string;
  /** For a declared list: each member (as canonical JSON) -> the manifest pointer of that member. */
  members?: ReadonlyMap<string, string>;
}

/** Why a meta tool is, or is not, expected in `tool_router_tools`. */
export interface MetaToolRule {
  slug: string;
  expected: boolean;
  /** The manifest key that decided it, when one was declared; else it follows a documented default. */
  pointer?: string;
}

export interface ExpectedConfig {
  /** The `config` the service should answer with, in response spelling, defaults included. */
  config: { [key: string]: Json };
  /** The slugs `tool_router_tools` should hold (compared as a set). */
  toolRouterTools: string[];
  /** Every object, list and scalar of `config`, by JSON pointer into `config`. */
  origins: ReadonlyMap<string, Origin>;
  /** Every meta tool sessionctl knows, with whether it is expected and why. */
  metaTools: MetaToolRule[];
}

/**
 * The meta tools and the conditions that expose them (api §5.2). GET_TOOL_SCHEMAS is part of the
 * current standard set; SEARCH_TOOLS and MULTI_EXECUTE_TOOL are always there in v3.
 */
const META = {
  search: 'COMPOSIO_SEARCH_TOOLS',
  schemas: 'COMPOSIO_GET_TOOL_SCHEMAS',
  multiExecute: 'COMPOSIO_MULTI_EXECUTE_TOOL',
  manage: 'COMPOSIO_MANAGE_CONNECTIONS',
  wait: 'COMPOSIO_WAIT_FOR_CONNECTIONS',
  workbench: 'COMPOSIO_REMOTE_WORKBENCH',
  bash: 'COMPOSIO_REMOTE_BASH_TOOL',
  feedback: 'COMPOSIO_SUBMIT_FEEDBACK',
} as const;

/**
 * Maps a validated manifest to the config and meta tools the service should answer with
 * (api §4.2 spelling, §4.3 defaults, §5.2 meta tools). Pure.
 *
 * Defaults included (each marked as not declared in `origins`): `manage_connections` enabled,
 * no waiting, connection removal on; `workbench` enabled with proxy and tool execution on and the
 * `standard` sandbox (api §4.3, OAS3); `preload.tools` empty; in a declared `multi_account`, 5
 * accounts per toolkit once enabled and no explicit selection. A service that does not echo a
 * default is not drift. Keys whose value the service chooses itself when they are not declared
 * (`auto_offload_threshold`, `multi_account`) are not expected at all.
 */
export function expectedConfig(manifest: ManifestData): ExpectedConfig {
  const b = new Builder();
  const m = manifest as Record<string, unknown>;
  const has = (key: string): boolean => m[key] !== undefined;

  b.declared(['user_id'], manifest.user_id, '/user_id');

  if (has('toolkits')) {
    b.container(['toolkits'], '/toolkits');
    const tk = m['toolkits'];
    if (Array.isArray(tk)) b.list(['toolkits', 'enabled'], tk, '/toolkits');
    else if (isPlainObject(tk)) renameLists(b, ['toolkits'], '/toolkits', tk);
  }

  if (has('tools') && isPlainObject(m['tools'])) {
    b.container(['tools'], '/tools');
    for (const [toolkit, filter] of Object.entries(m['tools'])) {
      const at = joinPointer('', 'tools', toolkit);
      b.container(['tools', toolkit], at);
      if (Array.isArray(filter)) b.list(['tools', toolkit, 'enabled'], filter, at);
      else if (isPlainObject(filter)) {
        renameLists(b, ['tools', toolkit], at, filter);
        if (filter['tags'] !== undefined) tagFilter(b, ['tools', toolkit, 'tags'], `${at}/tags`, filter['tags']);
      }
    }
  }

  if (has('tags')) tagFilter(b, ['tags'], '/tags', m['tags']);

  for (const key of ['auth_configs', 'connected_accounts'] as const) {
    const map = m[key];
    if (!isPlainObject(map)) continue;
    b.container([key], `/${key}`);
    for (const [toolkit, id] of Object.entries(map)) b.declared([key, toolkit], id as Json, joinPointer('', key, toolkit));
  }

  const mc = isPlainObject(m['manage_connections']) ? m['manage_connections'] : undefined;
  const mcAt = mc ? '/manage_connections' : '';
  if (mc) b.container(['manage_connections'], mcAt);
  b.option(['manage_connections', 'enabled'], mc, 'enable', true, mcAt);
  if (mc?.['callback_url'] !== undefined) b.declared(['manage_connections', 'callback_url'], mc['callback_url'] as Json, '/manage_connections/callback_url');
  b.option(['manage_connections', 'enable_wait_for_connections'], mc, 'enable_wait_for_connections', false, mcAt);
  b.option(['manage_connections', 'enable_connection_removal'], mc, 'enable_connection_removal', true, mcAt);

  const wb = isPlainObject(m['workbench']) ? m['workbench'] : undefined;
  const wbAt = wb ? '/workbench' : '';
  if (wb) b.container(['workbench'], wbAt);
  b.option(['workbench', 'enable'], wb, 'enable', true, wbAt);
  b.option(['workbench', 'proxy_execution_enabled'], wb, 'enable_proxy_execution', true, wbAt);
  b.option(['workbench', 'tool_execution_enabled'], wb, 'enable_tool_execution', true, wbAt);
  b.option(['workbench', 'sandbox_size'], wb, 'sandbox_size', 'standard', wbAt);
  if (wb?.['auto_offload_threshold'] !== undefined) {
    b.declared(['workbench', 'auto_offload_threshold'], wb['auto_offload_threshold'] as Json, '/workbench/auto_offload_threshold');
  }

  const preload = isPlainObject(m['preload']) ? m['preload'] : undefined;
  if (preload) b.container(['preload'], '/preload');
  if (Array.isArray(preload?.['tools'])) b.list(['preload', 'tools'], preload['tools'], '/preload/tools');
  else b.defaulted(['preload', 'tools'], [], preload ? '/preload' : '');

  if (isPlainObject(m['multi_account'])) {
    const ma = m['multi_account'];
    b.verbatim(['multi_account'], ma, '/multi_account');
    if (ma['enable'] === true && ma['max_accounts_per_toolkit'] === undefined) b.defaulted(['multi_account', 'max_accounts_per_toolkit'], 5, '/multi_account');
    if (ma['require_explicit_selection'] === undefined) b.defaulted(['multi_account', 'require_explicit_selection'], false, '/multi_account');
  }

  // Keys sessionctl does not model (later v3 fields such as `search`, `execute`) are expected back
  // as declared. `experimental` is not echoed in `config`, and `name` is never sent.
  const modelled = new Set(['name', 'user_id', 'toolkits', 'tools', 'tags', 'auth_configs', 'connected_accounts', 'manage_connections', 'workbench', 'preload', 'multi_account', 'experimental', 'premium_usage']);
  for (const [key, value] of Object.entries(m)) {
    if (!modelled.has(key) && value !== undefined) b.verbatim([key], value, joinPointer('', key));
  }

  const metaTools = metaToolRules(m);
  const preloaded = Array.isArray(preload?.['tools']) ? (preload['tools'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
  const toolRouterTools = [...metaTools.filter((r) => r.expected).map((r) => r.slug), ...preloaded.filter((t) => !t.startsWith('COMPOSIO_'))];
  return { config: b.config, toolRouterTools: [...new Set(toolRouterTools)], origins: b.origins, metaTools };
}

function metaToolRules(m: Record<string, unknown>): MetaToolRule[] {
  const flag = (block: string, key: string): { value: unknown; pointer?: string } => {
    const obj = m[block];
    if (!isPlainObject(obj) || obj[key] === undefined || obj[key] === null) return { value: undefined };
    return { value: obj[key], pointer: joinPointer('', block, key) };
  };
  const rule = (slug: string, expected: boolean, pointer?: string): MetaToolRule => (pointer === undefined ? { slug, expected } : { slug, expected, pointer });

  const search = flag('search', 'enable');
  const multi = flag('execute', 'enable_multi_execute');
  const manage = flag('manage_connections', 'enable');
  const wait = flag('manage_connections', 'enable_wait_for_connections');
  const workbench = flag('workbench', 'enable');
  const exp = m['experimental'];
  const feedback = isPlainObject(exp) && isPlainObject(exp['submit_feedback']) ? exp['submit_feedback']['enable'] : undefined;

  const manageOn = manage.value !== false;
  // The facts tie the wait tool to its own flag alone (api §5.2), so it does not depend on `enable`.
  const waitOn = wait.value === true;
  const workbenchOn = workbench.value !== false;
  return [
    rule(META.search, search.value !== false, search.pointer),
    rule(META.schemas, true),
    rule(META.multiExecute, multi.value !== false, multi.pointer),
    rule(META.manage, manageOn, manage.pointer),
    rule(META.wait, waitOn, wait.pointer),
    rule(META.workbench, workbenchOn, workbench.pointer),
    rule(META.bash, workbenchOn, workbench.pointer),
    rule(META.feedback, feedback === true, feedback === undefined ? undefined : '/experimental/submit_feedback/enable'),
  ];
}

/** `enable` / `disable` lists of a filter object, renamed to `enabled` / `disabled`. */
function renameLists(b: Builder, path: string[], at: string, filter: Record<string, unknown>): void {
  for (const [from, to] of [['enable', 'enabled'], ['disable', 'disabled']] as const) {
    const list = filter[from];
    if (Array.isArray(list)) b.list([...path, to], list, `${at}/${from}`);
  }
}

/** A tag filter: a bare list is `{enabled}`; the object form renames its lists. */
function tagFilter(b: Builder, path: string[], at: string, value: unknown): void {
  b.container(path, at);
  if (Array.isArray(value)) b.list([...path, 'enabled'], value, at);
  else if (isPlainObject(value)) renameLists(b, path, at, value);
}

class Builder {
  readonly config: { [key: string]: Json } = {};
  readonly origins = new Map<string, Origin>();

  /** An object node created by a declared manifest object. */
  container(path: string[], at: string): void {
    this.node(path);
    this.origins.set(joinPointer('', ...path), { declared: true, pointer: at });
  }

  declared(path: string[], value: Json, at: string): void {
    this.put(path, value, { declared: true, pointer: at });
  }

  defaulted(path: string[], value: Json, anchor: string): void {
    this.put(path, value, { declared: false, pointer: anchor });
  }

  /** A declared list, with the manifest pointer of every member. */
  list(path: string[], items: unknown[], at: string): void {
    const members = new Map<string, string>();
    items.forEach((item, i) => members.set(JSON.stringify(item), `${at}/${i}`));
    this.put(path, items as Json[], { declared: true, pointer: at, members });
  }

  /** A declared key of the manifest's object `block`, or its documented default. */
  option(path: string[], block: Record<string, unknown> | undefined, key: string, fallback: Json, anchor: string): void {
    const value = block?.[key];
    // `null` asks for the default (the schema allows it for manage_connections flags).
    if (value === undefined) this.defaulted(path, fallback, anchor);
    else this.declared(path, value === null ? fallback : (value as Json), joinPointer('', ...pointerBase(anchor), key));
  }

  /** A declared value expected back in the same spelling, origins recorded at every level. */
  verbatim(path: string[], value: unknown, at: string): void {
    if (isPlainObject(value)) {
      this.container(path, at);
      for (const [k, v] of Object.entries(value)) this.verbatim([...path, k], v, `${at}${joinPointer('', k)}`);
    } else if (Array.isArray(value)) this.list(path, value, at);
    else this.declared(path, value as Json, at);
  }

  private put(path: string[], value: Json, origin: Origin): void {
    const parent = this.node(path.slice(0, -1));
    parent[path[path.length - 1]!] = value;
    this.origins.set(joinPointer('', ...path), origin);
  }

  private node(path: string[]): { [key: string]: Json } {
    let cur = this.config;
    for (const seg of path) {
      const next = cur[seg];
      if (isPlainObject(next)) cur = next as { [key: string]: Json };
      else {
        const created: { [key: string]: Json } = {};
        cur[seg] = created;
        cur = created;
      }
    }
    return cur;
  }
}

function pointerBase(anchor: string): string[] {
  return anchor === '' ? [] : anchor.slice(1).split('/');
}
