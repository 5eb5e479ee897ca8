/**
 * Scripted faults per route, set through the admin API (`POST /_emulator/faults`). A rule applies to
 * one route (or `*`) for the next `times` matching requests, or with a `probability`, and does one
 * or more of: wait `latency_ms` (after the request arrived, before answering); reset the connection
 * `before` handling (nothing happened) or `after` handling (the change happened, the client never
 * hears of it); answer `status` with the error envelope (or a given `body`) and optional
 * `Retry-After`, without handling; answer the real status with a `malformed` (truncated) JSON body
 * after handling; `hold` the request (once it arrived whole, before handling it) until
 * `POST /_emulator/faults/release`, so that a test acts between a request and its answer without
 * a race against a clock.
 */
import { randomToken } from './random-id.js';

export interface FaultRule {
  id: string;
  /** Route name (`create`, `get`, `execute`, ...; see `ROUTE_NAMES`) or `*`. */
  route: string;
  status?: number;
  /** Replaces the error envelope as the body of a `status` fault. */
  body?: unknown;
  retry_after?: number | string;
  latency_ms?: number;
  reset?: 'before' | 'after';
  malformed?: boolean;
  hold?: boolean;
  /** Applies to this many more matching requests (default 1 unless `probability` is set). */
  times?: number;
  /** Applies to each matching request with this probability (0..1), without a count. */
  probability?: number;
  /**
   * `update` only: after the PATCH is handled and answered as it should be, this merge patch is
   * laid over the session's stored config (its version unchanged): a service that acknowledged an
   * update and serves another effective config, which only reading the session back finds.
   */
  misapply?: Record<string, unknown>;
}

export type FaultInput = Omit<FaultRule, 'id'>;

export const ROUTE_NAMES = [
  'create',
  'get',
  'execute',
  'execute_meta',
  'link',
  'proxy_execute',
  'toolkits',
  'tools',
  'search',
  'mount_items',
  'download_url',
  'upload_url',
  'mount_delete',
  'update',
  'delete',
  'attach',
  'config_history',
  'connected_account',
  'mcp',
] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];

/** Checks an admin-supplied rule; returns a message for the first problem. */
export function checkFault(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return 'a fault must be an object';
  const f = input as Record<string, unknown>;
  const allowed = new Set(['route', 'status', 'body', 'retry_after', 'latency_ms', 'reset', 'malformed', 'hold', 'times', 'probability', 'misapply']);
  for (const k of Object.keys(f)) if (!allowed.has(k)) return `unknown fault field '${k}'`;
  if (f['route'] !== '*' && !(ROUTE_NAMES as readonly unknown[]).includes(f['route'])) {
    return `route must be '*' or one of ${ROUTE_NAMES.join(', ')}`;
  }
  if (f['status'] !== undefined && !(Number.isInteger(f['status']) && (f['status'] as number) >= 400 && (f['status'] as number) <= 599)) {
    return 'status must be an integer 400..599';
  }
  if (f['retry_after'] !== undefined && typeof f['retry_after'] !== 'number' && typeof f['retry_after'] !== 'string') {
    return 'retry_after must be seconds or an HTTP date';
  }
  if (f['latency_ms'] !== undefined && !(typeof f['latency_ms'] === 'number' && f['latency_ms'] >= 0 && f['latency_ms'] <= 120_000)) {
    return 'latency_ms must be 0..120000';
  }
  if (f['reset'] !== undefined && f['reset'] !== 'before' && f['reset'] !== 'after') return "reset must be 'before' or 'after'";
  if (f['malformed'] !== undefined && typeof f['malformed'] !== 'boolean') return 'malformed must be a boolean';
  if (f['hold'] !== undefined && typeof f['hold'] !== 'boolean') return 'hold must be a boolean';
  if (f['times'] !== undefined && !(Number.isInteger(f['times']) && (f['times'] as number) >= 1)) return 'times must be a positive integer';
  if (f['probability'] !== undefined && !(typeof f['probability'] === 'number' && f['probability'] >= 0 && f['probability'] <= 1)) {
    return 'probability must be 0..1';
  }
  if (f['misapply'] !== undefined && (f['route'] !== 'update' || typeof f['misapply'] !== 'object' || f['misapply'] === null || Array.isArray(f['misapply']))) {
    return "misapply is a merge patch of the config (an object), on route 'update' only";
  }
  if (f['status'] === undefined && f['latency_ms'] === undefined && f['reset'] === undefined && f['malformed'] !== true && f['hold'] !== true && f['misapply'] === undefined) {
    return 'a fault needs at least one of status, latency_ms, reset, malformed, hold, misapply';
  }
  return undefined;
}

/**
 * The scripted faults of the whole server, each rule either the server's (set by the admin key, or
 * by anyone when no keys are configured: it applies to every request) or one tenant's (set with an
 * API key of a shared emulator: it applies to that tenant's requests alone, and only that tenant
 * lists, removes or releases it). Ids are random, so one tenant's ids say nothing of another's rules.
 */
export class Faults {
  private rules: Array<{ rule: FaultRule; tenant: string | undefined }> = [];
  /** The requests a `hold` rule stopped, each waiting for `release`, with the tenant that sent it. */
  private held: Array<{ go: () => void; tenant: string }> = [];

  constructor(private readonly random: () => number = Math.random) {}

  add(input: FaultInput, tenant?: string): FaultRule {
    const rule: FaultRule = { ...input, id: `fault_${randomToken(6, 'hex')}` };
    if (rule.times === undefined && rule.probability === undefined) rule.times = 1;
    this.rules.push({ rule, tenant });
    return rule;
  }

  /** Every rule (`tenant` undefined: the server's view), or one tenant's own. */
  list(tenant?: string): FaultRule[] {
    return this.rules.filter((r) => tenant === undefined || r.tenant === tenant).map((r) => r.rule);
  }

  /** Removes a rule the caller sees (any, for the server; its own, for a tenant). */
  remove(id: string, tenant?: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.rule.id !== id || (tenant !== undefined && r.tenant !== tenant));
    return this.rules.length !== before;
  }

  /**
   * Removes every rule the caller sees, and lets the held requests it owns go on (nothing is left
   * waiting forever); returns how many rules there were.
   */
  clear(tenant?: string): number {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => tenant !== undefined && r.tenant !== tenant);
    this.release(tenant);
    return before - this.rules.length;
  }

  /**
   * Holds a request of `tenant` that a `hold` rule took: the promise settles at `release`. Taken
   * when the request arrives, so a release that comes before the request reached the place it
   * waits at still lets it through.
   */
  hold(tenant: string): Promise<void> {
    return new Promise((resolve) => this.held.push({ go: resolve, tenant }));
  }

  /** Lets every held request go on (`tenant`: only that tenant's); returns how many there were. */
  release(tenant?: string): number {
    const go = this.held.filter((h) => tenant === undefined || h.tenant === tenant);
    this.held = this.held.filter((h) => !go.includes(h));
    for (const h of go) h.go();
    return go.length;
  }

  /**
   * The rule to apply to one request of `tenant` on `route` (consuming one of its `times`), if any:
   * the server's rules, and the tenant's own.
   */
  take(route: string, tenant: string): FaultRule | undefined {
    for (const entry of this.rules) {
      const { rule } = entry;
      if (entry.tenant !== undefined && entry.tenant !== tenant) continue;
      if (rule.route !== '*' && rule.route !== route) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      if (rule.times !== undefined) {
        rule.times -= 1;
        if (rule.times <= 0) this.rules = this.rules.filter((r) => r !== entry);
      }
      return rule;
    }
    return undefined;
  }
}
