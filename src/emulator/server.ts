/**
 * The emulator's HTTP server (`node:http`, no framework): options, state, listening and closing.
 * What happens to one request is `dispatch.ts`.
 *
 * Hardening (runtime-facts §6): binds 127.0.0.1 unless told otherwise; keys compared in constant
 * time (`auth.ts`); bodies limited while streaming; header/request timeouts lowered and
 * keepAliveTimeout kept above undici's 4 s client default; no stack traces and no CORS headers in
 * answers; per-key tenants with another key's session answering 404.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KeyChecker } from './auth.js';
import { builtInCatalog, Catalog as Catalogue, type Catalog } from '../catalog/catalog.js';
import type { EmulatorSettings, EmulatorState } from './context.js';
import type { EmulatorOperation } from './contract/types.js';
import { isLoopbackHost } from '../util/loopback.js';
import { dispatch, sendError, type Dispatcher } from './dispatch.js';
import { httpError } from './errors.js';
import { Faults } from './faults.js';
import { FixedWindowLimit } from './fixed-window.js';
import { StreamLimit } from './mcp-streams.js';
import { Stats } from './stats.js';
import { Store } from './store.js';

export interface EmulatorOptions {
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** Port; `0` picks a free one. Default `0`. (The CLI's default is 4010.) */
  port?: number;
  /** Accepted API keys. None: any non-empty key is accepted, each key its own project. */
  apiKeys?: readonly string[];
  /** Keys that act for one project (project name to its keys), as a key and its rotated successor do. */
  projects?: Readonly<Record<string, readonly string[]>>;
  /**
   * Keys for the whole admin surface of a shared emulator (whole-server reset, every tenant's
   * sessions, faults and counters, the rate limit). Need `apiKeys`; never accepted by the API.
   */
  adminKeys?: readonly string[];
  /** Open MCP streams one key may hold at once. Default 16. */
  mcpStreamsPerKey?: number;
  /** Open MCP streams the whole emulator holds at once. Default 128. */
  mcpStreams?: number;
  /** An MCP stream with no traffic for this long is closed, ms. Default 60 s. */
  mcpIdleTimeoutMs?: number;
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
  /** Largest mount file upload, bytes. Default 256 MiB (streamed to disk with `dataDir`). */
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

/** A real agent's files fit (issue 10): well above the SDK's own examples. */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * MCP stream bounds: an agent holds one GET stream and a request or two at a time, so 16 per key
 * is several agents' worth; 128 in all stays far below a process's sockets.
 */
export const DEFAULT_MCP_STREAMS_PER_KEY = 16;
export const DEFAULT_MCP_STREAMS = 128;
/** Longer than any pause between an agent's calls; a forgotten stream gives its place back within it. */
export const DEFAULT_MCP_IDLE_MS = 60_000;

/** Starts the emulator. Resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  for (const name of ['mcpStreamsPerKey', 'mcpStreams', 'mcpIdleTimeoutMs'] as const) {
    const n = options[name];
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1)) throw new RangeError(`${name} must be a positive integer, got ${String(n)}`);
  }
  const settings: EmulatorSettings = {
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    presignTtlMs: options.presignTtlMs ?? 15 * 60 * 1000,
    mcpIdleMs: options.mcpIdleTimeoutMs ?? DEFAULT_MCP_IDLE_MS,
  };
  const keys = new KeyChecker(options.apiKeys ?? [], options.projects ?? {}, options.adminKeys ?? []);
  const state: EmulatorState = {
    store: new Store(options.dataDir),
    keys,
    // Replaced by the built-in catalogue on the first API request when none was given (see `load`).
    catalog: options.catalog ?? new Catalogue({ toolkits: [], tools: [] }),
    faults: new Faults(options.random),
    rateLimiter: new FixedWindowLimit(options.rateLimitPerMinute),
    stats: new Stats(keys.restricted),
    mcpStreams: new StreamLimit(options.mcpStreamsPerKey ?? DEFAULT_MCP_STREAMS_PER_KEY, options.mcpStreams ?? DEFAULT_MCP_STREAMS),
    settings,
    baseUrl: '',
    secret: randomBytes(32),
    ready: async () => {
      await load();
    },
    ...(options.log === undefined ? {} : { log: options.log }),
  };
  const hosts = new Set([...(options.allowedHosts ?? []).map((h) => h.toLowerCase()), host.toLowerCase(), `[${host.toLowerCase()}]`]);
  // The contract's schemas and the catalogue load on the first API request, not at start-up, so the
  // health check answers as soon as the socket listens (start-up budget: runtime-facts §4).
  let loading: Promise<Readonly<Record<string, EmulatorOperation>>> | undefined;
  const load = (): Promise<Readonly<Record<string, EmulatorOperation>>> =>
    (loading ??= (async () => {
      const [{ operations }, catalog] = await Promise.all([
        import('./contract/operations.generated.js'),
        options.catalog === undefined ? builtInCatalog() : Promise.resolve(options.catalog),
      ]);
      state.catalog = catalog;
      return operations;
    })());
  const d: Dispatcher = {
    state,
    keys,
    // Binding every interface is an explicit choice; then any Host is fine (there is no single name).
    allowedHosts: isLoopbackHost(host.includes(':') ? `[${host}]` : host) ? hosts : undefined,
    operations: load,
    log: options.log,
  };
  const { server, sockets } = createHttpServer(d);
  await listen(server, options.port ?? 0, host);
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

/** The node:http server around `dispatch`, with the sockets it holds (so `close` can drop them). */
function createHttpServer(d: Dispatcher): { server: Server; sockets: Set<Socket> } {
  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    dispatch(d, req, res).catch((err: unknown) => {
      d.log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
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
  return { server, sockets };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
