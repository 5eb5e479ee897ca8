/**
 * The bound on open MCP streams (each Streamable HTTP exchange at a session's `mcp.url`: a POST
 * until its answer, a GET's SSE stream until either side closes it). A GET stream of this stateless
 * server never carries a message, yet each holds a socket and a server object for as long as the
 * client keeps it, so one key could take every socket of a shared emulator. Each tenant may hold
 * `perTenant` streams, the server `total`; past either, the request is refused at once (429 for
 * the tenant's bound, which that tenant alone can free; 503 for the server's).
 */
export type StreamRefusal = 'tenant' | 'total';

export class StreamLimit {
  private open = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(
    readonly perTenant: number,
    readonly total: number,
  ) {}

  /** Takes a place for one stream of `tenant`: a function that gives it back (once), or why not. */
  acquire(tenant: string): (() => void) | StreamRefusal {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.perTenant) return 'tenant';
    if (this.open >= this.total) return 'total';
    this.open += 1;
    this.byTenant.set(tenant, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.open -= 1;
      const left = (this.byTenant.get(tenant) ?? 1) - 1;
      // Emptied entries are dropped: without keys any key is a tenant, and the map must not grow with them.
      if (left === 0) this.byTenant.delete(tenant);
      else this.byTenant.set(tenant, left);
    };
  }

  /** Streams open now, for one tenant or in all. */
  count(tenant?: string): number {
    return tenant === undefined ? this.open : (this.byTenant.get(tenant) ?? 0);
  }
}
