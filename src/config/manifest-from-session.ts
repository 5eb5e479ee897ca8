import type { Json } from '../wire/json.js';
import type { Session } from '../wire/session.js';
import { isPlainObject } from '../util/plain-object.js';

type Obj = { [key: string]: Json };

/** What a live session's config says, in the manifest's request spelling, and what it cannot say. */
export interface ExportedManifest {
  /** Manifest data (`name` first), documented defaults left out. */
  data: Obj;
  /** Config the manifest schema cannot express, for a comment in the exported file. */
  notes: string[];
}

const asObj = (v: unknown): Obj | undefined => (isPlainObject(v) ? (v as Obj) : undefined);
const asList = (v: unknown): Json[] | undefined => (Array.isArray(v) && v.length > 0 ? (v as Json[]) : undefined);

/** `{enabled, disabled}` -> `{enable, disable}` (what is there). */
function filterOf(v: unknown): Obj | undefined {
  const o = asObj(v);
  if (o === undefined) return undefined;
  const out: Obj = {};
  const enabled = Array.isArray(o['enabled']) ? o['enabled'] : undefined;
  const disabled = Array.isArray(o['disabled']) ? o['disabled'] : undefined;
  if (enabled !== undefined) out['enable'] = enabled;
  if (disabled !== undefined) out['disable'] = disabled;
  return Object.keys(out).length > 0 ? out : undefined;
}

function tagsOf(v: unknown): Json | undefined {
  const f = filterOf(v);
  if (f === undefined) return undefined;
  const enable = asList(f['enable']);
  const disable = asList(f['disable']);
  if (enable === undefined && disable === undefined) return undefined;
  if (disable === undefined) return enable!;
  return { ...(enable !== undefined ? { enable } : {}), disable };
}

/** A block of flags with their documented defaults left out: `[response key, manifest key, default]`. */
function flags(block: Obj | undefined, spec: ReadonlyArray<readonly [string, string, Json]>): Obj | undefined {
  if (block === undefined) return undefined;
  const out: Obj = {};
  for (const [from, to, fallback] of spec) {
    const v = block[from];
    if (v !== undefined && v !== null && v !== fallback) out[to] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The manifest that declares a live session's effective config (api §4.2 read backwards): response
 * spelling back to request spelling, and every documented default left out, so that the file
 * says only what differs from a plain session. Values the service chooses itself (the offload
 * threshold, `all_connected_accounts`) are left out too; what no manifest field can express
 * (custom tools, the creation-only assistive prompt, v3.1 `search`/`execute` blocks) is named in
 * `notes`.
 */
export function manifestFromSession(session: Session, name: string): ExportedManifest {
  const config = (asObj(session.config) ?? {}) as Obj;
  const data: Obj = { name, user_id: config['user_id'] ?? '' };
  const notes: string[] = [];
  const toolkits = filterOf(config['toolkits']);
  if (toolkits !== undefined) data['toolkits'] = toolkits;

  const tools = asObj(config['tools']);
  if (tools !== undefined) {
    const out: Obj = {};
    for (const [toolkit, f] of Object.entries(tools)) {
      const plain = filterOf(f);
      const tags = tagsOf(asObj(f)?.['tags']);
      if (plain !== undefined) out[toolkit] = plain;
      else if (tags !== undefined) out[toolkit] = { tags: Array.isArray(tags) ? { enable: tags } : tags };
    }
    if (Object.keys(out).length > 0) data['tools'] = out;
  }
  const tags = tagsOf(config['tags']);
  if (tags !== undefined) data['tags'] = tags;

  const auth = asObj(config['auth_configs']);
  if (auth !== undefined && Object.keys(auth).length > 0) data['auth_configs'] = auth;
  const accounts = asObj(config['connected_accounts']);
  if (accounts !== undefined && Object.keys(accounts).length > 0) {
    const out: Obj = {};
    for (const [toolkit, id] of Object.entries(accounts)) {
      // v3.1 answers lists; a manifest names one account per toolkit.
      const ids = Array.isArray(id) ? id : [id];
      if (ids.length > 1) notes.push(`connected_accounts.${toolkit} holds ${ids.length} accounts; a manifest names one (the first is kept)`);
      if (ids[0] !== undefined) out[toolkit] = ids[0];
    }
    data['connected_accounts'] = out;
  }

  const mc = asObj(config['manage_connections']);
  const manage = flags(mc, [
    ['enabled', 'enable', true],
    ['enable_wait_for_connections', 'enable_wait_for_connections', false],
    ['enable_connection_removal', 'enable_connection_removal', true],
  ]);
  const callback = mc?.['callback_url'];
  if (manage !== undefined || typeof callback === 'string') data['manage_connections'] = { ...(manage ?? {}), ...(typeof callback === 'string' ? { callback_url: callback } : {}) };

  const workbench = flags(asObj(config['workbench']), [
    ['enable', 'enable', true],
    ['proxy_execution_enabled', 'enable_proxy_execution', true],
    ['tool_execution_enabled', 'enable_tool_execution', true],
    ['sandbox_size', 'sandbox_size', 'standard'],
  ]);
  if (workbench !== undefined) data['workbench'] = workbench;

  const preload = asList(asObj(config['preload'])?.['tools']);
  if (preload !== undefined) data['preload'] = { tools: preload };

  const multi = asObj(config['multi_account']);
  if (multi?.['enable'] === true) data['multi_account'] = multi;

  if (asObj(config['search'])?.['enable'] === false) notes.push('search.enable is false at the service (a v3.1 block no manifest field expresses yet)');
  if (asObj(config['execute'])?.['enable_multi_execute'] === false) notes.push('execute.enable_multi_execute is false at the service (a v3.1 block no manifest field expresses yet)');
  return { data, notes };
}
