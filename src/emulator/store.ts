/**
 * The emulator's state: sessions (each owned by one tenant, i.e. one API key), connected accounts
 * made by link flows, and mount files. In memory, or under `--data-dir`: `state.json` (written
 * atomically after each change, coalesced so bursts cost one write) and `blobs/<id>` for file bytes.
 * Tenants are stored as a hash of the key, never the key.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { BlobStore } from './blobs.js';
import { newId } from './random-id.js';
import { accountLists, type EffectiveConfig } from './effective.js';

export interface FileRecord {
  mount_relative_path: string;
  size: number;
  last_modified: string;
  mimetype?: string;
  blob: string;
}

/** A config version that a PATCH replaced (config_history). */
export interface ArchivedConfig {
  version: number;
  /** When it was replaced. */
  archived_at: string;
  config: EffectiveConfig;
  tool_router_tools: string[];
}

export interface SessionRecord {
  id: string;
  tenant: string;
  created_at: string;
  /** When the current config version began (creation, or the last PATCH). */
  updated_at: string;
  config: EffectiveConfig;
  tool_router_tools: string[];
  config_version: number;
  /** Earlier config versions, oldest first. */
  history: ArchivedConfig[];
  /** mount id -> relative path -> file */
  mounts: Record<string, Record<string, FileRecord>>;
  /** Counter behind deterministic `log_id`s. */
  executions: number;
  /**
   * What create answered as `experimental` (the assistive prompt, custom tools with their final
   * slugs): GET, PATCH and attach answer it again; PATCH never regenerates it (api facts §4.1).
   */
  experimental?: Record<string, unknown>;
  /** The request's experimental settings that change behaviour: `permissions`, `link_url_overwrite`, `fast_mode`, `submit_feedback`. */
  experimental_settings?: ExperimentalSettings;
}

export interface ExperimentalSettings {
  permissions?: { default: 'allow_all' | 'ask_every_call' | 'ask_once_per_session'; overrides?: Record<string, 'always_allow' | 'always_deny' | 'ask_once' | 'ask_always'> };
  link_url_overwrite?: string;
  fast_mode?: boolean;
  submit_feedback?: { enable?: boolean };
}

export interface ConnectionRecord {
  id: string;
  tenant: string;
  user_id: string;
  toolkit: string;
  status: 'INITIATED' | 'ACTIVE';
  created_at: string;
  /** When the status last changed. */
  updated_at?: string;
  account_type?: 'PRIVATE' | 'SHARED';
  link_token: string;
  callback_url?: string;
  alias?: string;
  auth_config: { id: string; auth_scheme: string; is_composio_managed: boolean };
}

interface PersistedState {
  version: 1;
  sessions: SessionRecord[];
  connections: ConnectionRecord[];
}

export { newId };

export class Store {
  readonly sessions = new Map<string, SessionRecord>();
  readonly connections = new Map<string, ConnectionRecord>();
  private readonly linkTokens = new Map<string, string>();
  /** tenant, user and toolkit -> their connections: a session's view of a toolkit reads only those. */
  private readonly byOwner = new Map<string, ConnectionRecord[]>();
  readonly blobs: BlobStore;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private writeError: unknown;

