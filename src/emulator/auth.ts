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

export class KeyChecker {
  private readonly hashes: Buffer[];
  /** Keys that share a project (a key and its rotated successor): each key's hash to the project's tenant. */
  private readonly shared: Array<{ hash: Buffer; tenant: string }>;

  /**
   * With no keys, any non-empty key is accepted and each key is its own project. `projects` names
   * keys that act for one project, as a service's rotated keys do; they are accepted too.
   */
  constructor(keys: readonly string[] = [], projects: Readonly<Record<string, readonly string[]>> = {}) {
    this.hashes = keys.filter((k) => k !== '').map(sha256);
    this.shared = Object.entries(projects).flatMap(([name, members]) =>
      members.filter((k) => k !== '').map((k) => ({ hash: sha256(k), tenant: sha256(`project\0${name}`).toString('hex').slice(0, 32) })),
    );
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
    if (this.hashes.length > 0) {
      let ok = false;
      for (const h of this.hashes) ok = timingSafeEqual(h, hash) || ok;
      if (!ok) return undefined;
    }
    return hash.toString('hex').slice(0, 32);
  }
}
