import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What the proxy does with one request a rule matches:
 * - `forward` first: the emulator handles it (the session is created, updated or deleted), then
 *   the client gets `answer` instead of the emulator's answer (or its socket is reset);
 * - without `forward`: the client gets `answer` and the emulator never sees the request (a clear
 *   refusal, made before anything was handled).
 */
export interface Rewrite {
  forward: boolean;
  /** A status with a body (`raw` text, or `echo`: the emulator's own body), or a reset after the emulator handled it. */
  answer: { status: number; raw?: string; echo?: true; headers?: Record<string, string> } | { reset: true };
}

export interface Rule {
  method: string;
  path: RegExp;
  rewrite: Rewrite;
}

export interface RewritingProxy {
  url: string;
  /** Rules, first match wins; a request no rule matches goes to the emulator unchanged. */
  rules: Rule[];
  /** Requests that reached the proxy, by `METHOD path`. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * A loopback server in front of the emulator that plays a hostile service: it lets the emulator
 * do the work and then answers something other than the documented success, so that a test can
 * show what sessionctl makes of an answer that may follow a change (the emulator's counters say
 * what really happened).
 */
export async function rewritingProxy(upstream: string): Promise<RewritingProxy> {
  const sockets = new Set<Socket>();
  const proxy: RewritingProxy = { url: '', rules: [], seen: [], close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      proxy.seen.push(`${req.method} ${path}`);
      const rule = proxy.rules.find((r) => r.method === req.method && r.path.test(path));
      const body = Buffer.concat(chunks);
      if (rule !== undefined && !rule.rewrite.forward) return void answer(rule.rewrite.answer, '', req, res);
      void forward(upstream, req, body).then((up) => {
        if (rule === undefined) {
          res.writeHead(up.status, up.headers);
          res.end(up.body);
          return;
        }
        answer(rule.rewrite.answer, up.body, req, res);
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return proxy;
}

function answer(a: Rewrite['answer'], upstreamBody: string, req: IncomingMessage, res: ServerResponse): void {
  if ('reset' in a) {
    req.socket.destroy();
    return;
  }
  const text = a.echo === true ? upstreamBody : (a.raw ?? '');
  res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
  res.end(text);
}

function forward(upstream: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const target = new URL(req.url ?? '/', upstream);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
  headers['host'] = target.host;
  return new Promise((resolve, reject) => {
    const out = request(target, { method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string' && k !== 'connection' && k !== 'transfer-encoding') h[k] = v;
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    out.on('error', reject);
    out.end(body);
  });
}
