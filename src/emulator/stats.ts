/**
 * Request counts per route, for tests that must know how many requests reached the emulator (a
 * retried create must not arrive twice). `received` counts every request that arrived, faulted or
 * not; `handled` counts those whose handler ran (their effect happened). A shared emulator (API
 * keys configured) also counts per tenant, so that each tenant reads and resets its own requests
 * alone; its tenants are the configured keys, so those counters stay few.
 */
type RouteCounts = Record<string, { received: number; handled: number }>;

export interface StatsSnapshot {
  routes: RouteCounts;
  total: { received: number; handled: number };
}

export class Stats {
  private routes: RouteCounts = {};
  private readonly tenants = new Map<string, RouteCounts>();

  constructor(private readonly perTenant = false) {}

  /** A request arrived on `route`, from `tenant` when its key was accepted. */
  received(route: string, tenant?: string): void {
    for (const counts of this.countsOf(tenant)) (counts[route] ??= { received: 0, handled: 0 }).received += 1;
  }

  handled(route: string, tenant?: string): void {
    for (const counts of this.countsOf(tenant)) (counts[route] ??= { received: 0, handled: 0 }).handled += 1;
  }

  /** The server's counts, or (`tenant`) that tenant's own. */
  snapshot(tenant?: string): StatsSnapshot {
    const routes = tenant === undefined ? this.routes : (this.tenants.get(tenant) ?? {});
    const total = { received: 0, handled: 0 };
    for (const r of Object.values(routes)) {
      total.received += r.received;
      total.handled += r.handled;
    }
    return { routes: structuredClone(routes), total };
  }

  /** Forgets every count, or (`tenant`) that tenant's own; the server's total keeps what it saw. */
  reset(tenant?: string): void {
    if (tenant !== undefined) {
      this.tenants.delete(tenant);
      return;
    }
    this.routes = {};
    this.tenants.clear();
  }

  private countsOf(tenant: string | undefined): RouteCounts[] {
    if (!this.perTenant || tenant === undefined) return [this.routes];
    let own = this.tenants.get(tenant);
    if (own === undefined) this.tenants.set(tenant, (own = {}));
    return [this.routes, own];
  }
}
