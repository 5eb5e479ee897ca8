/**
 * Runs before every test file (vitest `setupFiles`):
 * - removes the folders the file made with `tempDir` once its tests are done;
 * - makes `toThrow(/re/)` fail when nothing (undefined, null) was thrown (`strict-to-throw.ts`);
 * - keeps the suite on loopback: a DNS lookup of another name, a connection to another address or
 *   a server listening beyond loopback fails the test that did it (the call itself gets an error,
 *   so nothing leaves the machine).
 * The guard covers this process; child processes are the business of their tests.
 */
import dns from 'node:dns';
import net from 'node:net';
import { afterAll, afterEach } from 'vitest';
import { wildcardBindAllowed } from './skip.js';
import { installStrictToThrow } from './strict-to-throw.js';
import { removeAllTempDirs } from './temp-dir.js';

afterAll(() => removeAllTempDirs());
installStrictToThrow();

interface Guard {
  violations: string[];
}

const key = Symbol.for('sessionctl.test.loopback-guard');
const registry = globalThis as typeof globalThis & { [key]?: Guard };

/** Names and addresses that stay on this machine. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Names under the reserved `.invalid` top-level domain (RFC 6761 §6.4): none exists. */
function isInvalidName(host: string): boolean {
  return /(^|\.)invalid\.?$/i.test(host);
}

function refuse(what: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${what}: the test suite stays on loopback`), { code });
}

/** Patches the process-wide modules once; each test file then checks the shared list. */
function install(): Guard {
  const guard: Guard = { violations: [] };
  const lookup = dns.lookup;
  const guarded = function (this: unknown, hostname: string, ...rest: unknown[]): unknown {
    // listen() looks its host up too: 0.0.0.0 passes when wildcard binds are allowed.
    if (typeof hostname === 'string' && !isLoopback(hostname) && !(hostname === '0.0.0.0' && wildcardBindAllowed)) {
      // `.invalid` never resolves (RFC 6761): answered here, as the resolver would, without a query.
      if (!isInvalidName(hostname)) guard.violations.push(`a DNS lookup of ${hostname}`);
      const callback = rest[rest.length - 1] as (err: Error) => void;
      process.nextTick(callback, refuse(`getaddrinfo ENOTFOUND ${hostname}`, 'ENOTFOUND'));
      return {};
    }
    return (lookup as (...args: unknown[]) => unknown).call(this, hostname, ...rest);
  };
  dns.lookup = guarded as unknown as typeof dns.lookup;
  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = (async (hostname: string, ...rest: unknown[]) => {
    if (!isLoopback(hostname)) {
      if (!isInvalidName(hostname)) guard.violations.push(`a DNS lookup of ${hostname}`);
      throw refuse(`getaddrinfo ENOTFOUND ${hostname}`, 'ENOTFOUND');
    }
    return (promisesLookup as (...args: unknown[]) => unknown)(hostname, ...rest);
  }) as typeof dns.promises.lookup;

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (typeof first === 'object' && first !== null ? first : { port: first, host: args[1] }) as { host?: unknown; path?: unknown };
    const host = options.host;
    // IPC paths and names go through (names meet the DNS guard); only a literal address is checked.
    if (options.path === undefined && typeof host === 'string' && net.isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0 && !isLoopback(host)) {
      guard.violations.push(`a connection to ${host}`);
      process.nextTick(() => this.destroy(refuse(`connect ECONNREFUSED ${host}`, 'ECONNREFUSED')));
      return this;
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    const first = args[0];
    const options = (typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined }) as { host?: unknown; path?: unknown };
    const host = options.host;
    // A `.invalid` name goes on to its lookup, which fails as it would without the guard.
    const allowed = typeof host === 'string' && (isLoopback(host) || isInvalidName(host) || (host === '0.0.0.0' && wildcardBindAllowed));
    if (options.path === undefined && typeof first !== 'string' && !allowed) {
      guard.violations.push(`a server listening on ${typeof options.host === 'string' ? options.host : 'every interface'}`);
      process.nextTick(() => this.emit('error', refuse(`listen EACCES ${String(options.host ?? '::')}`, 'EACCES')));
      return this;
    }
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof net.Server.prototype.listen;
  return guard;
}

const guard = (registry[key] ??= install());

afterEach(() => {
  const seen = guard.violations.splice(0);
  if (seen.length > 0) throw new Error(`this test left loopback: ${[...new Set(seen)].join('; ')}`);
});
