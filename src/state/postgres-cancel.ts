import pg from 'pg';

/** How long the cancel request's own connection may take before it is dropped. */
const CANCEL_MS = 2_000;

/** What pg's connection does that its types do not say: connect, and send a CancelRequest. */
interface CancelConnection {
  stream: { destroy(): void };
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
  on(event: 'connect' | 'error', listener: (...args: unknown[]) => void): void;
  end(): void;
}

/** The server's key for a connection's backend, once its startup told it. */
export interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  host: string;
  port: number;
}

/**
 * Asks the server to cancel the statement a connection runs, over a connection of its own (as
 * libpq's PQcancel does; pg's `Connection` sends the CancelRequest). A statement the run stopped
 * waiting for (its deadline passed) goes on at the server otherwise: blocked on a row lock, it
 * would commit once the lock is released, after the run has reported that nothing was written.
 * Best effort and bounded: a server that does not answer this either is left.
 */
export function cancelBackend(key: BackendKey): void {
  if (key.processID === null || key.secretKey === null) return;
  const { processID, secretKey } = key;
  const con = new pg.Connection() as unknown as CancelConnection;
  const timer = setTimeout(() => con.stream.destroy(), CANCEL_MS);
  timer.unref();
  con.on('error', () => undefined);
  con.on('connect', () => {
    con.cancel(processID, secretKey);
    clearTimeout(timer);
  });
  if (key.host.startsWith('/')) con.connect(`${key.host}/.s.PGSQL.${key.port}`);
  else con.connect(key.port, key.host);
}
