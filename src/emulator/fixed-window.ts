/**
 * The service's rate limit (api facts §6.4): per organization (here: per API key), a fixed window
 * (1 minute) shared by all endpoints. Responses carry `X-RateLimit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Window-Size`; a refused request gets 429 with `Retry-After` (seconds) and the bare body
 * `{"message": "Rate limit exceeded. Limit: N requests per 1 minutes"}` (not the error envelope).
 */

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds?: number;
}

export class FixedWindowLimit {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private limit: number | undefined,
    private windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  configure(limit: number | undefined, windowMs = 60_000): void {
    this.limit = limit;
    this.windowMs = windowMs;
    this.windows.clear();
  }

  get settings(): { per_window: number | null; window_ms: number } {
    return { per_window: this.limit ?? null, window_ms: this.windowMs };
  }

  /** Forgets every window, or (`tenant`) that tenant's own. */
  reset(tenant?: string): void {
    if (tenant === undefined) this.windows.clear();
    else this.windows.delete(tenant);
  }

  check(tenant: string): RateDecision {
    if (this.limit === undefined) return { allowed: true, headers: {} };
    const now = this.now();
    let w = this.windows.get(tenant);
    if (w === undefined || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(tenant, w);
    }
    const headers = {
      'x-ratelimit': String(this.limit),
      'x-ratelimit-window-size': `${Math.round(this.windowMs / 1000)}s`,
    };
    if (w.count >= this.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
      return { allowed: false, retryAfterSeconds, headers: { ...headers, 'x-ratelimit-remaining': '0' } };
    }
    w.count += 1;
    return { allowed: true, headers: { ...headers, 'x-ratelimit-remaining': String(this.limit - w.count) } };
  }

  message(): string {
    return `Rate limit exceeded. Limit: ${this.limit ?? 0} requests per ${Math.max(1, Math.round(this.windowMs / 60_000))} minutes`;
  }
}
