// The pgpass module (the reader of libpq's password file that pg itself used) ships no types.
declare module 'pgpass' {
  interface ConnectionInfo {
    host?: string;
    port?: number | string;
    database?: string;
    user?: string;
  }
  /** Looks the connection up in PGPASSFILE (default ~/.pgpass); `undefined` when no line matches. */
  function pgpass(connInfo: ConnectionInfo, callback: (password: string | undefined) => void): void;
  export default pgpass;
}
