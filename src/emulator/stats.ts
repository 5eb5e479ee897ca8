/**
 * Request counts per route, for tests that must know how many requests reached the emulator (a
 * retried create must not arrive twice). `received` counts every request that arrived, faulted or
 * not; `handled` counts those whose handler ran (their effect happened).
 */
export class Stats {
  private routes: Record<string, { received: number; handled: number }> = {};

  received(route: string): void {
    (this.routes[route] ??= { received: 0, handled: 0 }).received += 1;
  }

  handled(route: string): void {
    (this.routes[route] ??= { received: 0, handled: 0 }).handled += 1;
  }

  snapshot(): { routes: Record<string, { received: number; handled: number }>; total: { received: number; handled: number } } {
    const total = { received: 0, handled: 0 };
    for (const r of Object.values(this.routes)) {
      total.received += r.received;
      total.handled += r.handled;
    }
    return { routes: structuredClone(this.routes), total };
  }

  reset(): void {
    this.routes = {};
  }
}
