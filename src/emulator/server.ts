/**
 * The emulator's HTTP server (`node:http`, no framework). Every API request goes through, in order:
 * Host check (DNS rebinding, 421) -> route match -> stats -> scripted fault taken (reset before,
 * status) -> API key (401) -> rate limit (429) -> body read with a streaming size limit (413) ->
 * scripted latency -> contract validation of path, query and body (400) -> handler -> scripted fault
 * after handling (reset after, malformed body) -> JSON answer. `/_emulator/...` is the admin and public surface
 * (no key, no faults, no rate limit): see `routes/admin.ts`.
 *
 * Hardening (runtime-facts §6): binds 127.0.0.1 unless told otherwise; keys compared in constant
 * time (`auth.ts`); bodies limited while streaming; header/request timeouts lowered and
 * keepAliveTimeout kept above undici's 4 s client default; no stack traces and no CORS headers in
 * answers; per-key tenants with another key's session answering 404.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KeyChecker } from './auth.js';
import { builtInCatalog, Catalog as Catalogue, type Catalog } from '../catalog/catalog.js';
import type { ApiRequest, ApiResponse, EmulatorSettings, EmulatorState } from './context.js';
import type { OperationSchemas } from './contract/types.js';
import { ClientGone, coerceQuery, readBody, sendJson } from './http.js';
import { envelope, httpError, ServiceError } from './errors.js';
import { Faults, type FaultRule } from './faults.js';
import { randomToken } from './random-id.js';
import { RateLimiter } from './rate-limit.js';
import { handleAdmin } from './routes/admin.js';
import { matchRoute } from './routes/index.js';
import { Stats } from './stats.js';
import { Store } from './store.js';
import { validateRequest } from './validate.js';

export interface EmulatorOptions {
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** Port; `0` picks a free one. Default `0`. (The CLI's default is 4010.) */
  port?: number;
  /** Accepted API keys. None: any non-empty key is accepted, each key its own project. */
  apiKeys?: readonly string[];
  /** Keep state in this directory (`state.json`, `blobs/`), written atomically. Default: memory only. */
  dataDir?: string;
  /** Requests per minute per key; default unlimited. */
  rateLimitPerMinute?: number;
  /** The catalogue to serve; default the built-in one. */
  catalog?: Catalog;
  /** Called with one line per request (method, path, status, ms); never headers or bodies. */
  log?: (line: string) => void;
  /** Largest JSON request body, bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest mount file upload, bytes. Default 10 MiB. */
  maxFileBytes?: number;
  /** Lifetime of presigned upload/download URLs, ms. Default 15 minutes. */
  presignTtlMs?: number;
  /** Extra Host header names to accept (besides loopback names and the bound host). */
  allowedHosts?: readonly string[];
  /** Random source for probabilistic faults (tests pass a seeded one). */
  random?: () => number;
}

export interface RunningEmulator {
  /** `http://127.0.0.1:<port>`: the base URL to give clients. */
  url: string;
  host: string;
  port: number;
  /** Stops listening, drops open connections, and waits for pending state writes. */
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  const i = hostHeader.lastIndexOf(':');
  return (i === -1 ? hostHeader : hostHeader.slice(0, i)).toLowerCase();
}

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function sendError(res: ServerResponse, err: ServiceError, requestId: string, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, envelope(err, requestId), { 'x-request-id': requestId, ...headers });
}

