import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP server the client tests start on 127.0.0.1, port 0, that plays a script of
 * faults, one per request, and records every request that reached it (counted on arrival,
 * before any reset). Used to test the retry policy against real sockets.
 */
export type Behaviour =
  | { type: 'respond'; status: number; body?: unknown; raw?: string; headers?: Record<string, string> }
  /** Destroy the socket as soon as the request line and headers arrived, body unread. */
  | { type: 'reset-before-body' }
  /** Read the whole body (the request was "processed"), then destroy the socket. */
  | { type: 'reset-after-body' }
  /** Wait, then behave as `then` (the client's timeout fires first when `ms` is long). */
  | { type: 'delay'; ms: number; then: Behaviour }
  /** Send the status line and headers, part of the body, then stall until the socket closes. */
  | { type: 'stall-body'; status: number }
  /** Send a status and a body that is not JSON. */
  | { type: 'malformed'; status: number };

export interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FaultServer {
  url: string;
  port: number;
  hits: Hit[];
  /** Behaviours for the next requests, in order; after them, `fallback`. */
  script(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  close(): Promise<void>;
}

export async function startFaultServer(options: { port?: number; fallback?: Behaviour } = {}): Promise<FaultServer> {
  const queue: Behaviour[] = [];
  const hits: Hit[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const state = { fallback: options.fallback ?? ({ type: 'respond', status: 200, body: { ok: true } } as Behaviour) };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });

  async function play(b: Behaviour, req: IncomingMessage, res: ServerResponse, hit: Hit): Promise<void> {
    switch (b.type) {
      case 'reset-before-body':
        req.socket.destroy();
        return;
      case 'reset-after-body':
        hit.body = await readBody(req);
        req.socket.destroy();
        return;
      case 'delay':
        hit.body = await readBody(req);
        await new Promise((r) => setTimeout(r, b.ms));
        if (req.socket.destroyed) return;
        return play(b.then, req, res, hit);
      case 'stall-body':
        hit.body = await readBody(req);
        res.writeHead(b.status, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"session_id":"trs_');
        return;
      case 'malformed':
        hit.body = await readBody(req);
        res.writeHead(b.status, { 'content-type': 'application/json' });
        res.end('{"session_id": "trs_abc", "config": {');
        return;
      case 'respond': {
        hit.body = await readBody(req);
        const text = b.raw ?? (b.body === undefined ? '' : JSON.stringify(b.body));
        res.writeHead(b.status, { 'content-type': 'application/json', ...b.headers });
        res.end(text);
        return;
      }
    }
  }

  const server: Server = createServer((req, res) => {
    const hit: Hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' };
    hits.push(hit);
    const b = queue.shift() ?? state.fallback;
    void play(b, req, res, hit);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    script: (...b) => void queue.push(...b),
    get fallback() {
      return state.fallback;
    },
    set fallback(b: Behaviour) {
      state.fallback = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago): connections are refused. */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A session body like the service's 201, with a field the contract does not know. */
export function sessionBody(id = 'trs_test1'): Record<string, unknown> {
  return {
    session_id: id,
    mcp: { type: 'http', url: `https://example.invalid/tool_router/v3/${id}/mcp` },
    tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'],
    config: { user_id: 'u1', workbench: { enable: true, proxy_execution_enabled: true } },
    config_version: 1,
    future_field: { kept: true },
  };
}