  constructor(private readonly dataDir?: string) {
    this.blobs = new BlobStore(dataDir === undefined ? undefined : join(dataDir, 'blobs'));
    if (dataDir === undefined) return;
    mkdirSync(join(dataDir, 'blobs'), { recursive: true, mode: 0o700 });
    let text: string | undefined;
    try {
      text = readFileSync(join(dataDir, 'state.json'), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return;
    let state: PersistedState;
    try {
      state = JSON.parse(text) as PersistedState;
    } catch {
      throw new Error(`${join(dataDir, 'state.json')} is not valid JSON; move it away or pick another --data-dir`);
    }
    if (state.version !== 1 || !Array.isArray(state.sessions) || !Array.isArray(state.connections)) {
      throw new Error(`${join(dataDir, 'state.json')} is not an emulator state file (version 1)`);
    }
    for (const s of state.sessions) this.sessions.set(s.id, upgradeRecord(s));
    for (const c of state.connections) this.indexConnection(c);
  }

  get persistent(): boolean {
    return this.dataDir !== undefined;
  }

  addSession(record: SessionRecord): void {
    this.sessions.set(record.id, record);
    this.changed();
  }

  /** Removes a session and the bytes of its files. */
  async deleteSession(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (s === undefined) return;
    this.sessions.delete(id);
    for (const files of Object.values(s.mounts)) for (const f of Object.values(files)) await this.blobs.drop(f.blob);
    this.changed();
  }

  /** The session if it exists and belongs to `tenant` (another tenant's session does not exist). */
  session(id: string, tenant: string): SessionRecord | undefined {
    const s = this.sessions.get(id);
    return s !== undefined && s.tenant === tenant ? s : undefined;
  }

  addConnection(record: ConnectionRecord): void {
    this.indexConnection(record);
    this.changed();
  }

  private indexConnection(record: ConnectionRecord): void {
    this.connections.set(record.id, record);
    this.linkTokens.set(record.link_token, record.id);
    const key = ownerKey(record.tenant, record.user_id, record.toolkit);
    const list = this.byOwner.get(key);
    if (list === undefined) this.byOwner.set(key, [record]);
    else list.push(record);
  }

  /** A connection by id, if it is `tenant`'s (another key's account does not exist for it). */
  connection(id: string, tenant: string): ConnectionRecord | undefined {
    const c = this.connections.get(id);
    return c !== undefined && c.tenant === tenant ? c : undefined;
  }

  connectionByToken(token: string): ConnectionRecord | undefined {
    const id = this.linkTokens.get(token);
    return id === undefined ? undefined : this.connections.get(id);
  }

  /** The newest connection of a user for a toolkit, preferring ACTIVE ones. */
  connectionFor(tenant: string, userId: string, toolkit: string): ConnectionRecord | undefined {
    let best: ConnectionRecord | undefined;
    for (const c of this.byOwner.get(ownerKey(tenant, userId, toolkit)) ?? []) {
      if (best === undefined || (c.status === 'ACTIVE' && best.status !== 'ACTIVE') || (c.status === best.status && c.created_at >= best.created_at)) {
        best = c;
      }
    }
    return best;
  }

  /** Forget everything (admin reset). */
  reset(): void {
    this.sessions.clear();
    this.connections.clear();
    this.linkTokens.clear();
    this.byOwner.clear();
    this.blobs.clear();
    this.changed();
  }

  /**
   * Forget one tenant's sessions (their files too) and connected accounts, as a tenant's own reset
   * of a shared emulator does; every other tenant's stay as they were.
   */
  async resetTenant(tenant: string): Promise<void> {
    for (const s of [...this.sessions.values()]) if (s.tenant === tenant) await this.deleteSession(s.id);
    for (const c of [...this.connections.values()]) {
      if (c.tenant !== tenant) continue;
      this.connections.delete(c.id);
      this.linkTokens.delete(c.link_token);
      this.byOwner.delete(ownerKey(c.tenant, c.user_id, c.toolkit));
    }
    this.changed();
  }

  /** Marks the state changed; with a data dir, schedules one coalesced atomic write. */
  changed(): void {
    if (this.dataDir === undefined) return;
    this.dirty = true;
    this.writing ??= this.writeLoop().catch((err: unknown) => {
      // Kept for flush() to report; the in-memory state stays right and the next change retries.
      this.writeError = err;
    });
  }

  private async writeLoop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        // Let the other changes of this tick land first, then write them all at once.
        await new Promise((resolve) => setImmediate(resolve));
        const state: PersistedState = { version: 1, sessions: [...this.sessions.values()], connections: [...this.connections.values()] };
        await writeFileAtomic(join(this.dataDir as string, 'state.json'), JSON.stringify(state), { mode: 0o600 });
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Resolves once every change so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (this.writeError !== undefined) {
      const err = this.writeError;
      this.writeError = undefined;
      throw err;
    }
  }
}

function ownerKey(tenant: string, userId: string, toolkit: string): string {
  return `${tenant}\0${userId}\0${toolkit}`;
}

/**
 * A session as an earlier emulator saved it: v3-shaped connected accounts (one id), no `search` /
 * `execute`, no history. Upgraded in place to what this one stores.
 */
function upgradeRecord(s: SessionRecord): SessionRecord {
  const config = s.config as EffectiveConfig & { connected_accounts: Record<string, string | string[]> };
  config.connected_accounts = accountLists(config.connected_accounts ?? {});
  config.search ??= { enable: true };
  config.execute ??= { enable_multi_execute: true };
  s.updated_at ??= s.created_at;
  s.history ??= [];
  return s;
}
