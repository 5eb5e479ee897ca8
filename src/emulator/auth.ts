/**
 * API-key checks (runtime-facts §6): both sides hashed with SHA-256, then compared with
 * `timingSafeEqual` (equal lengths by construction), against every configured key without an early
 * exit, so the time taken says nothing about which key, or how much of one, matched.
 * A tenant ("project") is identified by a hash of its key; the key itself is never stored or logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Whether `hash` is one of `hashes`, comparing against every one of them (no early exit). */
function anyMatch(hashes: readonly Buffer[], hash: Buffer): boolean {
  let ok = false;
  for (const h of hashes) ok = timingSafeEqual(h, hash) || ok;
  return ok;
}

/**
 * Who an admin request (`/_emulator/...`) acts for: the whole server, or one tenant. Without
 * configured keys everyone is the whole server (one local user); with them, the admin key is.
 */
export type AdminCaller = { kind: 'server' } | { kind: 'tenant'; tenant: string };

export class KeyChecker {
  private readonly hashes: Buffer[];
  /** Keys that share a project (a key and its rotated successor): each key's hash to the project's tenant. */
  private readonly shared: Array<{ hash: Buffer; tenant: string }>;
  /** The admin keys: the whole admin surface, never the API. */
  private readonly admins: Buffer[];

  /**
   * With no keys, any non-empty key is accepted and each key is its own project. `projects` names
   * keys that act for one project, as a service's rotated keys do; they are accepted too.
   * `adminKeys` act on the whole admin surface in a shared emulator; they are no API key.
   */
  constructor(keys: readonly string[] = [], projects: Readonly<Record<string, readonly string[]>> = {}, adminKeys: readonly string[] = []) {
    this.hashes = keys.filter((k) => k !== '').map(sha256);
    this.shared = Object.entries(projects).flatMap(([name, members]) =>
      members.filter((k) => k !== '').map((k) => ({ hash: sha256(k), tenant: sha256(`project\0${name}`).toString('hex').slice(0, 32) })),
    );
    this.admins = adminKeys.filter((k) => k !== '').map(sha256);
    if (this.admins.length > 0 && this.hashes.length === 0) {
      throw new Error('an admin key needs API keys: without them the admin surface is open to any caller, so an admin key would guard nothing');
    }
    const apiHashes = [...this.hashes, ...this.shared.map((s) => s.hash)];
    if (this.admins.some((a) => anyMatch(apiHashes, a))) throw new Error('the admin key is also an API key: give the admin surface a key of its own');
  }

  /** True when only configured keys are accepted (`--api-key`), not any key. */
  get restricted(): boolean {
    return this.hashes.length > 0;
  }

  /** The tenant id for a presented key, or undefined when the key is missing or unknown. */
  tenantFor(presented: string | undefined): string | undefined {
    if (presented === undefined || presented === '') return undefined;
    const hash = sha256(presented);
    let tenant: string | undefined;
    for (const s of this.shared) if (timingSafeEqual(s.hash, hash)) tenant = s.tenant;
    if (tenant !== undefined) return tenant;
    if (this.hashes.length > 0 && !anyMatch(this.hashes, hash)) return undefined;
    return hash.toString('hex').slice(0, 32);
  }

  /**
   * Who a presented key acts for on the admin surface, or undefined (401) when it acts for nobody.
   * Without configured keys, the server (any caller, as a local single-user emulator has always
   * let it); with them, the admin key is the server and an API key its own tenant.
   */
  adminCaller(presented: string | undefined): AdminCaller | undefined {
    if (!this.restricted) return { kind: 'server' };
    if (presented === undefined || presented === '') return undefined;
    if (anyMatch(this.admins, sha256(presented))) return { kind: 'server' };
    const tenant = this.tenantFor(presented);
    return tenant === undefined ? undefined : { kind: 'tenant', tenant };
  }
}