function retryAfterHeader(rule: FaultRule): Record<string, string> {
  return rule.retry_after === undefined ? {} : { 'retry-after': String(rule.retry_after) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the emulator. Resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const settings: EmulatorSettings = {
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    maxFileBytes: options.maxFileBytes ?? 10 * 1024 * 1024,
    presignTtlMs: options.presignTtlMs ?? 15 * 60 * 1000,
  };
  const keys = new KeyChecker(options.apiKeys ?? []);
  const state: EmulatorState = {
    store: new Store(options.dataDir),
    // Replaced by the built-in catalogue on the first API request when none was given (see `load`).
    catalog: options.catalog ?? new Catalogue({ toolkits: [], tools: [] }),
    faults: new Faults(options.random),
    rateLimiter: new RateLimiter(options.rateLimitPerMinute),
    stats: new Stats(),
    settings,
    baseUrl: '',
    secret: randomBytes(32),
    ready: async () => {
      await load();
    },
    ...(options.log === undefined ? {} : { log: options.log }),
  };
  const allowedHosts = new Set([...(options.allowedHosts ?? []).map((h) => h.toLowerCase()), host.toLowerCase(), `[${host.toLowerCase()}]`]);
  // Binding every interface is an explicit choice; then any Host is fine (there is no single name).
  const checkHost = isLoopbackHost(host) || host === 'localhost';
  const log = options.log;
  // The contract's schemas and the catalogue load on the first API request, not at start-up, so the
  // health check answers as soon as the socket listens (start-up budget: runtime-facts §4).
  let loading: Promise<Readonly<Record<string, OperationSchemas>>> | undefined;
  const load = (): Promise<Readonly<Record<string, OperationSchemas>>> =>
    (loading ??= (async () => {
      const [{ operations }, catalog] = await Promise.all([
        import('./contract/operations.generated.js'),
        options.catalog === undefined ? builtInCatalog() : Promise.resolve(options.catalog),
      ]);
      state.catalog = catalog;
      return operations;
    })());

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = `req_${randomToken(8, 'hex')}`;
    // On 'close', so requests cut by a reset fault are logged too (with "reset" for the status).
    if (log !== undefined) {
      res.once('close', () =>
        log(`${req.method ?? '?'} ${(req.url ?? '').split('?')[0]} ${res.writableFinished ? res.statusCode : 'reset'} ${(performance.now() - started).toFixed(1)}ms`),
      );
    }
    const hostHeader = req.headers.host ?? '';
    if (checkHost) {
      const name = hostnameOf(hostHeader);
      if (!isLoopbackHost(name) && !allowedHosts.has(name)) {
        sendError(res, httpError(421, 'Unrecognised Host header'), requestId);
        return;
      }
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      sendError(res, httpError(400, 'Malformed request target'), requestId);
      return;
    }
    const method = req.method ?? 'GET';
    if (url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/')) {
      await handleAdmin(req, res, url, state, requestId);
      return;
    }
    if (/^\/tool_router\/v3\/[^/]+\/mcp$/.test(url.pathname)) {
      // `mcp.url` points here so it is a real URL of this server; the MCP transport itself is not emulated.
      sendError(res, httpError(501, 'The MCP transport is not emulated; use the REST endpoints'), requestId);
      return;
    }
    let match: ReturnType<typeof matchRoute>;
    try {
      match = matchRoute(method, url.pathname);
    } catch {
      sendError(res, httpError(400, 'Malformed path'), requestId);
      return;
    }
    if (match === undefined) {
      sendError(res, httpError(404, `No route for ${method} ${url.pathname}`), requestId);
      return;
    }
    if ('methodMismatch' in match) {
      sendError(res, httpError(405, `Method ${method} not allowed on ${url.pathname}`), requestId);
      return;
    }
    const { route, params } = match;
    state.stats.received(route.name);

    const fault = state.faults.take(route.name);
    if (fault?.reset === 'before') {
      req.socket.destroy();
      return;
    }
    if (fault?.status !== undefined) {
      if (fault.latency_ms !== undefined) await sleep(fault.latency_ms);
      const body = fault.body ?? envelope(httpError(fault.status, `Injected fault: HTTP ${fault.status}`), requestId);
      sendJson(res, fault.status, body, { 'x-request-id': requestId, ...retryAfterHeader(fault) });
      return;
    }

    const rawKey = req.headers['x-api-key'];
    const tenant = keys.tenantFor(Array.isArray(rawKey) ? rawKey[0] : rawKey);
    if (tenant === undefined) {
      const message = rawKey === undefined || rawKey === '' ? 'Missing API key: send it in the x-api-key header' : 'Invalid API key';
      sendError(res, httpError(401, message), requestId);
      return;
    }
    const rate = state.rateLimiter.check(tenant);
    if (!rate.allowed) {
      sendJson(res, 429, { message: state.rateLimiter.message() }, { ...rate.headers, 'retry-after': String(rate.retryAfterSeconds), 'x-request-id': requestId });
      return;
    }
    const extraHeaders = { ...rate.headers, 'x-request-id': requestId };

    const op = (await load())[route.operationId];
    if (op === undefined) throw new Error(`no contract operation ${route.operationId}`);
    let result: ApiResponse;
    try {
      let body: unknown = undefined;
      if (method === 'POST') {
        const raw = await readBody(req, settings.maxBodyBytes);
        // The delay comes after the whole request arrived: a client that gives up waiting has still
        // sent it, and it is handled (the "outcome unknown" case a client must not retry blindly).
        if (fault?.latency_ms !== undefined) await sleep(fault.latency_ms);
        const text = raw.toString('utf8');
        try {
          body = text.trim() === '' ? {} : JSON.parse(text);
        } catch {
          throw httpError(400, 'Invalid JSON in request body', ['Error in payload: Invalid JSON']);
        }
      } else if (fault?.latency_ms !== undefined) {
        await sleep(fault.latency_ms);
      }
      if (op.pathParams !== undefined) {
        const errors = await validateRequest(route.operationId, 'pathParams', params, 'params');
        if (errors !== undefined) {
          const badId = params.session_id !== undefined && errors.some((e) => e.startsWith('Error in params.session_id'));
          throw httpError(400, badId ? `Invalid session id '${params.session_id}': expected trs_...` : 'Invalid path parameters', errors);
        }
      }
      const query = coerceQuery(url.searchParams, op.query);
      if (op.query !== undefined) {
        const errors = await validateRequest(route.operationId, 'query', query, 'query');
        if (errors !== undefined) throw httpError(400, 'Invalid query parameters', errors);
      }
      if (op.body !== undefined) {
        const errors = await validateRequest(route.operationId, 'body', body, 'payload');
        if (errors !== undefined) throw httpError(400, 'Invalid request body', errors);
      }
      const apiReq: ApiRequest = { route: route.name, tenant, params, query, body, requestId };
      result = await route.handler(apiReq, state);
      state.stats.handled(route.name);
    } catch (err) {
      if (err instanceof ClientGone) return;
      if (err instanceof ServiceError) {
        if (fault?.reset === 'after') {
          req.socket.destroy();
          return;
        }
        sendError(res, err, requestId, extraHeaders);
        // A body cut off at the limit is still arriving: close instead of draining it.
        if (err.status === 413) res.once('finish', () => req.socket.destroy());
        return;
      }
      log?.(`internal error on ${route.name}: ${err instanceof Error ? err.message : String(err)}`);
      sendError(res, httpError(500, 'Internal emulator error'), requestId);
      return;
    }
    if (fault?.reset === 'after') {
      req.socket.destroy();
      return;
    }
    if (fault?.malformed === true) {
      const text = JSON.stringify(result.body);
      res.writeHead(result.status, { 'content-type': 'application/json; charset=utf-8', ...extraHeaders });
      res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      return;
    }
    sendJson(res, result.status, result.body, { ...extraHeaders, ...result.headers });
  }

  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendError(res, httpError(500, 'Internal emulator error'), 'req_internal');
      else res.destroy();
    });
  });
  // Above undici's 4 s client keep-alive, so the server never closes a socket the client is reusing.
  server.keepAliveTimeout = 5_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // A wildcard bind has no address a client can use: point links and presigned URLs at loopback.
  const reachable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const urlHost = reachable.includes(':') ? `[${reachable}]` : reachable;
  state.baseUrl = `http://${urlHost}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url: state.baseUrl,
    host: address.address,
    port: address.port,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const s of sockets) s.destroy();
        await closed;
        await state.store.flush();
      })();
      return closing;
    },
  };
}
