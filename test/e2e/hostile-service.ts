import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the service answers to a request that one of its routes matches. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the status, headers and this much of a body, then never end it. */
  stall?: string;
}

export interface HostileService {
  url: string;
  /** Requests received, in order: method, path, the key they carried and their body (once it has arrived). */
  received: Array<{ method: string; path: string; key: string | undefined; body: string }>;
  /** The answer per request, by method and path; the first route that matches answers. */
  routes: Array<{ method: string; path: RegExp; answer: (url: string) => Answer }>;
  close(): Promise<void>;
}

/**
 * A loopback server that plays a service answering whatever a test scripts: sessions with escape
 * sequences in their ids, keys echoed in URLs, error bodies, a body that never ends. Unmatched
 * requests get a 404 envelope.
 */
export async function hostileService(routes: HostileService['routes'] = []): Promise<HostileService> {
  const sockets = new Set<import('node:net').Socket>();
  const service: HostileService = { url: '', received: [], routes, close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '';
    const key = req.headers['x-api-key'];
    const request = { method: req.method ?? '', path, key: Array.isArray(key) ? key[0] : key, body: '' };
    service.received.push(request);
    req.setEncoding('utf8').on('data', (chunk: string) => (request.body += chunk));
    req.on('end', () => {
      const route = service.routes.find((r) => r.method === req.method && r.path.test(path));
      const answer = route?.answer(service.url) ?? { status: 404, body: { error: { message: 'Not found', code: 10404, slug: 'Not_Found', status: 404 } } };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      if (answer.stall !== undefined) {
        res.write(answer.stall);
        return;
      }
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return service;
}

/** A session answer as the service sends it. */
export function sessionAnswer(sessionId: string, mcpUrl: string, config: Record<string, unknown> = { user_id: 'u1', toolkits: { enabled: ['gmail'] } }): Record<string, unknown> {
  return {
    session_id: sessionId,
    mcp: { type: 'http', url: mcpUrl },
    tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL'],
    config,
    config_version: 1,
  };
}
